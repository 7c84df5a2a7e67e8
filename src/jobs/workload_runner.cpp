// The one workload runner (jobs/workload_runner.hpp).
#include "jobs/workload_runner.hpp"

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include "core/error.hpp"
#include "scheduler/limits.hpp"

namespace collsim::jobs {

using workload::Graph;
using workload::Group;
using workload::Node;
using workload::NodeKind;
using workload::Program;

namespace {

constexpr std::uint32_t kNoStream = 0xffffffffu;

bool is_comm(NodeKind k) {
  return k == NodeKind::Collective || k == NodeKind::Send || k == NodeKind::Recv ||
         k == NodeKind::MemLoad || k == NodeKind::MemStore;
}

// Children of every node of a program, compressed (offsets into `list`).
struct Children {
  std::vector<std::uint32_t> offset, list;
  std::vector<std::uint32_t> parents;  // dependency count per node
};

Children children_of(const Program& p) {
  const std::size_t n = p.nodes.size();
  Children c;
  c.offset.assign(n + 1, 0);
  c.parents.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const Node& nd = p.nodes[i];
    const std::uint32_t k = std::uint32_t{nd.data_deps} + nd.ctrl_deps;
    c.parents[i] = k;
    for (std::uint32_t j = 0; j < k; ++j) ++c.offset[p.deps[nd.deps_begin + j] + 1];
  }
  for (std::size_t i = 0; i < n; ++i) c.offset[i + 1] += c.offset[i];
  c.list.resize(c.offset[n]);
  std::vector<std::uint32_t> fill(c.offset.begin(), c.offset.end() - 1);
  for (std::size_t i = 0; i < n; ++i) {
    const Node& nd = p.nodes[i];
    const std::uint32_t k = std::uint32_t{nd.data_deps} + nd.ctrl_deps;
    for (std::uint32_t j = 0; j < k; ++j) {
      c.list[fill[p.deps[nd.deps_begin + j]]++] = static_cast<std::uint32_t>(i);
    }
  }
  return c;
}

using Ready = std::pair<std::uint64_t, std::uint32_t>;  // (node id, index)

struct TimelineState {
  const Program* program = nullptr;
  const Children* children = nullptr;
  std::vector<std::uint32_t> waiting;
  std::vector<core::Time> issued, end;
  std::vector<std::uint8_t> done;
  std::vector<std::vector<Ready>> ready;  // per stream: a heap (min for fifo, max for lifo)
  std::vector<std::uint32_t> running;     // per stream
  std::size_t left = 0;
  core::Time main_free;   // when the main stream last became free
  core::Time main_start;  // the running main-stream node's start
  absl::flat_hash_map<std::uint32_t, std::uint32_t> sequence;  // collectives issued per group
};

struct Meeting {
  collective::Collective op = collective::Collective::AllReduce;
  std::uint64_t bytes = 0;
  std::uint32_t algorithm = workload::kNone;
  std::uint32_t chunks = 0;
  std::uint32_t group = 0;
  std::string first;
  std::string label;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> arrived;  // (timeline, node)
};

using P2pKey = std::tuple<topology::NodeId, topology::NodeId, std::int32_t, std::uint64_t>;

struct P2pKeyHash {
  std::size_t operator()(const P2pKey& k) const {
    return absl::HashOf(std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k));
  }
};

class Runner final : public core::EventHandler {
 public:
  Runner(runtime::Session& session, const Graph& g, const WorkloadRunOptions& o)
      : topo_(session.topology()), sim_(session.sim()), session_(session), g_(g), o_(o) {
    children_.reserve(g.programs.size());
    for (const Program& p : g.programs) children_.push_back(children_of(p));
    tls_.resize(g.timelines.size());
    result_.timelines.resize(g.timelines.size());
    if (o.record) result_.nodes.resize(g.timelines.size());
    for (std::size_t t = 0; t < g.timelines.size(); ++t) {
      TimelineState& s = tls_[t];
      const auto pi = g.timelines[t].program;
      s.program = &g.programs[pi];
      s.children = &children_[pi];
      const std::size_t n = s.program->nodes.size();
      s.waiting = s.children->parents;
      s.issued.assign(n, core::Time{});
      s.end.assign(n, core::Time{});
      s.done.assign(n, 0);
      s.ready.resize(g.streams.size());
      s.running.assign(g.streams.size(), 0);
      s.left = n;
      result_.timelines[t].busy.assign(g.categories.size(), core::Time{});
      result_.timelines[t].exposed.assign(g.categories.size(), core::Time{});
      result_.timelines[t].nodes = n;
      if (o.record) result_.nodes[t].assign(n, NodeTimes{});
      for (std::uint32_t i = 0; i < n; ++i) {
        if (s.waiting[i] == 0) push_ready(s, i);
      }
    }
    std::size_t ports = 0;
    const std::uint32_t npus = topo_.num_npus();
    switch (o.memory.kind) {
      case RemoteMemory::Kind::PerNode:
        ports = (npus + o.memory.npus_per_node - 1) / o.memory.npus_per_node;
        break;
      case RemoteMemory::Kind::PerNpu:
        ports = npus;
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
    for (std::uint32_t t = 0; t < tls_.size(); ++t) issue(t);
  }

  bool finished() const {
    return std::all_of(tls_.begin(), tls_.end(), [](const TimelineState& s) { return s.left == 0; });
  }

  WorkloadResult& result() { return result_; }

  // What the unfinished timelines wait for (at most 3 timelines).
  std::string describe_stuck() const {
    std::string out;
    std::size_t shown = 0;
    for (std::uint32_t t = 0; t < tls_.size() && shown < 3; ++t) {
      const TimelineState& s = tls_[t];
      if (s.left == 0) continue;
      ++shown;
      const Program& p = *s.program;
      std::string pending;
      std::size_t listed = 0;
      for (std::uint32_t i = 0; i < p.nodes.size() && listed < 2; ++i) {
        if (s.waiting[i] == 0 && !s.done[i] && !is_ready(s, i)) {
          pending += fmt::format("{}node {} (id {}, {})", listed ? ", " : "", i, p.nodes[i].id,
                                 workload::to_string(p.nodes[i].kind));
          ++listed;
        }
      }
      std::string blocked;
      for (std::uint32_t i = 0; i < p.nodes.size() && listed == 0 && blocked.empty(); ++i) {
        if (s.waiting[i] > 0) {
          blocked = fmt::format(", node {} (id {}) waiting for {} dependenc{} that never ended", i,
                                p.nodes[i].id, s.waiting[i], s.waiting[i] == 1 ? "y" : "ies");
        }
      }
      out += fmt::format("{}rank {} ({}): {} node{} left{}{}{}", out.empty() ? "" : "; ",
                         g_.timelines[t].npu, p.source, s.left, s.left == 1 ? "" : "s",
                         listed ? ", waiting in " : "", pending, blocked);
    }
    return out;
  }

  void on_event(std::uint64_t tag) override {  // a compute or delay node ended
    const auto t = static_cast<std::uint32_t>(tag >> 32);
    const auto i = static_cast<std::uint32_t>(tag & 0xffffffffu);
    finish(t, i, true);
  }

 private:
  static bool serial(const Graph& g, std::uint32_t k) { return g.streams[k].serial; }

  void push_ready(TimelineState& s, std::uint32_t i) {
    const Node& nd = s.program->nodes[i];
    auto& h = s.ready[nd.stream];
    h.emplace_back(nd.id, i);
    if (g_.streams[nd.stream].lifo) {
      std::push_heap(h.begin(), h.end());
    } else {
      std::push_heap(h.begin(), h.end(), std::greater<>());
    }
  }

  bool is_ready(const TimelineState& s, std::uint32_t i) const {
    const auto& h = s.ready[s.program->nodes[i].stream];
    return std::any_of(h.begin(), h.end(), [i](const Ready& r) { return r.second == i; });
  }

  // Issue what is ready and has its stream, lowest id first over the streams' candidates.
  void issue(std::uint32_t t) {
    TimelineState& s = tls_[t];
    for (;;) {
      std::uint32_t best = kNoStream;
      for (std::uint32_t k = 0; k < s.ready.size(); ++k) {
        if (s.ready[k].empty() || (serial(g_, k) && s.running[k] > 0)) continue;
        if (best == kNoStream || s.ready[k].front() < s.ready[best].front()) best = k;
      }
      if (best == kNoStream) return;
      auto& h = s.ready[best];
      if (g_.streams[best].lifo) {
        std::pop_heap(h.begin(), h.end());
      } else {
        std::pop_heap(h.begin(), h.end(), std::greater<>());
      }
      const std::uint32_t i = h.back().second;
      h.pop_back();
      if (begin(t, i)) finish(t, i, false);
    }
  }

  // Start node i of timeline t; true if it finished at once.
  bool begin(std::uint32_t t, std::uint32_t i) {
    TimelineState& s = tls_[t];
    const Node& nd = s.program->nodes[i];
    const core::Time now = sim_.now();
    ++s.running[nd.stream];
    s.issued[i] = now;
    if (o_.record) result_.nodes[t][i].issued = now;
    if (nd.stream == 0 && serial(g_, 0)) account_wait(t, i);
    switch (nd.kind) {
      case NodeKind::Compute:
        sim_.schedule_in(nd.duration, *this, tag(t, i));
        return false;
      case NodeKind::Delay:
        if (nd.duration.ps == 0) return true;
        sim_.schedule_in(nd.duration, *this, tag(t, i));
        return false;
      case NodeKind::Collective:
        meet(t, i);
        return false;
      case NodeKind::Send: {
        ++result_.sends;
        ++result_.messages;
        result_.bytes += nd.bytes;
        const auto id = static_cast<std::uint32_t>(sends_.size());
        sends_.emplace_back(t, i);
        const std::string& name = g_.name_of(nd);
        const topology::NodeId src = npu(t, nd.src), dst = npu(t, nd.dst);
        session_.send(src, dst, core::Bytes{nd.bytes},
                      [this, id](runtime::LaunchId, const scheduler::CollectiveStats&) {
                        delivered(id);
                      },
                      name.empty() ? fmt::format("send {} -> {} ({})", src, dst, where(t, i))
                                   : name);
        return false;
      }
      case NodeKind::Recv: {
        const P2pKey key{npu(t, nd.src), npu(t, nd.dst), nd.tag, nd.bytes};
        auto& arrived = arrived_[key];
        if (arrived > 0) {
          --arrived;
          return true;
        }
        posted_[key].emplace_back(t, i);
        return false;
      }
      case NodeKind::MemLoad:
      case NodeKind::MemStore: {
        ++result_.memory_ops;
        if (ports_.empty()) {
          throw core::InputError(fmt::format(
              "{}: a memory node, but the machine has no remote memory "
              "(--remote-memory-configuration)",
              where(t, i)));
        }
        const topology::NodeId npu = g_.timelines[t].npu;
        std::size_t port = 0;
        if (o_.memory.kind == RemoteMemory::Kind::PerNode) port = npu / o_.memory.npus_per_node;
        if (o_.memory.kind == RemoteMemory::Kind::PerNpu) port = npu;
        auto& q = ports_[port];
        q.emplace_back(t, i);
        if (q.size() == 1) serve(port);
        return false;
      }
    }
    return true;
  }

  // Before main-stream node i starts: split the stream's idle time since it was last free over
  // the node's dependencies, in their order (each from when the one before it, or the stream,
  // was done).
  void account_wait(std::uint32_t t, std::uint32_t i) {
    TimelineState& s = tls_[t];
    const Node& nd = s.program->nodes[i];
    core::Time cursor = s.main_free;
    for (std::uint32_t k = 0; k < std::uint32_t{nd.data_deps} + nd.ctrl_deps; ++k) {
      const std::uint32_t d = s.program->deps[nd.deps_begin + k];
      const core::Time e = s.end[d];
      if (e <= cursor) continue;
      attribute(t, i, d, cursor, e, 0);
      cursor = e;
    }
    s.main_start = sim_.now();
  }

  // Records a wait, merged with the one before if it is the same dependency's and they touch.
  void wait(std::uint32_t t, std::uint32_t i, std::uint32_t d, core::Time from, core::Time to) {
    if (!o_.record || to <= from) return;
    auto& w = result_.waits;
    if (!w.empty() && w.back().timeline == t && w.back().node == i && w.back().dep == d &&
        (w.back().from == to || w.back().to == from)) {
      w.back().from = std::min(w.back().from, from);
      w.back().to = std::max(w.back().to, to);
      return;
    }
    w.push_back({t, i, d, from, to});
  }

  // The main stream of timeline t waited for node d over [lo, hi] (d ended at hi): d's own span
  // counts to d's category; before d started, what d waited for (its last dependency to end, if
  // that is communication too: a chain of collectives) counts to that one's, and so on back.
  void attribute(std::uint32_t t, std::uint32_t i, std::uint32_t d, core::Time lo, core::Time hi,
                 std::uint32_t depth) {
    TimelineState& s = tls_[t];
    const Node& dn = s.program->nodes[d];
    if (!is_comm(dn.kind) && dn.kind != NodeKind::Delay) return;  // compute elsewhere: idle
    const core::Time from = std::max(lo, s.issued[d]);
    if (is_comm(dn.kind) && hi > from) {
      result_.timelines[t].exposed[dn.category] += hi - from;
      wait(t, i, d, from, hi);
    }
    if (s.issued[d] <= lo || depth >= 64) return;
    // The dependency that ended last before d was issued.
    std::uint32_t last = workload::kNone;
    for (std::uint32_t k = 0; k < std::uint32_t{dn.data_deps} + dn.ctrl_deps; ++k) {
      const std::uint32_t p = s.program->deps[dn.deps_begin + k];
      if (last == workload::kNone || s.end[p] > s.end[last]) last = p;
    }
    if (last == workload::kNone || s.end[last] <= lo) {
      // d waited for its stream: that time is d's too.
      if (is_comm(dn.kind)) {
        result_.timelines[t].exposed[dn.category] += from - lo;
        wait(t, i, d, lo, from);
      }
      return;
    }
    if (s.end[last] < s.issued[d] && is_comm(dn.kind)) {  // between them: d's stream
      result_.timelines[t].exposed[dn.category] += s.issued[d] - std::max(lo, s.end[last]);
      wait(t, i, d, std::max(lo, s.end[last]), s.issued[d]);
    }
    attribute(t, i, last, lo, std::min(s.end[last], s.issued[d]), depth + 1);
  }

  topology::NodeId npu(std::uint32_t t, topology::NodeId n) const {
    return n == workload::kSelf ? g_.timelines[t].npu : n;
  }

  static std::uint64_t tag(std::uint32_t t, std::uint32_t i) {
    return (static_cast<std::uint64_t>(t) << 32) | i;
  }

  std::string where(std::uint32_t t, std::uint32_t i) const {
    const Program& p = *tls_[t].program;
    const Node& n = p.nodes[i];
    const std::string& name = g_.name_of(n);
    return fmt::format("{}: node {} (id {}{}{})", p.source, i, n.id, name.empty() ? "" : ", ",
                       name);
  }

  // Timeline t's collective node i joins its meeting; the last participant launches it.
  void meet(std::uint32_t t, std::uint32_t i) {
    const Node& nd = tls_[t].program->nodes[i];
    const std::uint32_t group = g_.timelines[t].group_of(nd.group);
    const std::uint32_t seq = tls_[t].sequence[group]++;
    const auto key = std::make_pair(group, seq);
    auto it = meetings_.find(key);
    if (it == meetings_.end()) {
      Meeting m;
      m.op = nd.collective;
      m.bytes = nd.bytes;
      m.algorithm = nd.algorithm;
      m.chunks = nd.chunks;
      m.group = group;
      m.first = where(t, i);
      m.label = g_.name_of(nd);  // empty: the Session names it by collective and algorithm
      it = meetings_.emplace(key, std::move(m)).first;
    } else if (it->second.op != nd.collective || it->second.bytes != nd.bytes) {
      throw core::InputError(fmt::format(
          "{}: {} of {} bytes, but the member it meets ({}) issued {} of {} bytes as collective "
          "{} of communicator {}",
          where(t, i), collective::to_string(nd.collective), nd.bytes, it->second.first,
          collective::to_string(it->second.op), it->second.bytes, seq, g_.groups[group].name));
    }
    Meeting& m = it->second;
    m.arrived.emplace_back(t, i);
    const Group& gr = g_.groups[group];
    const std::size_t need =
        gr.participants.empty() ? g_.timelines.size() : gr.participants.size();
    if (m.arrived.size() < need) return;
    Meeting done = std::move(m);
    meetings_.erase(it);
    launch(std::move(done));
  }

  const collective::AlgorithmChoice& choice(collective::Collective c, std::uint32_t a,
                                            const std::string& at) const {
    if (a != workload::kNone) return g_.algorithms[a];
    const auto it = o_.algorithms.find(c);
    if (it == o_.algorithms.end()) {
      throw core::InputError(fmt::format("{}: no algorithm for {}", at, collective::to_string(c)));
    }
    return it->second;
  }

  void launch(Meeting m) {
    ++result_.collectives;
    const auto id = static_cast<std::uint32_t>(running_.size());
    running_.push_back(std::move(m.arrived));
    const Group& gr = g_.groups[m.group];
    if (o_.ideal_time) {
      const auto [t, i] = running_.back().front();
      const core::Time d = o_.ideal_time(tls_[t].program->nodes[i], gr);
      sim_.schedule_in(d, ideal_done_, id);
      return;
    }
    // A group of a timing class: as long as the first of its kind took (workload/graph.hpp).
    std::optional<TimedKey> timed;
    if (gr.timing_class != workload::kNone || o_.each_kind_once) {
      // each_kind_once: the group its own class, after the generator's classes.
      const std::uint32_t cls = gr.timing_class != workload::kNone
                                    ? gr.timing_class
                                    : static_cast<std::uint32_t>(g_.groups.size()) + m.group;
      timed = TimedKey{cls, m.op, m.bytes, m.algorithm, m.chunks};
      if (const auto it = timed_.find(*timed); it != timed_.end()) {
        result_.messages += it->second.messages;
        result_.bytes += it->second.bytes;
        sim_.schedule_in(it->second.time, ideal_done_, id);
        return;
      }
    }
    const collective::AlgorithmChoice& a = choice(m.op, m.algorithm, m.first);
    runtime::CollectiveRequest req;
    req.collective = m.op;
    req.algorithm = a;
    req.size = core::Bytes{m.bytes};
    req.chunks = m.chunks ? m.chunks : o_.chunks;
    req.label = std::move(m.label);
    if (a.info->staged) {
      req.dims = gr.dims;
    } else {
      const std::uint32_t n = topo_.num_npus();
      if (gr.comms.size() != 1 || !gr.comms[0].is_identity(n)) req.groups = gr.comms;
    }
    const core::Time start = sim_.now();
    session_.launch(req, [this, id, start, timed](runtime::LaunchId,
                                                  const scheduler::CollectiveStats& st) {
      result_.messages += st.messages;
      result_.bytes += st.bytes;
      if (timed) timed_.emplace(*timed, Timed{sim_.now() - start, st.messages, st.bytes});
      ended(id);
    });
  }

  void ended(std::uint32_t id) {
    const auto members = std::move(running_[id]);  // finishing may start more collectives
    running_[id].clear();
    for (const auto& [t, i] : members) finish(t, i, true);
  }

  struct IdealDone final : core::EventHandler {
    explicit IdealDone(Runner& r) : self(r) {}
    void on_event(std::uint64_t id) override { self.ended(static_cast<std::uint32_t>(id)); }
    Runner& self;
  };

  // Send `id` has arrived: the receiver's side first (a posted receive ends, else the message
  // waits for one), then the send.
  void delivered(std::uint32_t id) {
    const auto [t, i] = sends_[id];
    const Node& nd = tls_[t].program->nodes[i];
    const P2pKey key{npu(t, nd.src), npu(t, nd.dst), nd.tag, nd.bytes};
    auto pit = posted_.find(key);
    if (pit != posted_.end() && !pit->second.empty()) {
      const auto [rt, ri] = pit->second.front();
      pit->second.pop_front();
      finish(rt, ri, true);
    } else {
      ++arrived_[key];
    }
    finish(t, i, true);
  }

  void serve(std::size_t port) {
    const auto [t, i] = ports_[port].front();
    const Node& nd = tls_[t].program->nodes[i];
    const core::Time d =
        o_.memory.latency + core::transfer_time(core::Bytes{nd.bytes}, o_.memory.bandwidth);
    sim_.schedule_in(d, memory_done_, port);
  }

  struct MemoryDone final : core::EventHandler {
    explicit MemoryDone(Runner& r) : self(r) {}
    void on_event(std::uint64_t port) override {
      auto& q = self.ports_[port];
      const auto [t, i] = q.front();
      q.pop_front();
      if (!q.empty()) self.serve(port);
      self.finish(t, i, true);
    }
    Runner& self;
  };

  // Node i of timeline t finished now; `go_on`: issue what that made ready.
  void finish(std::uint32_t t, std::uint32_t i, bool go_on) {
    TimelineState& s = tls_[t];
    const Node& nd = s.program->nodes[i];
    const core::Time now = sim_.now();
    TimelineTimes& r = result_.timelines[t];
    s.end[i] = now;
    s.done[i] = 1;
    --s.running[nd.stream];
    if (nd.stream == 0 && serial(g_, 0)) {
      r.busy[nd.category] += now - s.main_start;
      s.main_free = now;
    }
    if (nd.kind == NodeKind::Compute && !nd.cpu) r.compute += nd.duration;
    if (o_.record) {
      NodeTimes& nt = result_.nodes[t][i];
      nt.end = now;
      nt.order = order_++;
    }
    const Children& c = *s.children;
    for (std::uint32_t k = c.offset[i]; k < c.offset[i + 1]; ++k) {
      const std::uint32_t ch = c.list[k];
      if (--s.waiting[ch] == 0) push_ready(s, ch);
    }
    if (--s.left == 0) r.finish = now;
    if (go_on) issue(t);
  }

  const topology::Topology& topo_;
  core::Simulation& sim_;
  runtime::Session& session_;
  const Graph& g_;
  const WorkloadRunOptions& o_;
  std::vector<Children> children_;
  std::vector<TimelineState> tls_;
  WorkloadResult result_;
  std::uint64_t order_ = 0;
  absl::flat_hash_map<std::pair<std::uint32_t, std::uint32_t>, Meeting> meetings_;
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> running_;
  // Timing classes: (class, collective, bytes, algorithm, chunks) -> the first one's time.
  using TimedKey = std::tuple<std::uint32_t, collective::Collective, std::uint64_t, std::uint32_t,
                              std::uint32_t>;
  struct Timed {
    core::Time time;
    std::uint64_t messages = 0, bytes = 0;
  };
  std::map<TimedKey, Timed> timed_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> sends_;
  absl::flat_hash_map<P2pKey, std::deque<std::pair<std::uint32_t, std::uint32_t>>, P2pKeyHash>
      posted_;
  absl::flat_hash_map<P2pKey, std::uint64_t, P2pKeyHash> arrived_;
  std::vector<std::deque<std::pair<std::uint32_t, std::uint32_t>>> ports_;
  IdealDone ideal_done_{*this};
  MemoryDone memory_done_{*this};
};

// Every collective node's request must be buildable: fail before simulating, naming the node.
void check_collectives(const runtime::Session& session, const Graph& g,
                       const WorkloadRunOptions& o) {
  if (o.ideal_time || o.checked) return;
  const topology::Topology& topo = session.topology();
  // Distinct (group, collective, algorithm) checked once.
  absl::flat_hash_map<std::tuple<std::uint32_t, int, std::uint32_t, std::uint32_t>, bool> seen;
  for (std::size_t t = 0; t < g.timelines.size(); ++t) {
    const workload::Timeline& tl = g.timelines[t];
    const Program& p = g.programs[tl.program];
    for (std::size_t i = 0; i < p.nodes.size(); ++i) {
      const Node& nd = p.nodes[i];
      if (nd.kind != NodeKind::Collective) continue;
      const std::uint32_t group = tl.group_of(nd.group);
      if (!seen.emplace(std::tuple{group, static_cast<int>(nd.collective), nd.algorithm,
                                   nd.chunks},
                        true)
               .second) {
        continue;
      }
      const auto at = [&] {
        const std::string& name = g.name_of(nd);
        return fmt::format("{}: node {} (id {}{}{})", p.source, i, nd.id, name.empty() ? "" : ", ",
                           name);
      };
      const collective::AlgorithmChoice* a = nullptr;
      if (nd.algorithm != workload::kNone) {
        a = &g.algorithms[nd.algorithm];
      } else if (const auto it = o.algorithms.find(nd.collective); it != o.algorithms.end()) {
        a = &it->second;
      } else {
        throw core::InputError(
            fmt::format("{}: no algorithm for {}", at(), collective::to_string(nd.collective)));
      }
      const Group& gr = g.groups[group];
      runtime::CollectiveRequest req;
      req.collective = nd.collective;
      req.algorithm = *a;
      req.size = core::Bytes{1};
      req.chunks = nd.chunks ? nd.chunks : o.chunks;
      if (a->info->staged) {
        if (!gr.comms.empty()) {
          throw core::InputError(fmt::format(
              "{}: the hierarchical algorithm {} runs on dimensions, not on the communicators of "
              "{}",
              at(), a->label, gr.name));
        }
        req.dims = gr.dims;
      } else {
        if (!gr.dims.empty() && gr.comms.empty()) {
          throw core::InputError(fmt::format(
              "{}: group {} names dimensions, which only a hierarchical algorithm runs on; {} is "
              "flat",
              at(), gr.name, a->label));
        }
        if (gr.comms.size() != 1 || !gr.comms[0].is_identity(topo.num_npus())) {
          req.groups = gr.comms;
        }
      }
      try {
        runtime::check_request(topo, req);
      } catch (const core::InputError& e) {
        throw core::InputError(fmt::format("{}: {}", at(), e.what()));
      }
    }
  }
}

std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

}  // namespace

WorkloadResult run_workload(runtime::Session& session, const Graph& g,
                            const WorkloadRunOptions& options) {
  validate(g, session.topology().num_npus());
  check_collectives(session, g, options);
  Runner runner(session, g, options);
  runner.start();
  runtime::RunOptions ro;
  ro.max_time = options.max_time;
  ro.tick = options.tick;
  ro.tick_events = options.tick_events;
  session.run(ro);
  if (!runner.finished()) {
    const bool late = options.max_time && session.sim().pending() > 0;
    if (late) {
      throw core::SimulationError(fmt::format(
          "{}: not finished within the time bound of {} (--max-time, max_time); raise it or "
          "leave it out; at {}: {}",
          g.name, core::to_string(*options.max_time), core::to_string(session.now()),
          runner.describe_stuck()));
    }
    throw core::SimulationError(fmt::format(
        "{}: the ranks deadlocked at {}: {} (a receive no send matches, or a collective some "
        "member never issued)",
        g.name, core::to_string(session.now()), runner.describe_stuck()));
  }
  WorkloadResult r = std::move(runner.result());
  for (TimelineTimes& t : r.timelines) {
    r.total = std::max(r.total, t.finish);
    core::Time used;
    for (core::Time b : t.busy) used += b;
    for (core::Time e : t.exposed) used += e;
    t.idle = t.finish > used ? t.finish - used : core::Time{};
  }
  r.events = session.sim().events_processed();
  for (runtime::LaunchId i = 0; i < session.launches(); ++i) {
    r.stages += session.launch_stats(i).stages_started;
    r.chunk_queuing += session.launch_stats(i).chunk_queuing;
  }
  return r;
}

scheduler::WorkEstimate estimate_workload(const topology::Topology& topo, const Graph& g,
                                          const WorkloadRunOptions& o, std::uint64_t* moved,
                                          bool every_group) {
  scheduler::WorkEstimate e;
  e.links = topo.links().size();
  std::uint64_t bytes = 0;
  // Per (group, collective, algorithm): the closed-form bound of one launch (nullopt: cannot
  // run; the run names the node).
  struct Bound {
    scheduler::WorkEstimate one;
    std::vector<std::uint32_t> ranks;
    bool ok = false;
  };
  absl::flat_hash_map<std::tuple<std::uint32_t, int, std::uint32_t, std::uint32_t>, Bound> bounds;
  absl::flat_hash_map<std::tuple<std::uint32_t, int, std::uint32_t, std::uint64_t>, bool> programs;
  for (const workload::Timeline& tl : g.timelines) {
    const Program& p = g.programs[tl.program];
    for (const Node& nd : p.nodes) {
      if (nd.kind == NodeKind::Send) {
        e.messages = sat_add(e.messages, 1);
        bytes = sat_add(bytes, nd.bytes);
        continue;
      }
      if (nd.kind != NodeKind::Collective || o.ideal_time) continue;
      const std::uint32_t group = tl.group_of(nd.group);
      const Group& gr = g.groups[group];
      const auto key = std::tuple{group, static_cast<int>(nd.collective), nd.algorithm, nd.chunks};
      auto b = bounds.find(key);
      if (b == bounds.end()) {
        Bound nb;
        const collective::AlgorithmChoice* a = nullptr;
        if (nd.algorithm != workload::kNone) {
          a = &g.algorithms[nd.algorithm];
        } else if (const auto it = o.algorithms.find(nd.collective); it != o.algorithms.end()) {
          a = &it->second;
        }
        const std::vector<collective::Communicator> comms =
            gr.comms.empty() ? std::vector<collective::Communicator>{collective::whole(topo)}
                             : gr.comms;
        for (const auto& c : comms) nb.ranks.push_back(c.size());
        if (a) {
          try {
            nb.one = scheduler::bound_work(*a, topo, comms, nd.collective,
                                           nd.chunks ? nd.chunks : o.chunks, every_group);
            nb.ok = true;
          } catch (const core::InputError&) {
          }
        }
        b = bounds.emplace(key, std::move(nb)).first;
      }
      if (!b->second.ok) continue;
      const std::uint64_t share =
          gr.participants.empty() ? g.timelines.size() : gr.participants.size();
      e.messages = sat_add(e.messages, (b->second.one.messages + share - 1) / share);
      std::uint64_t moved_here = 0;
      for (std::uint32_t r : b->second.ranks) {
        moved_here = sat_add(moved_here,
                             scheduler::moved_bytes(nd.collective, r, core::Bytes{nd.bytes}));
      }
      bytes = sat_add(bytes, moved_here / share);
      if (programs
              .emplace(std::tuple{group, static_cast<int>(nd.collective), nd.algorithm, nd.bytes},
                       true)
              .second) {
        e.stored_ops = sat_add(e.stored_ops, b->second.one.stored_ops);
      }
    }
  }
  if (moved) *moved = bytes;
  return e;
}

}  // namespace collsim::jobs
