#include "config/astra_config.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.hpp"
#include "topology/builders.hpp"

namespace collsim::config {

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw core::InputError(fmt::format("{}: cannot open", path));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

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

double number(const YAML::Node& n, const std::string& where) {
  try {
    return n.as<double>();
  } catch (const YAML::Exception&) {
    throw core::InputError(fmt::format("{}: not a number", where));
  }
}

}  // namespace

AstraNetwork read_astra_network(const std::string& path, bool si_gigabytes) {
  YAML::Node root;
  try {
    root = YAML::Load(slurp(path));
  } catch (const YAML::Exception& e) {
    throw core::InputError(fmt::format("{}:{}: not valid YAML: {}", path, e.mark.line + 1, e.msg));
  }
  if (!root.IsMap()) throw core::InputError(fmt::format("{}: must be a map of keys", path));
  for (const auto& kv : root) {
    const std::string k = kv.first.as<std::string>();
    if (k != "topology" && k != "npus_count" && k != "bandwidth" && k != "latency") {
      throw core::InputError(fmt::format(
          "{}: {}: not an analytical-network key collsim reads (topology, npus_count, bandwidth, "
          "latency)",
          path, k));
    }
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
    const std::string kind = kinds[d].as<std::string>();
    topology::DimSpec s;
    if (kind == "Ring") {
      s.kind = topology::DimKind::Ring;
    } else if (kind == "FullyConnected") {
      s.kind = topology::DimKind::FullyConnected;
    } else if (kind == "Switch") {
      s.kind = topology::DimKind::Switch;
    } else {
      throw core::InputError(
          fmt::format("{}: topology \"{}\": not one of Ring, FullyConnected, Switch", where, kind));
    }
    const double n = number(sizes[d], where + ": npus_count");
    if (n < 2 || n != std::floor(n) || n > 1 << 20) {
      throw core::InputError(
          fmt::format("{}: npus_count {} must be a whole number >= 2", where, n));
    }
    s.size = static_cast<std::uint32_t>(n);
    const double bw = number(bws[d], where + ": bandwidth");
    if (!(bw > 0)) throw core::InputError(fmt::format("{}: bandwidth must be > 0 GB/s", where));
    s.bandwidth = core::Bandwidth{bw * giga};
    const double lat = number(lats[d], where + ": latency");
    if (!(lat >= 0)) throw core::InputError(fmt::format("{}: latency must be >= 0 ns", where));
    s.latency = core::Time::from_ns(lat);
    net.dims.push_back(s);
  }
  net.topology = topology::hierarchical(net.dims);
  return net;
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

AstraSystem read_astra_system(const std::string& path, std::size_t dims) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(slurp(path));
  } catch (const nlohmann::json::parse_error& e) {
    throw core::InputError(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
  if (!j.is_object()) throw core::InputError(fmt::format("{}: must be a JSON object", path));
  AstraSystem s;
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
  std::vector<std::string> impl;  // collsim names per dimension, from all-reduce-implementation
  std::int64_t active = 1;
  bool roofline = false;
  for (const auto& [k, v] : j.items()) {
    if (k == "scheduling-policy") {
      const std::string p = text(k);
      if (p != "LIFO" && p != "FIFO") {
        throw core::InputError(fmt::format("{}: \"{}\" is not LIFO or FIFO", key(k), p));
      }
      s.order = p == "LIFO" ? workload::IssueOrder::Lifo : workload::IssueOrder::Fifo;
      s.used.push_back(fmt::format("{} {} -> waiting collectives run {}", k, p, p));
    } else if (k == "endpoint-delay") {
      s.endpoint_delay = core::Time::from_ns(static_cast<double>(integer(k, 0)));
      s.used.push_back(fmt::format("{} {} -> {} ns before each message (1 GHz cycles)", k,
                                   integer(k, 0), integer(k, 0)));
    } else if (k == "active-chunks-per-dimension") {
      active = integer(k, 1);
      s.used.push_back(fmt::format("{} {} -> active_chunks", k, active));
    } else if (k == "preferred-dataset-splits") {
      s.chunks = static_cast<std::uint32_t>(integer(k, 1));
      s.used.push_back(fmt::format("{} {} -> chunks per collective", k, s.chunks));
    } else if (k == "all-reduce-implementation" || k == "reduce-scatter-implementation" ||
               k == "all-gather-implementation" || k == "all-to-all-implementation") {
      if (!v.is_array() || v.size() != dims) {
        throw core::InputError(
            fmt::format("{}: must list one implementation per dimension ({})", key(k), dims));
      }
      std::vector<std::string> names;
      for (std::size_t d = 0; d < dims; ++d) {
        if (!v[d].is_string())
          throw core::InputError(fmt::format("{}[{}]: not a string", key(k), d));
        names.push_back(algorithm_name(v[d].get<std::string>(), fmt::format("{}[{}]", key(k), d)));
      }
      if (k == "all-to-all-implementation") {
        for (std::size_t d = 0; d < dims; ++d) {
          if (names[d] != "ring" && names[d] != "direct") {
            throw core::InputError(
                fmt::format("{}[{}]: all-to-all runs ring or direct", key(k), d));
          }
        }
        s.used.push_back(fmt::format("{} -> ring / direct all-to-all", k));
        continue;
      }
      if (impl.empty()) {
        impl = names;
      } else if (impl != names) {
        throw core::InputError(fmt::format(
            "{}: differs from the other implementations; collsim takes one algorithm per "
            "dimension for every collective",
            key(k)));
      }
    } else if (k == "collective-optimization") {
      const std::string o = text(k);
      if (o == "localBWAware") {
        s.used.push_back(
            fmt::format("{} {} -> reduce-scatter then all-gather across dimensions", k, o));
      } else if (o == "baseline") {
        schedule = "per-dim-all-reduce";
        s.used.push_back(fmt::format("{} {} -> an all-reduce per dimension", k, o));
      } else {
        throw core::InputError(
            fmt::format("{}: \"{}\" is not localBWAware or baseline", key(k), o));
      }
    } else if (k == "inter-dimension-scheduling") {
      const std::string o = text(k);
      if (o == "offlineGreedy" || o == "themis") {
        schedule = "themis";
      } else if (o != "ascending" && o != "baseline") {
        throw core::InputError(fmt::format(
            "{}: \"{}\" is not one of ascending, baseline, offlineGreedy, themis", key(k), o));
      }
      s.used.push_back(fmt::format("{} {} -> schedule={}", k, o, schedule));
    } else if (k == "intra-dimension-scheduling") {
      const std::string o = text(k);
      if (o == "SCF" || o == "smallestFirst") {
        intra = "scf";
      } else if (o != "FIFO") {
        throw core::InputError(
            fmt::format("{}: \"{}\" is not one of FIFO, SCF, smallestFirst", key(k), o));
      }
      s.used.push_back(fmt::format("{} {} -> intra={}", k, o, intra));
    } else if (k == "local-mem-bw") {
      s.compute.memory_bytes_per_s = positive(k) * 1e9;
      s.used.push_back(fmt::format("{} {} -> roofline memory bandwidth (GB/s)", k, positive(k)));
    } else if (k == "peak-perf") {
      s.compute.peak_flops = positive(k) * 1e12;
      s.used.push_back(fmt::format("{} {} -> roofline peak (TFLOP/s)", k, positive(k)));
    } else if (k == "roofline-enabled") {
      roofline = integer(k, 0) != 0;
      s.used.push_back(fmt::format("{} {} -> compute nodes {}", k, roofline ? 1 : 0,
                                   roofline ? "from num_ops and tensor_size" : "take duration"));
    } else if (k == "boost-mode") {
      if (integer(k, 0) != 0) {
        throw core::InputError(fmt::format("{}: 1 (boost mode) is not simulated; use 0", key(k)));
      }
      s.used.push_back(fmt::format("{} 0 -> off", k));
    } else {
      throw core::InputError(fmt::format(
          "{}: not a system key collsim simulates (docs/astra.md lists them); remove it or ask "
          "for it",
          key(k)));
    }
  }
  s.compute.roofline = roofline;
  if (roofline && (s.compute.peak_flops <= 0)) {
    throw core::InputError(fmt::format("{}: roofline-enabled needs peak-perf", path));
  }
  if (impl.empty()) {
    throw core::InputError(fmt::format("{}: all-reduce-implementation: missing", path));
  }
  std::string choice;
  if (dims == 1) {
    if (schedule == "themis" || intra != "fifo" || active != 1) {
      // One dimension: nothing to schedule across dimensions; the keys still say what they say.
      s.used.push_back("(one dimension: the scheduling keys have nothing to choose)");
    }
    choice = impl[0];
  } else {
    choice =
        fmt::format("hierarchical:schedule={}:intra={}:active_chunks={}", schedule, intra, active);
    for (std::size_t d = 0; d < dims; ++d) {
      if (impl[d] == "double-binary-tree") {
        throw core::InputError(fmt::format(
            "{}: all-reduce-implementation[{}]: doubleBinaryTree runs on one-dimension platforms "
            "only in collsim",
            path, d));
      }
      if (d >= 4) break;  // dimensions past dim3 take Table 1's default
      choice += fmt::format(":dim{}={}", d, impl[d]);
    }
  }
  s.algorithm = collective::parse_algorithm(choice, key("all-reduce-implementation"));
  return s;
}

}  // namespace collsim::config
