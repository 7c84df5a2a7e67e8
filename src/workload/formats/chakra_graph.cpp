// A Chakra trace as a workload graph (workload/formats/chakra_graph.hpp).
#include "workload/formats/chakra_graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "core/error.hpp"

namespace collsim::workload::chakra {

namespace {

constexpr std::int64_t kBroadcast = 5;  // CollectiveCommType BROADCAST

bool is_launch_record(const chakra::Node& n) {
  return n.kind == NodeKind::Collective && !n.comm_type && n.comm_size == 0;
}

std::string where(const RankTrace& t, std::size_t i) {
  return fmt::format("{}: node {} (id {}, {})", t.file, i, t.nodes[i].id, t.nodes[i].name);
}

// Streams and categories of the replay graph.
enum Lane : std::uint16_t { kGpu = 0, kCpu = 1, kComm = 2, kFree = 3 };
enum Category : std::uint32_t { kCompute = 0, kCollective, kSend, kRecv, kMemory, kNothing };

class Builder {
 public:
  Builder(const std::vector<RankTrace>& ranks, const std::vector<std::uint32_t>& dims,
          std::uint32_t npus, const ReplayGraphOptions& o)
      : ranks_(ranks), dims_(dims), n_(npus), o_(o) {}

  Graph build() {
    if (ranks_.size() != 1 && ranks_.size() != n_) {
      throw core::InputError(
          fmt::format("trace: {} ranks (files) for a platform of {} NPUs; give one file per NPU, "
                      "or rank 0's only to run it on every NPU",
                      ranks_.size(), n_));
    }
    g_.name = fmt::format("trace {}", ranks_.front().file);
    g_.source = ranks_.front().file;
    g_.stream("gpu");
    g_.stream("cpu");
    g_.stream("comm", o_.serial);
    g_.stream("none", false);
    for (const char* c : {"compute", "collective", "send", "recv", "memory", "none"}) {
      g_.category(c);
    }
    // A trace collsim wrote replays on the streams of the graph it came from (its first the
    // main one); the defaults above follow them for nodes that name none.
    written_ = !ranks_.front().streams.empty();
    if (written_) {
      std::vector<Stream> own = ranks_.front().streams;
      for (const Stream& d : g_.streams) {
        if (std::none_of(own.begin(), own.end(), [&](const Stream& x) { return x.name == d.name; })) {
          own.push_back(d);
        }
      }
      g_.streams = std::move(own);
      for (const RankTrace& t : ranks_) {
        for (const auto& [name, npus] : t.groups) groups_.emplace(name, npus);
      }
    }
    for (const auto& [name, npus] : o_.groups) groups_[name] = npus;
    kinds_.resize(ranks_.size());
    for (std::size_t p = 0; p < ranks_.size(); ++p) program(p);
    for (std::uint32_t r = 0; r < n_; ++r) timeline(r);
    return std::move(g_);
  }

 private:
  // A collective node's communicator kind within its program: pg_name, or involved_dim.
  struct Kind {
    std::string pg;
    std::vector<bool> involved;
    std::size_t node = 0;  // the first node of the kind, for errors
  };

  void program(std::size_t p) {
    const RankTrace& t = ranks_[p];
    g_.programs.emplace_back();
    Program& prog = g_.programs.back();
    prog.source = t.file;
    std::unordered_map<std::uint64_t, std::uint32_t> index;
    for (std::uint32_t i = 0; i < t.nodes.size(); ++i) index.emplace(t.nodes[i].id, i);
    std::map<std::pair<std::string, std::vector<bool>>, std::uint32_t> kinds;
    std::vector<std::uint32_t> data, ctrl;
    ProgramBuilder b(prog);
    for (std::uint32_t i = 0; i < t.nodes.size(); ++i) {
      const chakra::Node& nd = t.nodes[i];
      data.clear();
      ctrl.clear();
      for (const auto* deps : {&nd.data_deps, &nd.ctrl_deps}) {
        if (o_.data_deps_only && deps == &nd.ctrl_deps) continue;
        for (std::uint64_t d : *deps) {
          const auto it = index.find(d);
          if (it == index.end() || it->second == i) continue;  // missing from the file
          (deps == &nd.data_deps ? data : ctrl).push_back(it->second);
        }
      }
      workload::Node n;
      n.id = nd.id;
      n.name = g_.intern(nd.name);
      n.stream = kFree;
      n.category = kNothing;
      switch (nd.kind) {
        case NodeKind::Compute:
          n.kind = workload::NodeKind::Compute;
          n.stream = nd.is_cpu_op ? kCpu : kGpu;
          n.cpu = nd.is_cpu_op;
          n.category = kCompute;
          n.duration = compute_time(nd, o_.compute);
          n.flops = nd.num_ops ? static_cast<double>(*nd.num_ops) : 0;
          n.bytes = nd.tensor_size.value_or(0);
          break;
        case NodeKind::Collective:
          if (is_launch_record(nd)) {
            n.kind = workload::NodeKind::Delay;
            break;
          }
          n.stream = kComm;
          n.category = kCollective;
          if (nd.comm_type && *nd.comm_type == kBroadcast) {
            n.kind = workload::NodeKind::Delay;
            n.duration = core::Time::from_ns(static_cast<double>(nd.duration_us) * 1e3);
            break;
          }
          n.kind = workload::NodeKind::Collective;
          n.collective = collective_of(nd, where(t, i));
          if (nd.comm_size == 0) {
            throw core::InputError(fmt::format("{}: comm_size is 0", where(t, i)));
          }
          if (!o_.runnable.count(n.collective)) {
            throw core::InputError(fmt::format("{}: no algorithm for {}", where(t, i),
                                               collective::to_string(n.collective)));
          }
          n.bytes = nd.comm_size;
          n.chunks = nd.chunks;
          {
            const bool pg = !nd.pg_name.empty() && nd.pg_name != "0";
            auto key = std::make_pair(pg ? nd.pg_name : std::string(),
                                      pg ? std::vector<bool>{} : nd.involved_dim);
            auto [it, fresh] =
                kinds.emplace(key, static_cast<std::uint32_t>(kinds_[p].size()));
            if (fresh) kinds_[p].push_back({key.first, key.second, i});
            n.group = it->second;
          }
          break;
        case NodeKind::Send:
          n.kind = workload::NodeKind::Send;
          n.stream = kComm;
          n.category = kSend;
          n.src = kSelf;
          n.dst = static_cast<topology::NodeId>(std::max(nd.comm_dst, 0));
          n.tag = nd.comm_tag;
          n.bytes = nd.comm_size;
          break;
        case NodeKind::Recv:
          n.kind = workload::NodeKind::Recv;
          n.category = kRecv;
          n.src = static_cast<topology::NodeId>(std::max(nd.comm_src, 0));
          n.dst = kSelf;
          n.tag = nd.comm_tag;
          n.bytes = nd.comm_size;
          break;
        case NodeKind::MemLoad:
        case NodeKind::MemStore:
          if (!o_.memory) {
            throw core::InputError(fmt::format(
                "{}: a memory node, but the remote memory is NO_MEMORY_EXPANSION (ASTRA-sim "
                "refuses it too); give --remote-memory-configuration a memory to serve it",
                where(t, i)));
          }
          n.kind = nd.kind == NodeKind::MemLoad ? workload::NodeKind::MemLoad
                                                : workload::NodeKind::MemStore;
          n.category = kMemory;
          n.bytes = nd.tensor_size.value_or(0);
          break;
        default:  // metadata, invalid
          n.kind = workload::NodeKind::Delay;
          break;
      }
      if (written_) {  // the graph's own stream, category and zero-work nodes
        if (!nd.stream.empty()) {
          const auto it = std::find_if(g_.streams.begin(), g_.streams.end(),
                                       [&](const Stream& x) { return x.name == nd.stream; });
          if (it == g_.streams.end()) {
            throw core::InputError(fmt::format("{}: collsim.stream \"{}\" is not a stream of "
                                               "the trace's metadata",
                                               where(t, i), nd.stream));
          }
          n.stream = static_cast<std::uint16_t>(it - g_.streams.begin());
        }
        if (!nd.category.empty()) n.category = g_.category(nd.category);
        if (nd.delay && n.kind == workload::NodeKind::Compute) {
          n.kind = workload::NodeKind::Delay;
          n.cpu = false;
        }
      }
      b.add(n, data, ctrl);
    }
  }

  // Rank r's timeline: its program, its communicators, and the checks that depend on the rank.
  void timeline(std::uint32_t r) {
    const std::size_t p = ranks_.size() == 1 ? 0 : r;
    const RankTrace& t = ranks_[p];
    Timeline tl;
    tl.npu = r;
    tl.program = static_cast<std::uint32_t>(p);
    for (const Kind& k : kinds_[p]) tl.groups.push_back(communicator(r, k, where(t, k.node)));
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
      const chakra::Node& nd = t.nodes[i];
      if (nd.kind != NodeKind::Send && nd.kind != NodeKind::Recv) continue;
      const bool send = nd.kind == NodeKind::Send;
      const std::int32_t peer = send ? nd.comm_dst : nd.comm_src;
      const std::int32_t self = send ? nd.comm_src : nd.comm_dst;
      if (self >= 0 && static_cast<std::uint32_t>(self) != r) {
        throw core::InputError(fmt::format("{}: comm_{} is {}, but the node is rank {}'s",
                                           where(t, i), send ? "src" : "dst", self, r));
      }
      if (peer < 0 || static_cast<std::uint32_t>(peer) >= n_ ||
          static_cast<std::uint32_t>(peer) == r) {
        throw core::InputError(fmt::format("{}: comm_{} {} is not another rank of the {} NPUs",
                                           where(t, i), send ? "dst" : "src", peer, n_));
      }
    }
    g_.timelines.push_back(std::move(tl));
  }

  // The group of a collective kind on rank r (the same on every member), interned by key.
  std::uint32_t communicator(std::uint32_t r, const Kind& k, const std::string& at) {
    Group gr;
    std::string key;
    if (!k.pg.empty()) {
      const auto it = groups_.find(k.pg);
      if (it == groups_.end()) {
        throw core::InputError(fmt::format(
            "{}: pg_name \"{}\" is not a group of --comm-group-configuration", at, k.pg));
      }
      const auto& members = it->second;
      if (std::find(members.begin(), members.end(), r) == members.end()) {
        throw core::InputError(
            fmt::format("{}: rank {} is not in its group \"{}\"", at, r, k.pg));
      }
      if (o_.staged && members.size() != n_) {
        throw core::InputError(
            fmt::format("{}: group \"{}\" of {} NPUs: hierarchical collectives span the platform's "
                        "dimensions; give a flat *-implementation for communicator groups",
                        at, k.pg, members.size()));
      }
      key = "pg:" + k.pg;
      if (!o_.staged) gr.comms.push_back(collective::Communicator{members, ""});
      gr.participants.assign(members.begin(), members.end());
      return intern(key, std::move(gr));
    }
    std::vector<std::uint32_t> involved;
    if (!k.involved.empty()) {
      if (k.involved.size() != dims_.size()) {
        throw core::InputError(fmt::format("{}: involved_dim has {} entries, the platform {} "
                                           "dimensions",
                                           at, k.involved.size(), dims_.size()));
      }
      for (std::uint32_t d = 0; d < dims_.size(); ++d) {
        if (k.involved[d]) involved.push_back(d);
      }
      if (involved.empty()) throw core::InputError(fmt::format("{}: involved_dim is empty", at));
      if (involved.size() == dims_.size()) involved.clear();
    }
    if (involved.empty()) return intern("all", std::move(gr));
    std::string dims_key = "dims";
    for (std::uint32_t d : involved) dims_key += fmt::format(":{}", d);
    if (o_.staged) {
      gr.dims = involved;
      return intern(dims_key, std::move(gr));
    }
    // The NPUs that differ from r only in the involved dimensions (innermost first).
    std::vector<std::uint32_t> coord(dims_.size()), stride(dims_.size());
    std::uint32_t s = 1, rest = r;
    for (std::size_t d = 0; d < dims_.size(); ++d) {
      stride[d] = s;
      coord[d] = rest % dims_[d];
      rest /= dims_[d];
      s *= dims_[d];
    }
    std::uint32_t base = 0;
    for (std::size_t d = 0; d < dims_.size(); ++d) {
      if (std::find(involved.begin(), involved.end(), d) == involved.end()) {
        base += coord[d] * stride[d];
      }
    }
    const std::string full = fmt::format("{}@{}", dims_key, base);
    if (const auto it = interned_.find(full); it != interned_.end()) return it->second;
    std::vector<topology::NodeId> members{base};
    for (std::uint32_t d : involved) {
      std::vector<topology::NodeId> grown;
      for (std::uint32_t k2 = 0; k2 < dims_[d]; ++k2) {
        for (topology::NodeId m : members) grown.push_back(m + k2 * stride[d]);
      }
      members = std::move(grown);
    }
    std::sort(members.begin(), members.end());
    gr.comms.push_back(collective::Communicator{members, ""});
    gr.participants.assign(members.begin(), members.end());
    return intern(full, std::move(gr));
  }

  std::uint32_t intern(const std::string& key, Group gr) {
    if (const auto it = interned_.find(key); it != interned_.end()) return it->second;
    gr.name = key;
    g_.groups.push_back(std::move(gr));
    const auto id = static_cast<std::uint32_t>(g_.groups.size() - 1);
    interned_.emplace(key, id);
    return id;
  }

  const std::vector<RankTrace>& ranks_;
  const std::vector<std::uint32_t>& dims_;
  std::uint32_t n_;
  const ReplayGraphOptions& o_;
  Graph g_;
  std::vector<std::vector<Kind>> kinds_;  // per program
  std::unordered_map<std::string, std::uint32_t> interned_;
  bool written_ = false;  // collsim wrote the trace (chakra_write.hpp)
  std::map<std::string, std::vector<topology::NodeId>> groups_;  // pg_name -> NPUs
};

}  // namespace

Graph replay_graph(const std::vector<RankTrace>& ranks, const std::vector<std::uint32_t>& dims,
                   std::uint32_t npus, const ReplayGraphOptions& options) {
  if (ranks.empty()) throw core::InputError("trace: no ranks");
  return Builder(ranks, dims, npus, options).build();
}

std::string replay_reason(const std::vector<RankTrace>& ranks) {
  if (ranks.empty()) return {};
  const RankTrace& r0 = ranks.front();
  for (const RankTrace& t : ranks) {
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
      const chakra::Node& n = t.nodes[i];
      switch (n.kind) {
        case NodeKind::Send:
        case NodeKind::Recv:
        case NodeKind::MemLoad:
        case NodeKind::MemStore:
          return fmt::format("{} is a {} node", where(t, i), to_string(n.kind));
        case NodeKind::Collective:
          if (!n.pg_name.empty() && n.pg_name != "0") {
            return fmt::format("{} runs on communicator group \"{}\"", where(t, i), n.pg_name);
          }
          if (n.comm_type && *n.comm_type == kBroadcast) {
            return fmt::format("{} is a BROADCAST", where(t, i));
          }
          break;
        default:
          break;
      }
    }
    if (&t == &r0) continue;
    bool same = t.nodes.size() == r0.nodes.size();
    for (std::size_t i = 0; same && i < t.nodes.size(); ++i) {
      const chakra::Node &a = t.nodes[i], &b = r0.nodes[i];
      same = a.kind == b.kind && a.comm_type == b.comm_type && a.comm_size == b.comm_size &&
             a.duration_us == b.duration_us && a.involved_dim == b.involved_dim;
    }
    if (!same) return fmt::format("{} holds another graph than {}", t.file, r0.file);
  }
  return {};
}

}  // namespace collsim::workload::chakra
