#include "workload/formats/chakra.hpp"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>

#include <climits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "core/error.hpp"
#include "core/input_file.hpp"
#include "workload/formats/chakra_et.pb.h"

namespace collsim::workload::chakra {

namespace pb = collsim::chakra::et;

const char* to_string(NodeKind k) {
  switch (k) {
    case NodeKind::Invalid:
      return "INVALID_NODE";
    case NodeKind::Metadata:
      return "METADATA_NODE";
    case NodeKind::MemLoad:
      return "MEM_LOAD_NODE";
    case NodeKind::MemStore:
      return "MEM_STORE_NODE";
    case NodeKind::Compute:
      return "COMP_NODE";
    case NodeKind::Send:
      return "COMM_SEND_NODE";
    case NodeKind::Recv:
      return "COMM_RECV_NODE";
    case NodeKind::Collective:
      return "COMM_COLL_NODE";
  }
  return "?";
}

namespace {

// An integer attribute of any integer type (traces differ in which they use).
std::int64_t integer(const pb::AttributeProto& a) {
  switch (a.value_case()) {
    case pb::AttributeProto::kInt32Val:
      return a.int32_val();
    case pb::AttributeProto::kInt64Val:
      return a.int64_val();
    case pb::AttributeProto::kUint32Val:
      return a.uint32_val();
    case pb::AttributeProto::kUint64Val:
      return static_cast<std::int64_t>(a.uint64_val());
    case pb::AttributeProto::kBoolVal:
      return a.bool_val() ? 1 : 0;
    default:
      throw core::InputError(fmt::format("attribute {} must be an integer", a.name()));
  }
}

// Throws core::InputError with the reason only: read_et names the node (its message built only
// then, not once per node).
Node convert(const pb::Node& n) {
  Node out;
  out.id = n.id();
  out.name = n.name();
  const int t = n.type();
  if (t < 0 || t > 7) {
    throw core::InputError(fmt::format("unknown node type {}", t));
  }
  out.kind = static_cast<NodeKind>(t);
  out.data_deps.assign(n.data_deps().begin(), n.data_deps().end());
  out.ctrl_deps.assign(n.ctrl_deps().begin(), n.ctrl_deps().end());
  out.duration_us = n.duration_micros();
  // Read once here for compute_time() and the replay: a duration past the horizon is bad input.
  if (out.duration_us >= static_cast<std::uint64_t>(core::kHorizonPs) / 1'000'000) {
    throw core::InputError(fmt::format(
        "duration_micros {} is beyond the simulation horizon (2^62 ps, about 53 days)",
        out.duration_us));
  }
  for (const pb::AttributeProto& a : n.attr()) {
    const std::string& k = a.name();
    if (k == "is_cpu_op") {
      out.is_cpu_op = integer(a) != 0;
    } else if (k == "num_ops") {
      out.num_ops = integer(a);
    } else if (k == "tensor_size") {
      out.tensor_size = static_cast<std::uint64_t>(integer(a));
    } else if (k == "comm_type") {
      out.comm_type = integer(a);
    } else if (k == "comm_size") {
      const std::int64_t s = integer(a);
      if (s < 0) throw core::InputError(fmt::format("comm_size {} < 0", s));
      out.comm_size = static_cast<std::uint64_t>(s);
    } else if (k == "comm_src") {
      out.comm_src = static_cast<std::int32_t>(integer(a));
    } else if (k == "comm_dst") {
      out.comm_dst = static_cast<std::int32_t>(integer(a));
    } else if (k == "comm_tag") {
      out.comm_tag = static_cast<std::int32_t>(integer(a));
    } else if (k == "comm_priority") {
      out.comm_priority = static_cast<std::int32_t>(integer(a));
    } else if (k == "pg_name") {
      if (a.value_case() != pb::AttributeProto::kStringVal) {
        throw core::InputError("attribute pg_name must be a string");
      }
      out.pg_name = a.string_val();
    } else if (k == "collsim.duration_ps") {
      const std::int64_t ps = integer(a);
      if (ps < 0 || ps >= core::kHorizonPs) {
        throw core::InputError(fmt::format("collsim.duration_ps {} is out of range", ps));
      }
      out.duration_ps = static_cast<std::uint64_t>(ps);
    } else if (k == "collsim.chunks") {
      const std::int64_t c = integer(a);
      if (c < 1 || c > 0x7fffffff) throw core::InputError(fmt::format("collsim.chunks {}", c));
      out.chunks = static_cast<std::uint32_t>(c);
    } else if (k == "collsim.delay") {
      out.delay = integer(a) != 0;
    } else if (k == "collsim.stream" || k == "collsim.category") {
      if (a.value_case() != pb::AttributeProto::kStringVal) {
        throw core::InputError(fmt::format("attribute {} must be a string", k));
      }
      (k == "collsim.stream" ? out.stream : out.category) = a.string_val();
    } else if (k == "involved_dim") {
      if (a.value_case() != pb::AttributeProto::kBoolList) {
        throw core::InputError("attribute involved_dim must be a bool list");
      }
      out.involved_dim.assign(a.bool_list().values().begin(), a.bool_list().values().end());
    }
    // Other attributes (operator arguments, tensor ids) do not change the simulation.
  }
  return out;
}

std::string prefix_of(const std::string& spec) {
  // PREFIX.<r>.et -> PREFIX
  if (spec.size() > 3 && spec.compare(spec.size() - 3, 3, ".et") == 0) {
    const std::string stem = spec.substr(0, spec.size() - 3);
    const auto dot = stem.rfind('.');
    if (dot != std::string::npos && dot + 1 < stem.size() &&
        stem.find_first_not_of("0123456789", dot + 1) == std::string::npos) {
      return stem.substr(0, dot);
    }
  }
  return spec;
}

}  // namespace

RankTrace read_et(const std::string& path) {
  const std::string data = core::read_input(path, "Chakra trace", core::kTraceInputLimit);
  if (data.size() > static_cast<std::size_t>(INT_MAX)) {  // protobuf's streams count in int
    throw core::InputError(fmt::format("{}: a Chakra trace file of more than 2 GiB", path));
  }
  google::protobuf::io::CodedInputStream coded(reinterpret_cast<const std::uint8_t*>(data.data()),
                                               static_cast<int>(data.size()));
  RankTrace r;
  r.file = path;
  std::size_t index = 0;  // messages read, the metadata included
  pb::Node n;             // reused: its fields keep their memory from node to node
  while (static_cast<std::size_t>(coded.CurrentPosition()) < data.size()) {
    const auto where = [&] {
      return index == 0 ? fmt::format("{}: global metadata", path)
                        : fmt::format("{}: node {} (after id {})", path, index - 1,
                                      r.nodes.empty() ? std::string("none")
                                                      : std::to_string(r.nodes.back().id));
    };
    std::uint32_t len = 0;
    if (!coded.ReadVarint32(&len) ||
        static_cast<std::size_t>(coded.CurrentPosition()) + len > data.size()) {
      throw core::InputError(
          fmt::format("{}: truncated (a message runs past the end of the file)", where()));
    }
    const auto limit = coded.PushLimit(static_cast<int>(len));
    if (index == 0) {
      pb::GlobalMetadata m;
      if (!m.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
        throw core::InputError(fmt::format("{}: not a Chakra GlobalMetadata message", where()));
      }
      r.version = m.version();
      // collsim's own: the streams (in order) and the communicators of a trace it wrote.
      for (const pb::AttributeProto& a : m.attr()) {
        const std::string& k = a.name();
        if (k.rfind("collsim.stream.", 0) == 0) {
          const std::string& v = a.string_val();
          if (v != "serial" && v != "serial-lifo" && v != "concurrent") {
            throw core::InputError(fmt::format(
                "{}: {} is \"{}\"; valid: serial, serial-lifo, concurrent", where(), k, v));
          }
          r.streams.push_back({k.substr(15), v != "concurrent", v == "serial-lifo"});
        } else if (k.rfind("collsim.pg.", 0) == 0) {
          if (a.value_case() != pb::AttributeProto::kInt64List) {
            throw core::InputError(fmt::format("{}: {} must be a list of NPUs", where(), k));
          }
          auto& g = r.groups[k.substr(11)];
          for (const std::int64_t v : a.int64_list().values()) {
            if (v < 0 || v > 0x7fffffff) {
              throw core::InputError(fmt::format("{}: {} names NPU {}", where(), k, v));
            }
            g.push_back(static_cast<topology::NodeId>(v));
          }
        }
      }
    } else {
      n.Clear();
      if (!n.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
        throw core::InputError(fmt::format("{}: not a Chakra Node message (corrupt)", where()));
      }
      try {
        r.nodes.push_back(convert(n));
      } catch (const core::InputError& e) {
        throw core::InputError(fmt::format("{}: node {} (id {}, {}): {}", path, index - 1, n.id(),
                                           n.name(), e.what()));
      }
    }
    coded.PopLimit(limit);
    ++index;
  }
  if (index == 0) throw core::InputError(fmt::format("{}: empty file, not a Chakra trace", path));
  return r;
}

bool is_trace(const std::string& spec) {
  std::error_code ec;
  if (spec.size() > 3 && spec.compare(spec.size() - 3, 3, ".et") == 0) return true;
  return std::filesystem::is_regular_file(spec + ".0.et", ec);
}

std::vector<std::string> trace_files(const std::string& spec) {
  const std::string prefix = prefix_of(spec);
  std::vector<std::string> files;
  std::error_code ec;
  for (std::size_t r = 0;; ++r) {
    const std::string f = fmt::format("{}.{}.et", prefix, r);
    if (!std::filesystem::is_regular_file(f, ec)) break;
    files.push_back(f);
  }
  if (files.empty()) {
    throw core::InputError(
        fmt::format("\"{}\": no Chakra trace ({}.0.et does not exist)", spec, prefix));
  }
  return files;
}

collective::Collective collective_of(const Node& n, const std::string& where) {
  if (!n.comm_type) throw core::InputError(fmt::format("{}: no comm_type attribute", where));
  switch (*n.comm_type) {
    case pb::ALL_REDUCE:
      return collective::Collective::AllReduce;
    case pb::ALL_GATHER:
      return collective::Collective::AllGather;
    case pb::REDUCE_SCATTER:
      return collective::Collective::ReduceScatter;
    case pb::ALL_TO_ALL:
      return collective::Collective::AllToAll;
    default:
      break;
  }
  const auto name = pb::CollectiveCommType_Name(static_cast<pb::CollectiveCommType>(*n.comm_type));
  throw core::InputError(
      fmt::format("{}: comm_type {} ({}) is not simulated; collsim runs ALL_REDUCE, ALL_GATHER, "
                  "REDUCE_SCATTER and ALL_TO_ALL",
                  where, *n.comm_type, name.empty() ? "unknown" : name));
}

core::Time compute_time(const Node& n, const ToWorkloadOptions& o) {
  // A trace collsim wrote keeps the exact time it simulated (chakra_write.hpp).
  if (n.duration_ps && !o.roofline) return core::Time::from_ps(static_cast<std::int64_t>(*n.duration_ps));
  core::Time t = core::Time::from_ns(static_cast<double>(n.duration_us) * 1e3);
  if ((o.roofline || n.duration_us == 0) && n.num_ops && o.peak_flops > 0) {
    double s = static_cast<double>(*n.num_ops) / o.peak_flops;
    if (n.tensor_size && o.memory_bytes_per_s > 0) {
      s = std::max(s, static_cast<double>(*n.tensor_size) / o.memory_bytes_per_s);
    }
    const double ns = std::trunc(s * 1e9);
    if (!(ns * 1e3 < static_cast<double>(core::kHorizonPs))) {  // a message only on failure
      core::time_from_user(ns, 1e3, fmt::format("node {} ({}): num_ops / peak-perf", n.id, n.name));
    }
    t = core::Time::from_ns(static_cast<std::int64_t>(ns));
  }
  return t;
}

namespace {

struct Placed {
  std::size_t layer = 0;  // the layer whose forward collective it is
  std::size_t node = 0;
};

// Scope and model-parallel group size M from involved_dim (empty or all true: every NPU).
std::pair<Scope, std::uint32_t> scope_of(const Node& n, const std::vector<std::uint32_t>& dims,
                                         const std::string& where) {
  if (n.involved_dim.empty()) return {Scope::All, 1};
  if (n.involved_dim.size() != dims.size()) {
    throw core::InputError(
        fmt::format("{}: involved_dim has {} entries, the platform {} dimensions", where,
                    n.involved_dim.size(), dims.size()));
  }
  std::size_t k = 0;  // leading involved dimensions
  while (k < dims.size() && n.involved_dim[k]) ++k;
  std::size_t rest = k;
  while (rest < dims.size() && !n.involved_dim[rest]) ++rest;
  const bool prefix = rest == dims.size();  // true...true false...false
  std::size_t j = 0;                        // leading uninvolved
  while (j < dims.size() && !n.involved_dim[j]) ++j;
  bool suffix = j > 0;
  for (std::size_t d = j; d < dims.size(); ++d) suffix = suffix && n.involved_dim[d];
  std::uint32_t m = 1;
  if (k == dims.size()) return {Scope::All, 1};
  if (prefix && k > 0) {
    for (std::size_t d = 0; d < k; ++d) m *= dims[d];
    return {Scope::ModelParallel, m};
  }
  if (suffix) {
    for (std::size_t d = 0; d < j; ++d) m *= dims[d];
    return {Scope::DataParallel, m};
  }
  throw core::InputError(fmt::format(
      "{}: involved_dim must select all dimensions, the innermost ones or the outermost ones",
      where));
}

}  // namespace

Workload to_workload(const std::vector<RankTrace>& ranks, const std::vector<std::uint32_t>& dims,
                     const ToWorkloadOptions& o, const std::string& name) {
  if (ranks.empty()) throw core::InputError(fmt::format("trace {}: no ranks", name));
  std::uint64_t npus = 1;
  for (std::uint32_t d : dims) npus *= d;
  if (ranks.size() != 1 && ranks.size() != npus) {
    throw core::InputError(fmt::format(
        "trace {}: {} ranks (files) for a platform of {} NPUs; give one file per NPU, or rank "
        "0's only to run it on every NPU",
        name, ranks.size(), npus));
  }
  const RankTrace& r0 = ranks.front();
  // SPMD: every rank the same graph as rank 0.
  for (std::size_t r = 1; r < ranks.size(); ++r) {
    const auto& nodes = ranks[r].nodes;
    bool same = nodes.size() == r0.nodes.size();
    std::size_t i = 0;
    for (; same && i < nodes.size(); ++i) {
      const Node &a = nodes[i], &b = r0.nodes[i];
      same = a.kind == b.kind && a.comm_type == b.comm_type && a.comm_size == b.comm_size &&
             a.duration_us == b.duration_us && a.involved_dim == b.involved_dim;
    }
    if (!same) {
      throw core::InputError(fmt::format(
          "{}: node {} differs from rank 0's ({}); collsim runs traces whose ranks hold the same "
          "graph",
          ranks[r].file, i == 0 ? 0 : i - 1, r0.file));
    }
  }
  std::unordered_map<std::uint64_t, std::size_t> index;
  index.reserve(r0.nodes.size());
  for (std::size_t i = 0; i < r0.nodes.size(); ++i) index.emplace(r0.nodes[i].id, i);
  Workload w;
  w.name = name;
  w.source = fmt::format("Chakra trace {} (version {}, {} node{}{})", name, r0.version,
                         r0.nodes.size(), r0.nodes.size() == 1 ? "" : "s",
                         ranks.size() == 1 ? ", rank 0's graph on every NPU" : "");
  std::vector<std::size_t> layer_of(r0.nodes.size(), SIZE_MAX);  // compute nodes' layers
  std::vector<Placed> collectives;
  std::optional<std::uint32_t> mp;
  std::size_t missing = 0;   // dependencies on nodes the file does not hold
  std::size_t launches = 0;  // collective nodes without type and size (PyTorch's c10d:: ops)
  for (std::size_t i = 0; i < r0.nodes.size(); ++i) {
    const Node& n = r0.nodes[i];
    // Built when an error needs it: a trace has up to millions of nodes.
    const auto where = [&] {
      return fmt::format("{}: node {} (id {}, {})", r0.file, i, n.id, n.name);
    };
    for (const auto* deps : {&n.data_deps, &n.ctrl_deps}) {
      for (std::uint64_t d : *deps) {
        const auto it = index.find(d);
        if (it == index.end()) {  // traces collected from PyTorch drop some host nodes
          ++missing;
          continue;
        }
        if (it->second >= i) {
          throw core::InputError(fmt::format(
              "{}: depends on node id {}, which comes later in the file (collsim reads traces in "
              "dependency order)",
              where(), d));
        }
      }
    }
    switch (n.kind) {
      case NodeKind::Metadata:
        continue;
      case NodeKind::Compute: {
        const core::Time t = compute_time(n, o);
        Layer l;
        l.name = n.name.empty() ? fmt::format("node {}", n.id) : n.name;
        l.compute[0] = t;
        layer_of[i] = w.layers.size();
        w.layers.push_back(std::move(l));
        continue;
      }
      case NodeKind::Collective: {
        if (!n.comm_type && n.comm_size == 0) {  // a host-side launch record: its kernel counts
          ++launches;
          continue;
        }
        const auto c = collective_of(n, where());
        if (n.comm_size == 0) throw core::InputError(fmt::format("{}: comm_size is 0", where()));
        const auto [scope, m] = scope_of(n, dims, where());
        if (scope != Scope::All) {
          if (mp && *mp != m) {
            throw core::InputError(fmt::format(
                "{}: its involved_dim makes groups of {} NPUs where earlier collectives made {}; "
                "collsim takes one model-parallel group size per workload",
                where(), m, *mp));
          }
          mp = m;
        }
        if (w.layers.empty() || w.layers.back().comm[0].collective) {
          Layer l;  // a place of no compute to issue it from
          l.name = n.name.empty() ? fmt::format("node {}", n.id) : n.name;
          w.layers.push_back(std::move(l));
        }
        w.layers.back().comm[0] = Comm{c, core::Bytes{n.comm_size}, scope, true, 0};
        collectives.push_back({w.layers.size() - 1, i});
        continue;
      }
      default:
        throw core::InputError(
            fmt::format("{}: {} nodes are not run as a training iteration (compute and "
                        "collective nodes only); `collsim astra` replays the trace rank by rank",
                        where(), to_string(n.kind)));
    }
  }
  if (w.layers.empty()) throw core::InputError(fmt::format("trace {}: no nodes to run", name));
  // Each collective is needed by the first compute node that depends on it, or by the end.
  bool end = false;
  for (const Placed& p : collectives) {
    std::size_t need = SIZE_MAX;
    const std::uint64_t id = r0.nodes[p.node].id;
    for (std::size_t i = p.node + 1; i < r0.nodes.size() && need == SIZE_MAX; ++i) {
      const Node& n = r0.nodes[i];
      if (n.kind != NodeKind::Compute) continue;
      for (const auto* deps : {&n.data_deps, &n.ctrl_deps}) {
        for (std::uint64_t d : *deps) need = d == id ? layer_of[i] : need;
      }
    }
    Comm& c = w.layers[p.layer].comm[0];
    if (need == SIZE_MAX) {  // the "end" layer, appended below
      need = w.layers.size();
      end = true;
    }
    if (need == p.layer + 1) {
      c.overlapped = false;  // needed right away: it blocks the next layer
    } else {
      c.needed_before = static_cast<std::uint32_t>(need);
    }
  }
  if (end) {
    Layer l;
    l.name = "end";  // where collectives nothing depends on must have ended
    w.layers.push_back(std::move(l));
  }
  w.model_parallel_npus = mp.value_or(1);
  if (launches > 0) {
    w.source += fmt::format(
        "; {} collective launch record{} without comm_type and comm_size "
        "taken as no-ops",
        launches, launches == 1 ? "" : "s");
  }
  if (missing > 0) {
    w.source += fmt::format("; {} dependenc{} on nodes missing from the file ignored", missing,
                            missing == 1 ? "y" : "ies");
  }
  return w;
}

}  // namespace collsim::workload::chakra
