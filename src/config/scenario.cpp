#include "config/scenario.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <sstream>

#include "compute/compute.hpp"
#include "core/input_file.hpp"
#include "io/yaml_load.hpp"
#include "io/yaml_reader.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "network/options.hpp"
#include "topology/builders.hpp"
#include "topology/forms.hpp"
#include "topology/link_failures.hpp"

namespace collsim::config {
namespace {

using core::InputError;

constexpr std::string_view kDefaultBackend = network::kDefaultBackend;

// Parsing context: the source name for error messages.
class Reader : public io::YamlReader {
 public:
  using io::YamlReader::YamlReader;

  topology::DimKind dim_kind(const YAML::Node& n, const std::string& path) const {
    const std::string k = scalar(n, path);
    if (const auto* t = topology::find_dim_kind(k)) return t->kind;
    fail(n, path,
         fmt::format("unknown dimension kind \"{}\"; valid: {}", k, topology::dim_kind_names()));
  }

  Platform platform(const YAML::Node& n, const std::string& path) const {
    check_keys(n, path,
               {"name", "topology", "link_bandwidth", "link_latency", "ring_tie", "local_switch",
                "wavelengths", "wavelength_bandwidth", "npu_link_bandwidth", "npu_link_latency",
                "endpoint", "endpoint_params", "fail_links"});
    if (!n["topology"]) fail(n, path, "missing key \"topology\"");
    const YAML::Node topo = n["topology"];
    const std::string tpath = path + ".topology";
    std::optional<topology::Topology> built;
    if (topo.IsScalar()) {
      // An optical ring's links carry its wavelengths: it takes no link_bandwidth.
      const std::string spec = scalar(topo, tpath);
      const topology::TopologyForm* form =
          topology::find_topology_form(std::string_view(spec).substr(0, spec.find(':')));
      const bool optical_form = form != nullptr && form->optical;
      const bool own_links = form != nullptr && form->own_links;
      if (optical_form && n["link_bandwidth"]) {
        fail(n["link_bandwidth"], path + ".link_bandwidth",
             "not used by optical rings: their links carry wavelengths x wavelength_bandwidth");
      }
      for (const char* k : {"link_bandwidth", "link_latency"}) {
        if (own_links && n[k] && !form->own_links_why.empty()) {
          fail(n[k], path + "." + k, fmt::format("not used by {}: {}", spec, form->own_links_why));
        }
        if (own_links && n[k]) {
          fail(n[k], path + "." + k,
               fmt::format("not used by {}: its links are its paper's Table II (give `dims:` "
                           "to change them)",
                           spec));
        }
      }
      if (!optical_form && !own_links && !n["link_bandwidth"]) {
        fail(n, path, "missing key \"link_bandwidth\" (e.g. 16 GB/s)");
      }
      if (!own_links && !n["link_latency"]) {
        fail(n, path, "missing key \"link_latency\" (e.g. 150 ns)");
      }
      const auto bw =
          optical_form || own_links ? core::Bandwidth{1} : with_line(n["link_bandwidth"], [&] {
            return core::parse_bandwidth(scalar(n["link_bandwidth"], path + ".link_bandwidth"),
                                         path + ".link_bandwidth");
          });
      const auto lat = own_links ? core::Time{} : with_line(n["link_latency"], [&] {
        return core::parse_time(scalar(n["link_latency"], path + ".link_latency"),
                                path + ".link_latency");
      });
      std::optional<topology::OpticalSpec> optical;
      std::string optical_key = path + ".wavelengths";
      if (n["wavelengths"] || n["wavelength_bandwidth"]) {
        optical.emplace();
        if (n["wavelengths"]) {
          optical->wavelengths = uint(n["wavelengths"], path + ".wavelengths", 1);
        } else {
          optical_key = path + ".wavelength_bandwidth";
        }
        if (n["wavelength_bandwidth"]) {
          optical->wavelength_bandwidth = with_line(n["wavelength_bandwidth"], [&] {
            return core::parse_bandwidth(
                scalar(n["wavelength_bandwidth"], path + ".wavelength_bandwidth"),
                path + ".wavelength_bandwidth");
          });
        }
      }
      // A topology file (`file:PATH`) is found next to the scenario, as a workload is.
      std::string resolved = spec;
      if (form != nullptr && form->args == topology::FormArgs::Path) {
        const std::string file = spec.substr(spec.find(':') + 1);
        const auto beside = std::filesystem::path(source()).parent_path() / file;
        std::error_code ec;
        if (!file.empty() && std::filesystem::path(file).is_relative() &&
            std::filesystem::is_regular_file(beside, ec)) {
          resolved = "file:" + beside.string();
        }
      }
      built = with_line(topo, [&] {
        return topology::from_compact(resolved, bw, lat, tpath, optical, optical_key);
      });
      // Switched networks: NPU-to-switch links of their own.
      if (n["npu_link_bandwidth"] || n["npu_link_latency"]) {
        std::optional<core::Bandwidth> nbw;
        std::optional<core::Time> nlat;
        const std::string key = n["npu_link_bandwidth"] ? "npu_link_bandwidth" : "npu_link_latency";
        if (n["npu_link_bandwidth"]) {
          nbw = with_line(n["npu_link_bandwidth"], [&] {
            return core::parse_bandwidth(
                scalar(n["npu_link_bandwidth"], path + ".npu_link_bandwidth"),
                path + ".npu_link_bandwidth");
          });
        }
        if (n["npu_link_latency"]) {
          nlat = with_line(n["npu_link_latency"], [&] {
            return core::parse_time(scalar(n["npu_link_latency"], path + ".npu_link_latency"),
                                    path + ".npu_link_latency");
          });
        }
        with_line(n[key], [&] {
          built->set_npu_links(nbw, nlat, path + "." + key);
          return 0;
        });
      }
    } else {
      for (const char* k : {"link_bandwidth", "link_latency", "wavelengths", "wavelength_bandwidth",
                            "npu_link_bandwidth", "npu_link_latency"}) {
        if (n[k])
          fail(n[k], path + "." + k, "not used with a dims topology; give each dimension its own");
      }
      check_keys(topo, tpath, {"dims"});
      if (!topo["dims"] || !topo["dims"].IsSequence() || topo["dims"].size() == 0) {
        fail(topo, tpath + ".dims", "must be a non-empty list of dimensions");
      }
      std::vector<topology::DimSpec> dims;
      for (std::size_t i = 0; i < topo["dims"].size(); ++i) {
        const YAML::Node d = topo["dims"][i];
        const std::string dp = fmt::format("{}.dims[{}]", tpath, i);
        check_keys(d, dp, {"kind", "size", "bandwidth", "latency", "links_per_npu"});
        for (const char* k : {"kind", "size", "bandwidth", "latency"}) {
          if (!d[k]) fail(d, dp, fmt::format("missing key \"{}\"", k));
        }
        topology::DimSpec s;
        s.kind = dim_kind(d["kind"], dp + ".kind");
        s.size = uint(d["size"], dp + ".size", 2);
        s.bandwidth = with_line(d["bandwidth"], [&] {
          return core::parse_bandwidth(scalar(d["bandwidth"], dp + ".bandwidth"),
                                       dp + ".bandwidth");
        });
        s.latency = with_line(d["latency"], [&] {
          return core::parse_time(scalar(d["latency"], dp + ".latency"), dp + ".latency");
        });
        if (d["links_per_npu"])
          s.links_per_npu = uint(d["links_per_npu"], dp + ".links_per_npu", 1);
        dims.push_back(s);
      }
      built = with_line(topo, [&] {
        try {
          return topology::hierarchical(dims);
        } catch (const InputError& e) {  // "dims[1].links_per_npu: ..." -> the full key path
          throw InputError(tpath + "." + e.what());
        }
      });
    }
    if (n["local_switch"]) {
      built->set_local_switch_rule(with_line(n["local_switch"], [&] {
        return topology::parse_local_switch_rule(scalar(n["local_switch"], path + ".local_switch"),
                                                 path + ".local_switch");
      }));
    }
    if (n["ring_tie"]) {
      built->set_ring_tie(with_line(n["ring_tie"], [&] {
        return topology::parse_ring_tie(scalar(n["ring_tie"], path + ".ring_tie"),
                                        path + ".ring_tie");
      }));
    }
    if (n["fail_links"]) {  // topology/link_failures.hpp
      with_line(n["fail_links"], [&] {
        topology::apply_failed_links(*built, scalar(n["fail_links"], path + ".fail_links"),
                                     path + ".fail_links");
        return 0;
      });
    }
    Platform p{
        n["name"] ? scalar(n["name"], path + ".name") : built->name(), std::move(*built), {}, {}};
    with_line(n, [&] {
      topology::validate(p.topology);
      return 0;
    });
    endpoints(n, path, p);
    return p;
  }

  // endpoint: NAME or [NAME, ...] (one row each; default ideal); endpoint_params: {key: value}.
  void endpoints(const YAML::Node& n, const std::string& path, Platform& p) const {
    const YAML::Node e = n["endpoint"];
    const std::string epath = path + ".endpoint";
    if (!e) {
      p.endpoints.push_back(&endpoint::find_endpoint(endpoint::kDefaultEndpoint, epath));
    } else if (e.IsSequence()) {
      if (e.size() == 0) fail(e, epath, "must name at least one endpoint");
      for (std::size_t i = 0; i < e.size(); ++i) {
        const std::string ip = fmt::format("{}[{}]", epath, i);
        const std::string name = scalar(e[i], ip);
        p.endpoints.push_back(with_line(e[i], [&] { return &endpoint::find_endpoint(name, ip); }));
      }
    } else {
      const std::string name = scalar(e, epath);
      p.endpoints.push_back(with_line(e, [&] { return &endpoint::find_endpoint(name, epath); }));
    }
    const YAML::Node params = n["endpoint_params"];
    if (!params) return;
    const std::string ppath = path + ".endpoint_params";
    if (!params.IsMap()) fail(params, ppath, "must be a map of endpoint parameters");
    for (const auto& kv : params) {
      const std::string key = kv.first.as<std::string>();
      const std::string kp = ppath + "." + key;
      const std::string text = scalar(kv.second, kp);
      with_line(kv.second, [&] {
        endpoint::set_endpoint_param(p.endpoint_params, key, text, kp);
        return 0;
      });
    }
  }

  std::optional<core::Time> max_time(const YAML::Node& n, const std::string& path) const {
    if (!n["max_time"]) return std::nullopt;
    return with_line(n["max_time"], [&] {
      return core::parse_time(scalar(n["max_time"], path + ".max_time"), path + ".max_time",
                              core::Zero::Reject);
    });
  }

  std::string group(const YAML::Node& n, const std::string& path) const {
    if (!n["group"]) return "all";
    groups_.push_back({n["group"], path + ".group"});
    return scalar(n["group"], path + ".group");
  }

  jobs::ConcurrentMember member(const YAML::Node& n, const std::string& path) const {
    check_keys(n, path, {"collective", "group", "algorithm", "size", "chunks"});
    for (const char* k : {"collective", "algorithm", "size"}) {
      if (!n[k]) fail(n, path, fmt::format("missing key \"{}\"", k));
    }
    jobs::ConcurrentMember m;
    m.collective = with_line(n["collective"], [&] {
      return collective::parse_collective(scalar(n["collective"], path + ".collective"),
                                          path + ".collective");
    });
    m.group = group(n, path);
    m.algorithm = with_line(n["algorithm"], [&] {
      return collective::parse_algorithm(scalar(n["algorithm"], path + ".algorithm"),
                                         path + ".algorithm");
    });
    m.size = with_line(n["size"], [&] {
      return core::parse_bytes(scalar(n["size"], path + ".size"), path + ".size");
    });
    if (n["chunks"]) m.chunks = uint(n["chunks"], path + ".chunks", 1);
    return m;
  }

  TrainingSpec training(const YAML::Node& t, const std::string& path) const {
    check_keys(t, path,
               {"workload", "algorithms", "chunks", "overlap", "order", "iterations", "astra_clock",
                "batch", "compute", "precision"});
    for (const char* k : {"workload", "algorithms"}) {
      if (!t[k]) fail(t, path, fmt::format("missing key \"{}\"", k));
    }
    TrainingSpec s;
    s.workload = scalar(t["workload"], path + ".workload");
    // A file is found next to the scenario, as a user reading the scenario expects.
    const auto beside = std::filesystem::path(source()).parent_path() / s.workload;
    std::error_code ec;
    if (std::filesystem::path(s.workload).is_relative() &&
        std::filesystem::is_regular_file(beside, ec)) {
      s.workload = beside.string();
    }
    const auto algos = nonempty_items(t["algorithms"], path + ".algorithms", "algorithm");
    for (std::size_t i = 0; i < algos.size(); ++i) {
      const std::string ap = fmt::format("{}.algorithms[{}]", path, i);
      const std::string text = scalar(algos[i], ap);
      if (text == "ideal") {  // Themis Table 3: every collective at 100% bandwidth utilization
        s.algorithms.push_back(collective::AlgorithmChoice{nullptr, {}, "ideal"});
        continue;
      }
      s.algorithms.push_back(
          with_line(algos[i], [&] { return collective::parse_algorithm(text, ap); }));
    }
    if (t["chunks"]) s.chunks = uint(t["chunks"], path + ".chunks", 1);
    if (t["overlap"]) {
      s.overlaps.clear();
      for (const auto& o : nonempty_items(t["overlap"], path + ".overlap", "overlap policy")) {
        s.overlaps.push_back(with_line(o, [&] {
          return jobs::parse_overlap(scalar(o, path + ".overlap"), path + ".overlap");
        }));
      }
    }
    if (t["order"]) {
      s.order = with_line(t["order"], [&] {
        return jobs::parse_issue_order(scalar(t["order"], path + ".order"), path + ".order");
      });
    }
    if (t["iterations"]) s.iterations = uint(t["iterations"], path + ".iterations", 1);
    if (t["batch"]) s.batch = uint(t["batch"], path + ".batch", 1);
    if (t["precision"]) s.bytes_per_element = uint(t["precision"], path + ".precision", 1);
    if (t["compute"]) {
      s.compute = scalar(t["compute"], path + ".compute");
      with_line(t["compute"],
                [&] { return compute::make_compute_model(s.compute, path + ".compute"); });
    }
    if (t["astra_clock"]) {
      s.astra_clock_hz = with_line(t["astra_clock"], [&] {
        return core::parse_frequency(scalar(t["astra_clock"], path + ".astra_clock"),
                                     path + ".astra_clock");
      });
    }
    return s;
  }

  JobSpec job(const YAML::Node& n, const std::string& path) const {
    if (n.IsMap() && n["llm"]) {
      check_keys(n, path, {"llm"});
      JobSpec j;
      j.name = path;
      const YAML::Node c = n["llm"];
      if (c.IsScalar()) {
        std::string file = c.as<std::string>();
        const auto beside = std::filesystem::path(source()).parent_path() / file;
        std::error_code ec;
        if (std::filesystem::path(file).is_relative() &&
            std::filesystem::is_regular_file(beside, ec)) {
          file = beside.string();
        }
        j.llm = with_line(c, [&] { return workload::load_llm_config(file); });
      } else {
        j.llm = workload::parse_llm_config(YAML::Dump(c),
                                           fmt::format("{}:{}: {}.llm", source(), line_of(c), path));
      }
      return j;
    }
    if (n.IsMap() && n["training"]) {
      check_keys(n, path, {"training", "max_time"});
      JobSpec j;
      j.name = path;
      j.training = training(n["training"], path + ".training");
      j.max_time = max_time(n, path);
      return j;
    }
    if (n.IsMap() && n["concurrent"]) {
      check_keys(n, path, {"concurrent", "max_time"});
      const YAML::Node list = n["concurrent"];
      if (!list.IsSequence() || list.size() == 0) {
        fail(list, path + ".concurrent", "must be a non-empty list of collectives");
      }
      JobSpec j;
      j.name = path;
      for (std::size_t i = 0; i < list.size(); ++i) {
        j.concurrent.push_back(member(list[i], fmt::format("{}.concurrent[{}]", path, i)));
      }
      j.max_time = max_time(n, path);
      return j;
    }
    check_keys(n, path, {"collective", "sizes", "algorithms", "chunks", "group", "max_time"});
    for (const char* k : {"collective", "sizes", "algorithms"}) {
      if (!n[k]) fail(n, path, fmt::format("missing key \"{}\" (or \"concurrent\")", k));
    }
    JobSpec j;
    j.name = path;
    j.group = group(n, path);
    j.collective = with_line(n["collective"], [&] {
      return collective::parse_collective(scalar(n["collective"], path + ".collective"),
                                          path + ".collective");
    });
    const auto sizes = nonempty_items(n["sizes"], path + ".sizes", "size");
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const std::string sp = fmt::format("{}.sizes[{}]", path, i);
      auto list =
          with_line(sizes[i], [&] { return core::parse_size_list(scalar(sizes[i], sp), sp); });
      j.sizes.insert(j.sizes.end(), list.begin(), list.end());
    }
    const auto algos = nonempty_items(n["algorithms"], path + ".algorithms", "algorithm");
    for (std::size_t i = 0; i < algos.size(); ++i) {
      const std::string ap = fmt::format("{}.algorithms[{}]", path, i);
      const std::string text = scalar(algos[i], ap);
      if (text == "all") {
        if (algos.size() != 1) fail(algos[i], ap, "\"all\" cannot be combined with other names");
        j.all_algorithms = true;
      } else {
        j.algorithms.push_back(
            with_line(algos[i], [&] { return collective::parse_algorithm(text, ap); }));
      }
    }
    if (n["chunks"]) j.chunks = uint(n["chunks"], path + ".chunks", 1);
    j.max_time = max_time(n, path);
    return j;
  }

  // One backend: a name, or a map with a name and the backend's parameters (its schema,
  // network/params.hpp; every backend's keys are known, a key of another backend is refused).
  BackendChoice backend_item(const YAML::Node& b, const std::string& path) const {
    BackendChoice c;
    std::string name = std::string(kDefaultBackend);
    if (b.IsMap()) {
      std::vector<std::string_view> keys = {"name"};
      for (const network::BackendParam* p : network::all_params()) keys.push_back(p->spec.key);
      check_keys(b, path, keys);
      if (b["name"]) name = scalar(b["name"], path + ".name");
    } else {
      name = scalar(b, path);
    }
    c.info = &with_line(
        b, [&]() -> const network::BackendInfo& { return network::find_backend(name, path); });
    if (!b.IsMap()) return c;
    for (const auto& kv : b) {
      const std::string key = kv.first.as<std::string>();
      if (key == "name") continue;
      const network::BackendParam& p = *network::find_param(key);
      const std::string kp = path + "." + key;
      if (!network::takes(*c.info, key)) {
        with_line(kv.first, [&]() -> int {
          const network::BackendInfo* const chosen[] = {c.info};
          network::refuse_param(p, chosen, path, key);
        });
      }
      const std::string text = scalar(kv.second, kp);
      with_line(kv.second, [&] {
        network::set_param(p, c.options, text, kp);
        return 0;
      });
    }
    return c;
  }

  void backends(const YAML::Node& root, Scenario& s) const {
    const YAML::Node b = root["backend"];
    if (!b) {
      s.backends.push_back(BackendChoice{&network::find_backend(kDefaultBackend, "backend"), {}});
    } else if (b.IsSequence()) {
      if (b.size() == 0) fail(b, "backend", "must name at least one backend");
      for (std::size_t i = 0; i < b.size(); ++i) {
        s.backends.push_back(backend_item(b[i], fmt::format("backend[{}]", i)));
      }
    } else {
      s.backends.push_back(backend_item(b, "backend"));
    }
  }

  // An ASTRA-sim input (network YAML/JSON, system JSON) or a Chakra JSON given to `run`: say
  // which command reads it, rather than listing scenario keys it never had.
  void foreign(const YAML::Node& root) const {
    if (!root.IsMap()) return;
    const auto has = [&](const char* k) { return static_cast<bool>(root[k]); };
    const char* what = nullptr;
    if (has("npus_count") || has("topology-name") || has("dimensions-count") ||
        (has("topology") && has("bandwidth") && !has("platforms") && !has("platform"))) {
      what = "an ASTRA-sim network file: give it to `collsim astra --network-configuration FILE` "
             "(with its system and workload files)";
    } else if (has("scheduling-policy") || has("all-reduce-implementation") ||
               has("endpoint-delay") || has("collective-optimization")) {
      what = "an ASTRA-sim system file: give it to `collsim astra --system-configuration FILE` "
             "(with its network and workload files)";
    } else if (has("schema") && has("nodes")) {
      what = "a Chakra execution trace in JSON: give its .et files to `collsim astra "
             "--workload-configuration PREFIX`";
    }
    if (what) {
      throw core::InputError(
          fmt::format("{}: not a collsim scenario; it looks like {}", source(), what));
    }
  }

  Scenario scenario(const YAML::Node& root) const {
    unique_keys(root, "");
    foreign(root);
    check_keys(root, "", {"name", "backend", "platforms", "platform", "jobs", "job"});
    Scenario s;
    s.name = root["name"] ? scalar(root["name"], "name") : "scenario";
    backends(root, s);
    const char* pkey = root["platforms"] ? "platforms" : "platform";
    if (!root[pkey]) fail(root, "platforms", "missing: give at least one platform");
    const auto plats = nonempty_items(root[pkey], pkey, "platform");
    for (std::size_t i = 0; i < plats.size(); ++i) {
      const std::string path = fmt::format("platforms[{}]", i);
      s.platforms.push_back(platform(plats[i], path));
      // Rows are told apart by platform name: two platforms with one name would be ambiguous.
      for (std::size_t j = 0; j < i; ++j) {
        if (s.platforms[j].name != s.platforms[i].name) continue;
        const bool named = plats[i].IsMap() && plats[i]["name"];
        fail(named ? plats[i]["name"] : plats[i], path + ".name",
             fmt::format("\"{}\"{} is already the name of platforms[{}]; give each platform its "
                         "own name",
                         s.platforms[i].name, named ? "" : " (the topology, by default)", j));
      }
    }
    const char* jkey = root["jobs"] ? "jobs" : "job";
    if (!root[jkey]) fail(root, "jobs", "missing: give at least one job");
    const auto jobs = nonempty_items(root[jkey], jkey, "job");
    for (std::size_t i = 0; i < jobs.size(); ++i)
      s.jobs.push_back(job(jobs[i], fmt::format("jobs[{}]", i)));
    // Training reports have their own columns: one scenario, one kind of report.
    for (std::size_t i = 1; i < s.jobs.size(); ++i) {
      if (s.jobs[i].llm.has_value() != s.jobs[0].llm.has_value()) {
        fail(jobs[i], fmt::format("jobs[{}]", i),
             "a scenario's jobs are all llm jobs or none (their reports differ); put them in "
             "two scenarios");
      }
      if (s.jobs[i].training.has_value() != s.jobs[0].training.has_value()) {
        fail(jobs[i], fmt::format("jobs[{}]", i),
             "a scenario's jobs are all training jobs or none (their reports differ); put "
             "them in two scenarios");
      }
    }
    // Groups name dimensions and NPUs: check them against every platform before anything runs.
    for (const auto& group : groups_) {
      const YAML::Node& node = group.first;  // not a structured binding: clang-14 cannot capture
      const std::string& gpath = group.second;
      for (const Platform& p : s.platforms) {
        with_line(node, [&] {
          try {
            return collective::parse_groups(node.as<std::string>(), p.topology, gpath);
          } catch (const InputError& e) {
            throw InputError(fmt::format("{} (platform {})", e.what(), p.name));
          }
        });
      }
    }
    return s;
  }

 private:
  mutable std::vector<std::pair<YAML::Node, std::string>> groups_;  // every group: key, path
};

}  // namespace

Scenario parse_scenario(const std::string& text, const std::string& source) {
  const YAML::Node root = io::load_yaml(text, source);
  if (!root.IsMap()) throw InputError(fmt::format("{}: must be a YAML map of keys", source));
  return Reader(source).scenario(root);
}

Scenario load_scenario(const std::string& path) {
  return parse_scenario(core::read_input(path, "scenario file"), path);
}

}  // namespace collsim::config
