// Replaying a Chakra trace rank by rank (jobs/trace_replay.hpp).
#include "jobs/trace_replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/error.hpp"
#include "runtime/session.hpp"

namespace collsim::jobs {

using workload::chakra::Node;
using workload::chakra::NodeKind;
using workload::chakra::RankTrace;

namespace {

constexpr std::int64_t kBroadcast = 5;  // CollectiveCommType BROADCAST

bool is_launch_record(const Node& n) {
  return n.kind == NodeKind::Collective && !n.comm_type && n.comm_size == 0;
}

std::string where(const RankTrace& t, std::size_t i) {
  return fmt::format("{}: node {} (id {}, {})", t.file, i, t.nodes[i].id, t.nodes[i].name);
}

// The resource a node needs to start: 0 the GPU, 1 the CPU, 2 the comm slot (with
// ReplayOptions::serial), 3 none.
std::size_t resource_of(const Node& nd) {
  switch (nd.kind) {
    case NodeKind::Compute:
      return nd.is_cpu_op ? 1 : 0;
    case NodeKind::Collective:
      return is_launch_record(nd) ? 3 : 2;
    case NodeKind::Send:
      return 2;
    default:
      return 3;
  }
}

// One rank's walk through its graph.
struct Rank {
  const RankTrace* trace = nullptr;
  std::vector<std::uint32_t> waiting;                // unfinished dependencies per node
  std::vector<std::vector<std::uint32_t>> children;  // nodes that depend on each
  // Ready nodes (node id, index) by the resource they need (see resource_of): issue() takes
  // the lowest id among the classes whose resource is free, without visiting blocked nodes.
  std::array<std::set<std::pair<std::uint64_t, std::uint32_t>>, 4> ready;
  std::vector<core::Time> issued;
  std::vector<char> done;
  bool gpu = false, cpu = false;
  std::uint32_t comm = 0;  // collectives and sends in flight
  std::size_t left = 0;
  core::Time finish, compute;
  std::map<std::string, std::uint32_t> sequence;  // collectives issued per communicator
};

// A collective meeting its members.
struct Meeting {
  collective::Collective op = collective::Collective::AllReduce;
  std::uint64_t size = 0;
  std::vector<topology::NodeId> members;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> arrived;  // (rank, node)
  std::string first;                                             // names the first node
  std::vector<std::uint32_t> dims;                               // hierarchical: involved
  std::string label;
};

struct Send {
  std::uint32_t rank = 0, node = 0;
};

using P2pKey = std::tuple<std::uint32_t, std::uint32_t, std::int32_t, std::uint64_t>;

class Replayer final : public core::EventHandler {
 public:
  Replayer(runtime::Session& session, const std::vector<RankTrace>& traces,
           const ReplayOptions& o)
      : topo_(session.topology()), sim_(session.sim()), session_(session), o_(o) {
    const std::uint32_t n = topo_.num_npus();
    for (const auto& d : topo_.dimensions()) dims_.push_back(d.spec.size);
    if (traces.size() != 1 && traces.size() != n) {
      throw core::InputError(
          fmt::format("trace: {} ranks (files) for a platform of {} NPUs; give one file per NPU, "
                      "or rank 0's only to run it on every NPU",
                      traces.size(), n));
    }
    if (!o.algorithms.empty()) staged_ = o.algorithms.begin()->second.info->staged;
    for (const auto& [c, a] : o.algorithms) {
      if (a.info->staged != staged_) {
        throw core::InputError(fmt::format("the {} algorithm {} must be {} like the others",
                                           collective::to_string(c), a.label,
                                           staged_ ? "hierarchical" : "flat"));
      }
    }
    ranks_.resize(n);
    for (std::uint32_t r = 0; r < n; ++r) {
      Rank& rk = ranks_[r];
      rk.trace = &traces[traces.size() == 1 ? 0 : r];
      check(r);
      const auto& nodes = rk.trace->nodes;
      std::unordered_map<std::uint64_t, std::uint32_t> index;
      for (std::uint32_t i = 0; i < nodes.size(); ++i) index.emplace(nodes[i].id, i);
      rk.waiting.assign(nodes.size(), 0);
      rk.children.assign(nodes.size(), {});
      rk.issued.assign(nodes.size(), core::Time{});
      rk.done.assign(nodes.size(), 0);
      for (std::uint32_t i = 0; i < nodes.size(); ++i) {
        for (const auto* deps : {&nodes[i].data_deps, &nodes[i].ctrl_deps}) {
          if (o.data_deps_only && deps == &nodes[i].ctrl_deps) continue;
          for (std::uint64_t d : *deps) {
            const auto it = index.find(d);
            if (it == index.end() || it->second == i) continue;  // missing from the file
            rk.children[it->second].push_back(i);
            ++rk.waiting[i];
          }
        }
      }
      rk.left = nodes.size();
      refuse_cycles(r);
      for (std::uint32_t i = 0; i < nodes.size(); ++i) {
        if (rk.waiting[i] == 0) rk.ready[resource_of(nodes[i])].emplace(nodes[i].id, i);
      }
    }
    std::size_t ports = 0;
    switch (o.memory.kind) {
      case RemoteMemory::Kind::PerNode:
        ports = (n + o.memory.npus_per_node - 1) / o.memory.npus_per_node;
        break;
      case RemoteMemory::Kind::PerNpu:
        ports = n;
        break;
      case RemoteMemory::Kind::Pool:
        ports = 1;
        break;
      case RemoteMemory::Kind::None:
        break;
    }
    ports_.resize(ports);
  }

  void start() {
    for (std::uint32_t r = 0; r < ranks_.size(); ++r) issue(r);
  }

  ReplayResult& result() { return result_; }
  bool finished() const {
    return std::all_of(ranks_.begin(), ranks_.end(), [](const Rank& r) { return r.left == 0; });
  }

  // What the unfinished ranks wait for (at most 3 ranks).
  std::string describe_stuck() const {
    std::string out;
    std::size_t shown = 0;
    for (std::uint32_t r = 0; r < ranks_.size() && shown < 3; ++r) {
      const Rank& rk = ranks_[r];
      if (rk.left == 0) continue;
      ++shown;
      std::string pending;
      std::size_t listed = 0;
      for (std::uint32_t i = 0; i < rk.trace->nodes.size() && listed < 2; ++i) {
        if (rk.waiting[i] == 0 && !rk.done[i] &&
            !rk.ready[resource_of(rk.trace->nodes[i])].count({rk.trace->nodes[i].id, i})) {
          pending += fmt::format("{}node {} (id {}, {})", listed ? ", " : "", i,
                                 rk.trace->nodes[i].id, to_string(rk.trace->nodes[i].kind));
          ++listed;
        }
      }
      // Else the first node whose dependencies never finished: a cycle in the graph.
      std::string blocked;
      for (std::uint32_t i = 0; i < rk.trace->nodes.size() && listed == 0 && blocked.empty(); ++i) {
        if (rk.waiting[i] > 0) {
          blocked =
              fmt::format(", node {} (id {}) waiting for {} dependenc{} that never ended", i,
                          rk.trace->nodes[i].id, rk.waiting[i], rk.waiting[i] == 1 ? "y" : "ies");
        }
      }
      out += fmt::format("{}rank {}: {} node{} left{}{}{}", out.empty() ? "" : "; ", r, rk.left,
                         rk.left == 1 ? "" : "s", listed ? ", waiting in " : "", pending, blocked);
    }
    return out;
  }

 private:
  // A graph with a dependency cycle never finishes: name a node on one (Kahn's algorithm).
  void refuse_cycles(std::uint32_t r) const {
    const Rank& rk = ranks_[r];
    std::vector<std::uint32_t> waiting = rk.waiting;
    std::vector<std::uint32_t> next;
    for (std::uint32_t i = 0; i < waiting.size(); ++i) {
      if (waiting[i] == 0) next.push_back(i);
    }
    std::size_t seen = 0;
    while (!next.empty()) {
      const std::uint32_t i = next.back();
      next.pop_back();
      ++seen;
      for (std::uint32_t c : rk.children[i]) {
        if (--waiting[c] == 0) next.push_back(c);
      }
    }
    if (seen == waiting.size()) return;
    // A node left over whose parent is left over too: both are on, or behind, a cycle.
    for (std::uint32_t i = 0; i < waiting.size(); ++i) {
      for (std::uint32_t c : rk.children[i]) {
        if (waiting[i] > 0 && waiting[c] > 0) {
          throw core::InputError(fmt::format(
              "{}: on a dependency cycle with node id {} (or behind one): {} of the {} nodes can "
              "never run{}",
              where(*rk.trace, c), rk.trace->nodes[i].id, waiting.size() - seen, waiting.size(),
              o_.data_deps_only ? "" : " (--data-deps-only ignores control dependencies)"));
        }
      }
    }
  }

  // Everything a rank's trace asks for must be runnable here: fail before simulating.
  void check(std::uint32_t r) {
    const RankTrace& t = *ranks_[r].trace;
    const std::uint32_t n = topo_.num_npus();
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
      const Node& nd = t.nodes[i];
      switch (nd.kind) {
        case NodeKind::Collective: {
          if (is_launch_record(nd) || (nd.comm_type && *nd.comm_type == kBroadcast)) break;
          const auto c = collective_of(nd, where(t, i));
          if (nd.comm_size == 0) {
            throw core::InputError(fmt::format("{}: comm_size is 0", where(t, i)));
          }
          if (o_.algorithms.find(c) == o_.algorithms.end()) {
            throw core::InputError(
                fmt::format("{}: no algorithm for {}", where(t, i), collective::to_string(c)));
          }
          communicator(r, nd, where(t, i));
          break;
        }
        case NodeKind::Send:
        case NodeKind::Recv: {
          const bool send = nd.kind == NodeKind::Send;
          const std::int32_t peer = send ? nd.comm_dst : nd.comm_src;
          const std::int32_t self = send ? nd.comm_src : nd.comm_dst;
          if (self >= 0 && static_cast<std::uint32_t>(self) != r) {
            throw core::InputError(fmt::format("{}: comm_{} is {}, but the node is rank {}'s",
                                               where(t, i), send ? "src" : "dst", self, r));
          }
          if (peer < 0 || static_cast<std::uint32_t>(peer) >= n ||
              static_cast<std::uint32_t>(peer) == r) {
            throw core::InputError(fmt::format("{}: comm_{} {} is not another rank of the {} NPUs",
                                               where(t, i), send ? "dst" : "src", peer, n));
          }
          break;
        }
        case NodeKind::MemLoad:
        case NodeKind::MemStore:
          if (o_.memory.kind == RemoteMemory::Kind::None) {
            throw core::InputError(fmt::format(
                "{}: a memory node, but the remote memory is NO_MEMORY_EXPANSION (ASTRA-sim "
                "refuses it too); give --remote-memory-configuration a memory to serve it",
                where(t, i)));
          }
          break;
        default:
          break;
      }
    }
  }

  // The communicator of a collective node on rank r: its key (the same on every member) and
  // members; for a hierarchical algorithm, the involved dimensions.
  std::tuple<std::string, std::vector<topology::NodeId>, std::vector<std::uint32_t>> communicator(
      std::uint32_t r, const Node& nd, const std::string& at) const {
    const std::uint32_t n = topo_.num_npus();
    if (!nd.pg_name.empty() && nd.pg_name != "0") {
      const auto it = o_.groups.find(nd.pg_name);
      if (it == o_.groups.end()) {
        throw core::InputError(fmt::format(
            "{}: pg_name \"{}\" is not a group of --comm-group-configuration", at, nd.pg_name));
      }
      const auto& g = it->second;
      if (std::find(g.begin(), g.end(), r) == g.end()) {
        throw core::InputError(
            fmt::format("{}: rank {} is not in its group \"{}\"", at, r, nd.pg_name));
      }
      if (staged_ && g.size() != n) {
        throw core::InputError(
            fmt::format("{}: group \"{}\" of {} NPUs: hierarchical collectives span the platform's "
                        "dimensions; give a flat *-implementation for communicator groups",
                        at, nd.pg_name, g.size()));
      }
      return {"pg:" + nd.pg_name, g, {}};
    }
    std::vector<std::uint32_t> involved;
    if (!nd.involved_dim.empty()) {
      if (nd.involved_dim.size() != dims_.size()) {
        throw core::InputError(
            fmt::format("{}: involved_dim has {} entries, the platform {} "
                        "dimensions",
                        at, nd.involved_dim.size(), dims_.size()));
      }
      for (std::uint32_t d = 0; d < dims_.size(); ++d) {
        if (nd.involved_dim[d]) involved.push_back(d);
      }
      if (involved.empty()) throw core::InputError(fmt::format("{}: involved_dim is empty", at));
      if (involved.size() == dims_.size()) involved.clear();
    }
    std::vector<topology::NodeId> all(n);
    for (std::uint32_t i = 0; i < n; ++i) all[i] = i;
    if (involved.empty()) return {"all", all, {}};
    std::string dims_key = "dims";
    for (std::uint32_t d : involved) dims_key += fmt::format(":{}", d);
    if (staged_) return {dims_key, all, involved};
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
    std::vector<topology::NodeId> members{base};
    for (std::uint32_t d : involved) {
      std::vector<topology::NodeId> grown;
      for (std::uint32_t k = 0; k < dims_[d]; ++k) {
        for (topology::NodeId m : members) grown.push_back(m + k * stride[d]);
      }
      members = std::move(grown);
    }
    std::sort(members.begin(), members.end());
    return {fmt::format("{}@{}", dims_key, base), members, {}};
  }

  // Issue what is ready and has its resource, lowest node id first: the lowest id among the
  // classes whose resource is free (issuing only takes resources; a node that finishes at once
  // may free or add some, so the choice starts over). Linear in the nodes issued.
  void issue(std::uint32_t r) {
    Rank& rk = ranks_[r];
    for (;;) {
      std::size_t best = rk.ready.size();
      for (std::size_t k = 0; k < rk.ready.size(); ++k) {
        if (rk.ready[k].empty() || !available(rk, k)) continue;
        if (best == rk.ready.size() || *rk.ready[k].begin() < *rk.ready[best].begin()) best = k;
      }
      if (best == rk.ready.size()) return;
      const std::uint32_t i = rk.ready[best].begin()->second;
      rk.ready[best].erase(rk.ready[best].begin());
      rk.issued[i] = sim_.now();
      if (begin(r, i)) finish(r, i, false);  // finished at once: its children may be ready now
    }
  }

  bool available(const Rank& rk, std::size_t resource) const {
    switch (resource) {
      case 0:
        return !rk.gpu;
      case 1:
        return !rk.cpu;
      case 2:
        return !o_.serial || rk.comm == 0;
      default:
        return true;
    }
  }

  // Start node i of rank r; true if it finished at once.
  bool begin(std::uint32_t r, std::uint32_t i) {
    Rank& rk = ranks_[r];
    const Node& nd = rk.trace->nodes[i];
    switch (nd.kind) {
      case NodeKind::Compute: {
        const core::Time t = compute_time(nd, o_.compute);
        (nd.is_cpu_op ? rk.cpu : rk.gpu) = true;
        if (!nd.is_cpu_op) rk.compute += t;
        sim_.schedule_in(t, *this, tag(r, i));
        return false;
      }
      case NodeKind::Collective: {
        if (is_launch_record(nd)) return true;
        ++rk.comm;
        if (*nd.comm_type == kBroadcast) {
          sim_.schedule_in(core::Time::from_ns(static_cast<double>(nd.duration_us) * 1e3), *this,
                           tag(r, i));
          return false;
        }
        meet(r, i);
        return false;
      }
      case NodeKind::Send: {
        ++rk.comm;
        ++result_.sends;
        const auto id = static_cast<std::uint64_t>(sends_.size());
        sends_.push_back({r, i});
        ++result_.messages;
        result_.bytes += nd.comm_size;
        // Through the Session's executor, so observers, link metrics and traces see it.
        session_.send(r, static_cast<topology::NodeId>(nd.comm_dst), core::Bytes{nd.comm_size},
                      [this, id](runtime::LaunchId, const scheduler::CollectiveStats&) {
                        delivered(id);
                      },
                      fmt::format("send {} -> {} ({})", r, nd.comm_dst, where(*rk.trace, i)));
        return false;
      }
      case NodeKind::Recv: {
        const P2pKey key{static_cast<std::uint32_t>(nd.comm_src), r, nd.comm_tag, nd.comm_size};
        auto& arrived = arrived_[key];
        if (!arrived.empty()) {
          arrived.pop_front();
          return true;
        }
        posted_[key].push_back(i);
        return false;
      }
      case NodeKind::MemLoad:
      case NodeKind::MemStore: {
        ++result_.memory_ops;
        std::size_t port = 0;
        if (o_.memory.kind == RemoteMemory::Kind::PerNode) port = r / o_.memory.npus_per_node;
        if (o_.memory.kind == RemoteMemory::Kind::PerNpu) port = r;
        Port& p = ports_[port];
        p.queue.emplace_back(r, i);
        if (p.queue.size() == 1) serve(port);
        return false;
      }
      default:  // metadata, invalid
        return true;
    }
  }

  struct Port {
    std::deque<std::pair<std::uint32_t, std::uint32_t>> queue;  // head: in service
  };

  void serve(std::size_t port) {
    const auto [r, i] = ports_[port].queue.front();
    const Node& nd = ranks_[r].trace->nodes[i];
    const core::Time t =
        o_.memory.latency +
        core::transfer_time(core::Bytes{nd.tensor_size.value_or(0)}, o_.memory.bandwidth);
    sim_.schedule_in(t, memory_done_, port);
  }

  struct MemoryDone final : core::EventHandler {
    explicit MemoryDone(Replayer& rp) : self(rp) {}
    void on_event(std::uint64_t port) override {
      auto& q = self.ports_[port].queue;
      const auto [r, i] = q.front();
      q.pop_front();
      if (!q.empty()) self.serve(port);
      self.finish(r, i, true);
    }
    Replayer& self;
  };

  static std::uint64_t tag(std::uint32_t r, std::uint32_t i) {
    return (static_cast<std::uint64_t>(r) << 32) | i;
  }

  void on_event(std::uint64_t t) override {  // a compute node or broadcast ended
    const auto r = static_cast<std::uint32_t>(t >> 32);
    const auto i = static_cast<std::uint32_t>(t & 0xffffffffu);
    Rank& rk = ranks_[r];
    const Node& nd = rk.trace->nodes[i];
    if (nd.kind == NodeKind::Compute) {
      (nd.is_cpu_op ? rk.cpu : rk.gpu) = false;
    } else {
      --rk.comm;
    }
    finish(r, i, true);
  }

  // Send `id` has arrived.
  void delivered(std::uint64_t id) {
    const Send s = sends_[id];
    const Node& nd = ranks_[s.rank].trace->nodes[s.node];
    const auto dst = static_cast<std::uint32_t>(nd.comm_dst);
    // The receiver's side first: a posted receive finishes, else the message waits for one.
    const P2pKey key{s.rank, dst, nd.comm_tag, nd.comm_size};
    auto& posted = posted_[key];
    if (!posted.empty()) {
      const std::uint32_t ri = posted.front();
      posted.pop_front();
      finish(dst, ri, true);
    } else {
      arrived_[key].push_back(sim_.now());
    }
    --ranks_[s.rank].comm;
    finish(s.rank, s.node, true);
  }

  // Rank r's collective node i joins its meeting; the last member starts it.
  void meet(std::uint32_t r, std::uint32_t i) {
    Rank& rk = ranks_[r];
    const Node& nd = rk.trace->nodes[i];
    auto [key, members, involved] = communicator(r, nd, where(*rk.trace, i));
    const std::uint32_t seq = rk.sequence[key]++;
    const auto mkey = std::make_pair(key, seq);
    auto it = meetings_.find(mkey);
    const auto op = collective_of(nd, where(*rk.trace, i));
    if (it == meetings_.end()) {
      Meeting m;
      m.op = op;
      m.size = nd.comm_size;
      m.members = std::move(members);
      m.dims = std::move(involved);
      m.first = where(*rk.trace, i);
      m.label = fmt::format("{} {} {}", nd.name.empty() ? fmt::format("node {}", nd.id) : nd.name,
                            collective::to_string(op), key);
      it = meetings_.emplace(mkey, std::move(m)).first;
    } else if (it->second.op != op || it->second.size != nd.comm_size) {
      throw core::InputError(fmt::format(
          "{}: {} of {} bytes, but the member it meets ({}) issued {} of {} bytes as collective "
          "{} of communicator {}",
          where(*rk.trace, i), collective::to_string(op), nd.comm_size, it->second.first,
          collective::to_string(it->second.op), it->second.size, seq, key));
    }
    Meeting& m = it->second;
    m.arrived.emplace_back(r, i);
    if (m.arrived.size() < m.members.size()) return;
    launch(std::move(m));
    meetings_.erase(it);
  }

  void launch(Meeting m) {
    ++result_.collectives;
    const auto id = static_cast<std::uint32_t>(running_.size());
    running_.push_back(std::move(m.arrived));
    const collective::AlgorithmChoice& choice = o_.algorithms.at(m.op);
    const std::uint32_t n = topo_.num_npus();
    runtime::CollectiveRequest req;
    req.collective = m.op;
    req.algorithm = choice;
    req.size = core::Bytes{m.size};
    req.chunks = o_.chunks;
    req.label = m.label;
    if (staged_) {
      req.dims = m.dims;
    } else if (!collective::Communicator{m.members, ""}.is_identity(n)) {
      req.groups.push_back(collective::Communicator{m.members, ""});
    }
    session_.launch(req, [this, id](runtime::LaunchId, const scheduler::CollectiveStats& s) {
      ended(id, s);
    });
  }

  void ended(std::uint32_t id, const scheduler::CollectiveStats& s) {
    result_.messages += s.messages;
    result_.bytes += s.bytes;
    const auto members = std::move(running_[id]);  // finishing may start more collectives
    running_[id].clear();
    for (const auto& [r, i] : members) {
      --ranks_[r].comm;
      finish(r, i, true);
    }
  }

  // Node i of rank r finished now; `go_on`: issue what that made ready.
  void finish(std::uint32_t r, std::uint32_t i, bool go_on) {
    Rank& rk = ranks_[r];
    const Node& nd = rk.trace->nodes[i];
    if (o_.timeline) {
      ReplaySlice::Kind k = ReplaySlice::Kind::Compute;
      bool show = true;
      switch (nd.kind) {
        case NodeKind::Compute:
          break;
        case NodeKind::Collective:
          k = ReplaySlice::Kind::Collective;
          show = !is_launch_record(nd);
          break;
        case NodeKind::Send:
          k = ReplaySlice::Kind::Send;
          break;
        case NodeKind::Recv:
          k = ReplaySlice::Kind::Recv;
          break;
        case NodeKind::MemLoad:
        case NodeKind::MemStore:
          k = ReplaySlice::Kind::Memory;
          break;
        default:
          show = false;
      }
      if (show) result_.timeline.push_back({k, r, i, rk.issued[i], sim_.now()});
    }
    rk.done[i] = 1;
    for (std::uint32_t c : rk.children[i]) {
      if (--rk.waiting[c] == 0) {
        rk.ready[resource_of(rk.trace->nodes[c])].emplace(rk.trace->nodes[c].id, c);
      }
    }
    if (--rk.left == 0) rk.finish = sim_.now();
    if (go_on) issue(r);
  }

  const topology::Topology& topo_;
  core::Simulation& sim_;
  runtime::Session& session_;
  const ReplayOptions& o_;
  std::vector<std::uint32_t> dims_;
  bool staged_ = false;
  std::vector<Rank> ranks_;
  ReplayResult result_;
  std::map<std::pair<std::string, std::uint32_t>, Meeting> meetings_;
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> running_;
  std::vector<Send> sends_;
  std::map<P2pKey, std::deque<std::uint32_t>> posted_;  // receives waiting for a message
  std::map<P2pKey, std::deque<core::Time>> arrived_;    // messages waiting for a receive
  std::vector<Port> ports_;
  MemoryDone memory_done_{*this};

 public:
  std::vector<RankReplay> rank_results() const {
    std::vector<RankReplay> out;
    for (const Rank& rk : ranks_) out.push_back({rk.finish, rk.compute, rk.trace->nodes.size()});
    return out;
  }
};

}  // namespace

const char* to_string(ReplaySlice::Kind k) {
  switch (k) {
    case ReplaySlice::Kind::Compute:
      return "compute";
    case ReplaySlice::Kind::Collective:
      return "collective";
    case ReplaySlice::Kind::Send:
      return "send";
    case ReplaySlice::Kind::Recv:
      return "recv";
    case ReplaySlice::Kind::Memory:
      return "memory";
  }
  return "?";
}

std::string replay_reason(const std::vector<RankTrace>& ranks) {
  if (ranks.empty()) return {};
  const RankTrace& r0 = ranks.front();
  for (const RankTrace& t : ranks) {
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
      const Node& n = t.nodes[i];
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
      const Node &a = t.nodes[i], &b = r0.nodes[i];
      same = a.kind == b.kind && a.comm_type == b.comm_type && a.comm_size == b.comm_size &&
             a.duration_us == b.duration_us && a.involved_dim == b.involved_dim;
    }
    if (!same) return fmt::format("{} holds another graph than {}", t.file, r0.file);
  }
  return {};
}

ReplayResult replay(const topology::Topology& topo, const network::BackendInfo& backend,
                    const std::vector<RankTrace>& ranks, const ReplayOptions& options) {
  if (ranks.empty()) throw core::InputError("trace: no ranks");
  runtime::MachineSpec spec;
  spec.topology = &topo;
  spec.backend = &backend;
  spec.backend_options = options.backend_options;
  spec.endpoint = options.endpoint;
  spec.endpoint_params = options.endpoint_params;
  runtime::Session session(spec);
  Replayer rp(session, ranks, options);
  rp.start();
  session.sim().run(options.max_time);
  if (!rp.finished()) {
    const bool late = options.max_time && session.sim().pending() > 0;
    throw core::SimulationError(fmt::format(
        "trace {}: {} at {}: {}{}", ranks.front().file,
        late ? "not finished by --max-time" : "the ranks deadlocked",
        core::to_string(session.now()),
        rp.describe_stuck(),
        late ? "" : " (a receive no send matches, or a collective some member never issued)"));
  }
  ReplayResult r = std::move(rp.result());
  r.ranks = rp.rank_results();
  for (const RankReplay& k : r.ranks) r.total = std::max(r.total, k.finish);
  r.events = session.sim().events_processed();
  r.links = session.report().links;
  return r;
}

}  // namespace collsim::jobs
