#include "config/astra_config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "core/input_file.hpp"
#include "io/yaml_load.hpp"
#include "topology/builders.hpp"

namespace collsim::config {

namespace {

std::string slurp(const std::string& path) { return core::read_input(path, "ASTRA-sim file"); }

// A YAML list of one value per dimension (a scalar counts as a list of one).
std::vector<YAML::Node> per_dim(const YAML::Node& root, const std::string& key,
                                const std::string& path) {
  const YAML::Node n = root[key];
  if (!n) throw core::InputError(fmt::format("{}: {}: missing", path, key));
  std::vector<YAML::Node> out;
  if (n.IsSequence()) {
    for (const auto& v : n) out.push_back(v);
  } else {
    out.push_back(n);
  }
  if (out.empty()) throw core::InputError(fmt::format("{}: {}: empty list", path, key));
  return out;
}

// The readers below check every key they read; this is the net under them: a type or range that
// yaml-cpp or nlohmann refuses (a map where a name belongs, an integer past 64 bits) becomes an
// InputError naming the file, never an internal error.
template <class F>
auto at_boundary(const std::string& path, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const YAML::Exception& e) {
    throw core::InputError(fmt::format("{}:{}: {}", path, e.mark.line + 1, e.msg));
  } catch (const nlohmann::json::exception& e) {
    throw core::InputError(fmt::format("{}: {}", path, e.what()));
  }
}

// A whole number in [lo, hi] (a count read as a double), else InputError naming `where`.
std::uint32_t whole(double v, double lo, double hi, const std::string& where) {
  if (!(v >= lo && v <= hi) || v != std::floor(v)) {
    throw core::InputError(fmt::format("{}: must be a whole number from {} to {}, got {}", where,
                                       lo, hi, v));
  }
  return static_cast<std::uint32_t>(v);
}

// GB/s (of `giga` bytes) as bytes/s: > 0 and finite.
core::Bandwidth gigabytes(double gbps, double giga, const std::string& where) {
  if (!(gbps > 0) || !std::isfinite(gbps * giga)) {
    throw core::InputError(fmt::format("{}: must be a finite number > 0 (GB/s), got {}", where,
                                       gbps));
  }
  return core::Bandwidth{gbps * giga};
}

double number(const YAML::Node& n, const std::string& where) {
  try {
    return n.as<double>();
  } catch (const YAML::Exception&) {
    throw core::InputError(fmt::format("{}: not a number", where));
  }
}

}  // namespace

namespace {

topology::DimKind dim_kind(const std::string& kind, const std::string& where) {
  if (kind == "Ring") return topology::DimKind::Ring;
  if (kind == "FullyConnected") return topology::DimKind::FullyConnected;
  if (kind == "Switch") return topology::DimKind::Switch;
  throw core::InputError(
      fmt::format("{}: topology \"{}\": not one of Ring, FullyConnected, Switch", where, kind));
}

// ASTRA-sim 1.0's analytical network JSON.
AstraNetwork json_network(const std::string& path, double giga) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(slurp(path));
  } catch (const nlohmann::json::exception& e) {  // parse_error, out_of_range 406 (1e999)
    throw core::InputError(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
  if (!j.is_object()) throw core::InputError(fmt::format("{}: must be a JSON object", path));
  const auto key = [&](const std::string& k) { return fmt::format("{}: {}", path, k); };
  static const char* known[] = {
      "topology-name", "topologies-per-dim", "dimension-type", "dimensions-count", "units-count",
      "links-count",   "link-latency",       "link-bandwidth", "nic-latency",      "router-latency",
      "hbm-latency",   "hbm-bandwidth",      "hbm-scale"};
  std::vector<std::string> unknown;
  for (const auto& item : j.items()) {
    const std::string& k = item.key();  // not a structured binding: clang-14 cannot capture it
    if (std::find_if(std::begin(known), std::end(known), [&](const char* x) { return k == x; }) ==
        std::end(known)) {
      unknown.push_back(k);
    }
  }
  if (!unknown.empty()) {  // every unknown key in one message
    throw core::InputError(fmt::format("{}: {}: not {} collsim reads", path,
                                       fmt::join(unknown, ", "),
                                       unknown.size() == 1 ? "an analytical-network key"
                                                           : "analytical-network keys"));
  }
  if (j.contains("topology-name") && !j["topology-name"].is_string()) {
    throw core::InputError(fmt::format("{}: must be a string (\"Hierarchical\"), got {}",
                                       key("topology-name"), j["topology-name"].dump()));
  }
  if (j.value("topology-name", std::string("Hierarchical")) != "Hierarchical") {
    throw core::InputError(fmt::format("{}: only \"Hierarchical\" is read", key("topology-name")));
  }
  const auto list = [&](const std::string& k) {
    if (!j.contains(k) || !j[k].is_array() || j[k].empty()) {
      throw core::InputError(fmt::format("{}: must be a non-empty list", key(k)));
    }
    return j[k];
  };
  const auto kinds = list("topologies-per-dim"), units = list("units-count"),
             links = list("links-count"), lat = list("link-latency"), bw = list("link-bandwidth");
  const std::size_t n = kinds.size();
  for (const auto* l : {&units, &links, &lat, &bw}) {
    if (l->size() != n) {
      throw core::InputError(fmt::format("{}: every per-dimension list needs {} entries", path, n));
    }
  }
  if (j.contains("dimensions-count") && j["dimensions-count"] != n) {
    throw core::InputError(fmt::format("{}: says {}, the lists have {}", key("dimensions-count"),
                                       j["dimensions-count"].dump(), n));
  }
  const auto optional = [&](const std::string& k) {
    std::vector<double> out(n, 0.0);
    if (!j.contains(k)) return out;
    const auto l = list(k);
    if (l.size() != n) throw core::InputError(fmt::format("{}: needs {} entries", key(k), n));
    for (std::size_t d = 0; d < n; ++d) {
      if (!l[d].is_number()) throw core::InputError(fmt::format("{}[{}]: not a number", key(k), d));
      out[d] = l[d].get<double>();
    }
    return out;
  };
  for (double h : optional("hbm-scale")) {
    if (h != 0) {
      throw core::InputError(fmt::format(
          "{}: the HBM model is not simulated; set it to 0 (hbm-latency and hbm-bandwidth are "
          "then unused)",
          key("hbm-scale")));
    }
  }
  const auto router = optional("router-latency"), nic = optional("nic-latency");
  const auto size = optional("units-count"), per = optional("links-count"),
             ns = optional("link-latency"), gbps = optional("link-bandwidth");
  AstraNetwork net;
  for (std::size_t d = 0; d < n; ++d) {
    const std::string where = fmt::format("{}: dimension {}", path, d);
    if (!kinds[d].is_string()) throw core::InputError(fmt::format("{}: not a string", where));
    topology::DimSpec s;
    s.kind = dim_kind(kinds[d].get<std::string>(), where);
    s.size = whole(size[d], 2, 1 << 20, where + ": units-count");
    s.links_per_npu =
        whole(std::floor(std::max(0.0, per[d])), 0, 1 << 20, where + ": links-count");
    if (s.kind == topology::DimKind::Ring && s.links_per_npu == 1) {
      s.kind = topology::DimKind::UniRing;  // one link per NPU: a one-way ring
    }
    s.bandwidth = gigabytes(gbps[d], giga, where + ": link-bandwidth");
    // A hop: its link and the router it enters. Whole ns, as ASTRA-sim's integer cycles.
    s.latency = core::time_from_user(std::trunc(ns[d] + router[d]), 1e3,
                                     where + ": link-latency + router-latency (ns)");
    net.dims.push_back(s);
    net.message_delay = std::max(net.message_delay,
                                 core::time_from_user(std::trunc(nic[d]), 1e3,
                                                      where + ": nic-latency (ns)"));
  }
  net.topology = topology::hierarchical(net.dims);
  return net;
}

}  // namespace

namespace {

AstraNetwork yaml_network(const std::string& path, bool si_gigabytes) {
  const YAML::Node root = io::load_yaml(slurp(path), path);
  if (!root.IsMap()) throw core::InputError(fmt::format("{}: must be a map of keys", path));
  std::vector<std::string> unknown;
  for (const auto& kv : root) {
    const std::string k = kv.first.as<std::string>();
    if (k != "topology" && k != "npus_count" && k != "bandwidth" && k != "latency") {
      unknown.push_back(k);
    }
  }
  if (!unknown.empty()) {  // every unknown key in one message
    throw core::InputError(fmt::format(
        "{}: {}: not {} collsim reads (topology, npus_count, bandwidth, latency)", path,
        fmt::join(unknown, ", "),
        unknown.size() == 1 ? "an analytical-network key" : "analytical-network keys"));
  }
  const auto kinds = per_dim(root, "topology", path), sizes = per_dim(root, "npus_count", path),
             bws = per_dim(root, "bandwidth", path), lats = per_dim(root, "latency", path);
  if (sizes.size() != kinds.size() || bws.size() != kinds.size() || lats.size() != kinds.size()) {
    throw core::InputError(fmt::format(
        "{}: topology, npus_count, bandwidth and latency must list one value per dimension (got "
        "{}, {}, {}, {})",
        path, kinds.size(), sizes.size(), bws.size(), lats.size()));
  }
  const double giga = si_gigabytes ? 1e9 : 1073741824.0;
  AstraNetwork net;
  for (std::size_t d = 0; d < kinds.size(); ++d) {
    const std::string where = fmt::format("{}: dimension {}", path, d);
    if (!kinds[d].IsScalar()) {
      throw core::InputError(fmt::format(
          "{}: topology: must be a name (Ring, FullyConnected, Switch) per dimension", where));
    }
    const std::string kind = kinds[d].as<std::string>();
    topology::DimSpec s;
    s.kind = dim_kind(kind, where);
    const double n = number(sizes[d], where + ": npus_count");
    s.size = whole(n, 2, 1 << 20, where + ": npus_count");
    s.bandwidth = gigabytes(number(bws[d], where + ": bandwidth"), giga, where + ": bandwidth");
    const double lat = number(lats[d], where + ": latency");
    if (!(lat >= 0)) throw core::InputError(fmt::format("{}: latency must be >= 0 ns", where));
    s.latency = core::time_from_user(std::trunc(lat), 1e3, where + ": latency (ns)");  // whole ns
    net.dims.push_back(s);
  }
  net.topology = topology::hierarchical(net.dims);
  return net;
}

}  // namespace

AstraNetwork read_astra_network(const std::string& path, bool si_gigabytes) {
  return at_boundary(path, [&] {
    if (path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0) {
      return json_network(path, si_gigabytes ? 1e9 : 1073741824.0);
    }
    return yaml_network(path, si_gigabytes);
  });
}

namespace {

// ASTRA-sim's per-dimension implementation names -> collsim's.
std::string algorithm_name(const std::string& astra, const std::string& where) {
  if (astra == "ring") return "ring";
  if (astra == "direct") return "direct";
  if (astra == "halvingDoubling") return "halving-doubling";
  if (astra == "doubleBinaryTree") return "double-binary-tree";
  throw core::InputError(fmt::format(
      "{}: \"{}\" is not an implementation collsim runs (ring, direct, halvingDoubling, "
      "doubleBinaryTree)",
      where, astra));
}

}  // namespace

namespace {

// ASTRA-sim 1.0's text system file ("key: value" lines, implementations joined by '_') as the
// JSON object of 2.x.
nlohmann::json text_system(const std::string& text, const std::string& path) {
  nlohmann::json j = nlohmann::json::object();
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const auto trim = [](std::string x) {
      const auto b = x.find_first_not_of(" \t\r"), e = x.find_last_not_of(" \t\r");
      return b == std::string::npos ? std::string() : x.substr(b, e - b + 1);
    };
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) {
      throw core::InputError(fmt::format("{}:{}: expected \"key: value\"", path, n));
    }
    const std::string k = trim(line.substr(0, colon)), v = trim(line.substr(colon + 1));
    if (k.size() > 15 && k.compare(k.size() - 15, 15, "-implementation") == 0) {
      nlohmann::json list = nlohmann::json::array();
      std::size_t start = 0;
      while (start <= v.size()) {
        const auto u = std::min(v.find('_', start), v.size());
        list.push_back(v.substr(start, u - start));
        start = u + 1;
      }
      j[k] = list;
    } else if (!v.empty() && v.find_first_not_of("0123456789") == std::string::npos) {
      std::int64_t x = 0;
      if (std::from_chars(v.data(), v.data() + v.size(), x).ec != std::errc()) {
        throw core::InputError(fmt::format("{}:{}: {}: {} is too large (at most {})", path, n, k,
                                           v, INT64_MAX));
      }
      j[k] = x;
    } else {
      j[k] = v;
    }
  }
  return j;
}

}  // namespace

std::map<collective::Collective, collective::AlgorithmChoice> AstraSystem::algorithms_for(
    const std::vector<collective::Collective>& used) const {
  std::map<collective::Collective, collective::AlgorithmChoice> out;
  for (collective::Collective c : used) {
    if (const auto u = unavailable.find(c); u != unavailable.end()) {
      throw core::InputError(u->second);
    }
    const auto it = algorithms.find(c);
    if (it == algorithms.end()) {
      throw core::InputError(fmt::format("{}: no {}-implementation for the workload's {}", file,
                                         collective::to_string(c), collective::to_string(c)));
    }
    out.emplace(c, it->second);
  }
  if (out.empty() && !algorithms.empty()) out.emplace(*algorithms.begin());
  if (out.empty())
    throw core::InputError(fmt::format("{}: no implementation collsim can run", file));
  return out;
}

namespace {

AstraSystem system_file(const std::string& path, std::size_t dims, bool compat, int split) {
  nlohmann::json j;
  const std::string content = slurp(path);
  if (path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0) {
    try {
      j = nlohmann::json::parse(content);
    } catch (const nlohmann::json::exception& e) {  // parse_error, out_of_range 406
      throw core::InputError(fmt::format("{}: not valid JSON: {}", path, e.what()));
    }
  } else if (content.find_first_not_of(" \t\r\n") != std::string::npos &&
             content[content.find_first_not_of(" \t\r\n")] == '<') {
    throw core::InputError(fmt::format(
        "{}: an XML file, not a system file (ASTRA-sim's custom-collective definitions are not "
        "read; run the custom collective's Chakra trace as the workload)",
        path));
  } else {
    j = text_system(content, path);  // ASTRA-sim 1.0's format
  }
  if (!j.is_object()) throw core::InputError(fmt::format("{}: must be a JSON object", path));
  AstraSystem s;
  s.file = path;
  const auto key = [&](const std::string& k) { return fmt::format("{}: {}", path, k); };
  const auto integer = [&](const std::string& k, std::int64_t min) {
    const auto& v = j.at(k);
    if (!v.is_number_integer() || v.get<std::int64_t>() < min) {
      throw core::InputError(fmt::format("{}: must be a whole number >= {}", key(k), min));
    }
    return v.get<std::int64_t>();
  };
  const auto text = [&](const std::string& k) {
    if (!j.at(k).is_string()) throw core::InputError(fmt::format("{}: must be a string", key(k)));
    return j.at(k).get<std::string>();
  };
  const auto positive = [&](const std::string& k) {
    if (!j.at(k).is_number() || !(j.at(k).get<double>() > 0)) {
      throw core::InputError(fmt::format("{}: must be a number > 0", key(k)));
    }
    return j.at(k).get<double>();
  };
  std::string schedule = "baseline", intra = "fifo";
  std::string optimization = "localBWAware", inter = "ascending";
  double local_mem = 0;  // local-mem-bw, GB/s
  // Keys or values collsim does not simulate: all named in one message at the end.
  std::vector<std::string> refused;
  const auto note = [&](const std::string& k, const std::string& what) {
    s.notes.push_back(fmt::format("{}: {}", k, what));
  };
  std::map<collective::Collective, std::vector<std::string>> impl;  // collsim names per dimension
  std::int64_t active = 1;
  bool roofline = false;
  std::vector<std::string> shared_bus_keys;
  for (const auto& [k, v] : j.items()) {
    if (k == "scheduling-policy") {
      const std::string p = text(k);
      if (p == "EXPLICIT") {
        refused.push_back(fmt::format(
            "{}: EXPLICIT is not simulated (each collective's comm_priority orders the queues; "
            "collsim orders waiting collectives FIFO or LIFO only)",
            k));
        continue;
      }
      if (p != "LIFO" && p != "FIFO") {
        throw core::InputError(fmt::format("{}: \"{}\" is not LIFO or FIFO", key(k), p));
      }
      s.order = p == "LIFO" ? jobs::IssueOrder::Lifo : jobs::IssueOrder::Fifo;
      s.used.push_back(fmt::format("{} {} -> waiting collectives run {}", k, p, p));
    } else if (k == "endpoint-delay") {
      s.endpoint_delay =
          core::time_from_user(static_cast<double>(integer(k, 0)), 1e3, key(k) + " (ns)");
      s.used.push_back(fmt::format("{} {} -> {} ns before each message (1 GHz cycles)", k,
                                   integer(k, 0), integer(k, 0)));
    } else if (k == "active-chunks-per-dimension") {
      active = integer(k, 1);
      s.used.push_back(fmt::format("{} {} -> active_chunks", k, active));
    } else if (k == "preferred-dataset-splits") {
      const std::int64_t splits = integer(k, 1);
      if (splits > UINT32_MAX) {
        throw core::InputError(
            fmt::format("{}: {} is too many chunks (at most {})", key(k), splits, UINT32_MAX));
      }
      s.chunks = static_cast<std::uint32_t>(splits);
      s.used.push_back(fmt::format("{} {} -> chunks per collective", k, s.chunks));
    } else if (k == "all-reduce-implementation" || k == "reduce-scatter-implementation" ||
               k == "all-gather-implementation" || k == "all-to-all-implementation") {
      const collective::Collective c =
          k == "all-reduce-implementation"       ? collective::Collective::AllReduce
          : k == "reduce-scatter-implementation" ? collective::Collective::ReduceScatter
          : k == "all-gather-implementation"     ? collective::Collective::AllGather
                                                 : collective::Collective::AllToAll;
      if (v.is_array() && v.size() == 1 && v[0].is_string() && dims != 1 &&
          v[0].get<std::string>().rfind("one", 0) == 0) {
        // Refused only if the workload runs this collective (AstraSystem::algorithms_for).
        s.unavailable[c] = fmt::format(
            "{}: \"{}\" spans every NPU; collsim runs it on one-dimension platforms only", key(k),
            v[0].get<std::string>());
        s.used.push_back(
            fmt::format("{} {} -> not run on {} dimensions", k, v[0].get<std::string>(), dims));
        continue;
      }
      if (!v.is_array() || v.size() != dims) {
        throw core::InputError(
            fmt::format("{}: must list one implementation per dimension ({})", key(k), dims));
      }
      std::vector<std::string> names;
      for (std::size_t d = 0; d < dims; ++d) {
        if (!v[d].is_string())
          throw core::InputError(fmt::format("{}[{}]: not a string", key(k), d));
        std::string a = v[d].get<std::string>();
        // ASTRA-sim 1.0's one* implementations: one algorithm over all NPUs (one dimension only).
        if (a.rfind("one", 0) == 0 && a.size() > 3) {
          if (dims != 1) {
            throw core::InputError(fmt::format(
                "{}[{}]: \"{}\" spans every NPU; collsim runs it on one-dimension platforms only",
                key(k), d, a));
          }
          a = std::string(1, static_cast<char>(std::tolower(a[3]))) + a.substr(4);
        }
        names.push_back(algorithm_name(a, fmt::format("{}[{}]", key(k), d)));
      }
      if (split >= 0 && static_cast<std::size_t>(split) < names.size()) {
        names.insert(names.begin() + split, names[static_cast<std::size_t>(split)]);
      }
      impl[c] = names;
      s.used.push_back(fmt::format("{} -> {} per dimension", k, fmt::join(names, ", ")));
    } else if (k == "collective-optimization") {
      const std::string o = text(k);
      if (o == "localBWAware") {
        optimization = o;
        s.used.push_back(fmt::format(
            "{} {} -> {}", k, o,
            compat ? "reduce-scatter over the dimensions but the last, an all-reduce on the "
                     "last, all-gather back (ASTRA-sim's walk)"
                   : "reduce-scatter then all-gather across dimensions"));
      } else if (o == "baseline") {
        optimization = o;
        s.used.push_back(fmt::format("{} {} -> an all-reduce per dimension", k, o));
      } else {
        throw core::InputError(
            fmt::format("{}: \"{}\" is not localBWAware or baseline", key(k), o));
      }
    } else if (k == "inter-dimension-scheduling") {
      const std::string o = text(k);
      if (o == "offlineGreedy" || o == "themis") {
        inter = "themis";
      } else if (o == "roundRobin" || o == "offlineGreedyFlex" || o == "onlineGreedy") {
        refused.push_back(fmt::format(
            "{}: {} is not simulated (collsim runs ascending / baseline and themis / "
            "offlineGreedy)",
            k, o));
        continue;
      } else if (o != "ascending" && o != "baseline") {
        throw core::InputError(fmt::format(
            "{}: \"{}\" is not one of ascending, baseline, offlineGreedy, themis", key(k), o));
      }
      s.used.push_back(fmt::format("{} {} -> {}", k, o,
                                   inter == "themis" ? "schedule=themis" : "dimensions in order"));
    } else if (k == "intra-dimension-scheduling") {
      const std::string o = text(k);
      if (o == "SCF" || o == "smallestFirst") {
        intra = compat ? "scf-astra" : "scf";
      } else if (o == "RG" || o == "lessRemainingPhaseFirst") {
        refused.push_back(fmt::format(
            "{}: {} is not simulated (collsim orders a dimension's queue FIFO or SCF)", k, o));
        continue;
      } else if (o != "FIFO") {
        throw core::InputError(
            fmt::format("{}: \"{}\" is not one of FIFO, SCF, smallestFirst", key(k), o));
      }
      s.used.push_back(fmt::format("{} {} -> intra={}", k, o, intra));
    } else if (k == "local-mem-bw") {
      local_mem = positive(k);
      s.compute.memory_bytes_per_s = local_mem * 1e9;
      s.used.push_back(fmt::format(
          "{} {} -> roofline memory bandwidth (GB/s){}", k, local_mem,
          compat ? "; each reduction step of a chunk waits 3 x bytes / local-mem-bw" : ""));
    } else if (k == "peak-perf") {
      s.compute.peak_flops = positive(k) * 1e12;
      s.used.push_back(fmt::format("{} {} -> roofline peak (TFLOP/s)", k, positive(k)));
    } else if (k == "roofline-enabled") {
      roofline = integer(k, 0) != 0;
      s.used.push_back(fmt::format("{} {} -> compute nodes {}", k, roofline ? 1 : 0,
                                   roofline ? "from num_ops and tensor_size" : "take duration"));
    } else if (k == "boost-mode") {
      if (integer(k, 0) != 0) {
        refused.push_back(fmt::format(
            "{}: 1 (boost mode) is not simulated; use 0", k));
        continue;
      }
      s.used.push_back(fmt::format("{} 0 -> off", k));
    } else if (k == "track-local-mem" || k == "trace-enabled") {
      integer(k, 0);
      note(k, "accepted, no effect: output-only (ASTRA-sim's logs and traces)");
    } else if (k == "local-mem-trace-filename") {
      text(k);
      note(k, "accepted, no effect: output-only (ASTRA-sim's local-memory trace file)");
    } else if (k == "replay-only") {
      if (integer(k, 0) != 0) {
        refused.push_back(
            fmt::format("{}: 1 (ASTRA-sim's replay of recorded durations) is not simulated", k));
        continue;
      }
      note(k, "0 accepted, no effect: off");
    } else if (k == "model-shared-bus") {
      if (integer(k, 0) != 0) {
        refused.push_back(fmt::format(
            "{}: 1 (ASTRA-sim's LogGP NPU-memory bus) is not simulated here; collsim's baseline "
            "endpoint models one (docs/ace.md)",
            k));
        continue;
      }
      note(k, "0 accepted: off, as ASTRA-sim's default (L, o, g and G then have no effect)");
    } else if (k == "L" || k == "o" || k == "g" || k == "G") {
      if (!v.is_number() || v.get<double>() < 0) {
        throw core::InputError(fmt::format("{}: must be a number >= 0", key(k)));
      }
      shared_bus_keys.push_back(k);
    } else if (k.size() > 22 && k.compare(k.size() - 22, 22, "-implementation-custom") == 0) {
      refused.push_back(fmt::format(
          "{}: ASTRA-sim's custom collectives (a Chakra graph per collective) are not simulated "
          "as implementations; run the custom trace itself as the workload (it is replayed)",
          k));
    } else if (k == "local-reduction-delay") {
      integer(k, 0);
      note(k, "accepted, no effect: ASTRA-sim 2.x reads it but none of its native collectives "
              "uses it");
    } else {
      // The keys above, for a typo's "did you mean".
      static const std::vector<std::string_view> kKeys = {
          "scheduling-policy", "endpoint-delay", "active-chunks-per-dimension",
          "preferred-dataset-splits", "all-reduce-implementation", "all-gather-implementation",
          "reduce-scatter-implementation", "all-to-all-implementation",
          "collective-optimization", "intra-dimension-scheduling", "inter-dimension-scheduling",
          "local-mem-bw", "peak-perf", "roofline-enabled", "boost-mode"};
      const std::string hint = core::closest(k, kKeys);
      refused.push_back(hint.empty()
                            ? fmt::format("{}: not a system key collsim simulates", k)
                            : fmt::format("{}: not a system key; did you mean {}?", k, hint));
    }
  }
  for (const std::string& k : shared_bus_keys) {
    if (!j.contains("model-shared-bus") || j["model-shared-bus"] == 0) {
      note(k, "accepted, no effect: ASTRA-sim's LogGP bus parameter, unused while "
              "model-shared-bus is 0");
    }
  }
  if (!refused.empty()) {
    // Every refused key in one message (docs/astra.md lists what is read).
    throw core::InputError(fmt::format("{}: {}", path, fmt::join(refused, "; ")));
  }
  // The inter-dimension walk of an all-reduce.
  if (optimization == "baseline") {
    if (inter == "themis" && dims > 1) {
      throw core::InputError(fmt::format(
          "{}: collective-optimization baseline with inter-dimension-scheduling {}: ASTRA-sim "
          "runs an all-reduce per dimension in Themis's greedy order; collsim's "
          "per-dim-all-reduce takes the dimensions in ascending order only (use localBWAware, or "
          "ascending)",
          path, j.value("inter-dimension-scheduling", std::string("themis"))));
    }
    schedule = "per-dim-all-reduce";
  } else if (inter == "themis") {
    schedule = "themis";
  } else if (compat) {
    schedule = "astra-localbw";
  }
  if (compat && local_mem > 0) {
    if (local_mem != std::floor(local_mem) || local_mem > UINT32_MAX) {
      throw core::InputError(fmt::format(
          "{}: the compatibility mode's local-memory model takes whole GB/s, got {} "
          "(--no-astra-compat: the roofline only)",
          key("local-mem-bw"), local_mem));
    }
    s.local_mem_gbps = static_cast<std::uint32_t>(local_mem);
  }
  s.compute.roofline = roofline;
  if (roofline && (s.compute.peak_flops <= 0)) {
    throw core::InputError(fmt::format("{}: roofline-enabled needs peak-perf", path));
  }
  if (impl.empty()) {
    throw core::InputError(fmt::format("{}: no *-implementation key", path));
  }
  if (dims == 1 && !compat && (schedule == "themis" || intra != "fifo" || active != 1)) {
    s.used.push_back(
        "(one dimension: the scheduling keys have nothing to choose; the compatibility mode runs "
        "the chunks through the dimension's queue)");
  }
  if (split >= 0) ++dims;  // the lists now have the split dimension twice
  for (const auto& [c, names] : impl) {
    std::string choice;
    if (dims == 1 && compat && names[0] != "double-binary-tree") {
      // ASTRA-sim's one-dimension collective: its chunks go through the dimension's queue,
      // active-chunks-per-dimension at a time (one all-reduce stage per chunk).
      choice = fmt::format("hierarchical:flat=run:schedule={}:intra={}:active_chunks={}:dim0={}",
                           schedule == "themis" ? "baseline" : "per-dim-all-reduce",
                           intra, active, names[0]);
      s.flat.emplace(c, collective::parse_algorithm(names[0], key("implementation")));
    } else if (dims == 1) {
      choice = names[0];
    } else {
      choice = fmt::format("hierarchical:schedule={}:intra={}:active_chunks={}", schedule, intra,
                           active);
      for (std::size_t d = 0; d < dims && d < 4; ++d) {  // past dim3: Table 1's default
        if (names[d] == "double-binary-tree" && !s.unavailable.count(c)) {
          s.unavailable[c] = fmt::format(
              "{}: {}-implementation[{}]: doubleBinaryTree runs on one-dimension platforms only "
              "in collsim",
              path, collective::to_string(c), d);
        }
        choice += fmt::format(":dim{}={}", d, names[d]);
      }
    }
    if (!s.unavailable.count(c)) {
      s.algorithms.emplace(c, collective::parse_algorithm(choice, key("implementation")));
    }
  }
  return s;
}

}  // namespace

AstraSystem read_astra_system(const std::string& path, std::size_t dims, bool compat,
                              int split) {
  return at_boundary(path, [&] { return system_file(path, dims, compat, split); });
}

}  // namespace collsim::config

namespace collsim::config {

int split_for_group(AstraNetwork& net, std::uint32_t group, const std::string& where) {
  const std::uint32_t n = net.topology.num_npus();
  if (group <= 1 || group >= n) return -1;
  std::uint32_t inside = 1;  // NPUs of the dimensions inside the one being looked at
  for (std::size_t d = 0; d < net.dims.size(); ++d) {
    const std::uint32_t size = net.dims[d].size;
    if (inside * size == group) return -1;  // a product of the innermost dimensions
    if (inside * size > group) {
      const std::uint32_t first = group / inside;
      if (group % inside != 0 || size % first != 0) {
        throw core::InputError(fmt::format(
            "{}: a model-parallel group of {} NPUs ends inside dimension {} ({} NPUs, {} inside "
            "it), which cannot be split into {} x {} (ASTRA-sim's Sys::break_dimension)",
            where, group, d, size, inside, group / std::max(inside, 1u),
            size / std::max(first, 1u)));
      }
      const topology::DimKind kind = net.dims[d].kind;
      if (kind != topology::DimKind::Switch && kind != topology::DimKind::FullyConnected) {
        throw core::InputError(fmt::format(
            "{}: a model-parallel group of {} NPUs ends inside dimension {} ({}, {} NPUs): "
            "splitting a ring into {} x {} (ASTRA-sim's Sys::break_dimension) gives sub-rings "
            "that are not rings of the network; collsim splits switch and fully connected "
            "dimensions only",
            where, group, d, topology::to_string(kind), size, first, size / first));
      }
      topology::DimSpec a = net.dims[d], b = net.dims[d];
      a.size = first;
      b.size = size / first;
      net.dims[d] = a;
      net.dims.insert(net.dims.begin() + static_cast<std::ptrdiff_t>(d) + 1, b);
      net.topology = topology::hierarchical(net.dims);
      return static_cast<int>(d);
    }
    inside *= size;
  }
  return -1;
}

}  // namespace collsim::config
