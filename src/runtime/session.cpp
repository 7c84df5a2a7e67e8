#include "runtime/session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "collective/point_to_point.hpp"
#include "core/error.hpp"

namespace collsim::runtime {

using collective::Communicator;
using collective::Program;
using scheduler::CollectiveStats;

bool is_staged(const CollectiveRequest& r) { return r.algorithm.info && r.algorithm.info->staged; }

namespace {

bool whole_platform(const topology::Topology& topo, const std::vector<Communicator>& groups) {
  return groups.empty() || (groups.size() == 1 && groups[0].is_identity(topo.num_npus()));
}

scheduler::HierarchicalSpec staged_spec(const topology::Topology& topo,
                                        const CollectiveRequest& r) {
  if (!whole_platform(topo, r.groups)) {
    throw core::InputError(fmt::format("algorithm {} runs on the whole platform; use group all",
                                       r.algorithm.info->name));
  }
  auto spec = scheduler::spec_from_choice(r.algorithm, r.collective, r.size, r.chunks);
  spec.dims = r.dims;
  return spec;
}

Program build(const topology::Topology& topo, const CollectiveRequest& r, const Communicator& g,
              core::Bytes size) {
  return g.is_default(topo.num_npus())
             ? collective::build_program(r.algorithm, topo, r.collective, size, r.chunks)
             : collective::build_program(r.algorithm, topo, g, r.collective, size, r.chunks);
}

std::string algorithm_key(const collective::AlgorithmChoice& a) {
  std::string k = a.info ? a.info->name : "";
  for (const auto& [key, value] : a.params) k += fmt::format(":{}={}", key, value);
  return k;
}

}  // namespace

void check_request(const topology::Topology& topo, const CollectiveRequest& r) {
  if (!r.algorithm.info) throw core::InputError("collective: no algorithm");
  if (is_staged(r)) {
    auto spec = staged_spec(topo, r);
    spec.size = core::Bytes{1};
    scheduler::prepare(topo, spec);
    return;
  }
  if (r.groups.empty()) {
    build(topo, r, collective::whole(topo), core::Bytes{1});
    return;
  }
  for (const Communicator& g : r.groups) build(topo, r, g, core::Bytes{1});
}

// Fans executor events out to the Session's observers.
class Session::Observers final : public scheduler::ExecutionObserver {
 public:
  std::vector<scheduler::ExecutionObserver*> list;
  void on_collective_start(scheduler::CollectiveId id, const Program& p,
                           const std::string& l) override {
    for (auto* o : list) o->on_collective_start(id, p, l);
  }
  void on_send(const scheduler::MessageInfo& m) override {
    for (auto* o : list) o->on_send(m);
  }
  void on_injected(const scheduler::MessageInfo& m) override {
    for (auto* o : list) o->on_injected(m);
  }
  void on_delivered(const scheduler::MessageInfo& m) override {
    for (auto* o : list) o->on_delivered(m);
  }
  void on_recv_done(scheduler::CollectiveId id, collective::Lane l, std::uint32_t op) override {
    for (auto* o : list) o->on_recv_done(id, l, op);
  }
  void on_collective_end(scheduler::CollectiveId id, const CollectiveStats& s) override {
    for (auto* o : list) o->on_collective_end(id, s);
  }
  void on_stage(const scheduler::StageInfo& s) override {
    for (auto* o : list) o->on_stage(s);
  }
  bool watches_messages() const override {
    return std::any_of(list.begin(), list.end(), [](auto* o) { return o->watches_messages(); });
  }
};

Session::Session(const MachineSpec& spec)
    : topo_(*spec.topology),
      allow_symmetry_(spec.group_symmetry),
      ideal_endpoint_((spec.endpoint == nullptr ||
                       spec.endpoint->name == endpoint::kDefaultEndpoint) &&
                      !spec.endpoint_params.ideal_dma) {
  allow_rotation_ = spec.rotation_symmetry;
  rotation_.broken = "not asked for";
  backend_ = network::make_backend(*spec.backend, sim_, topo_, spec.backend_options, "backend");
  endpoint_ = endpoint::endpoint_or_default(spec.endpoint)
                  .make(sim_, *backend_, topo_, spec.endpoint_params);
  executor_ = std::make_unique<scheduler::Executor>(sim_, *endpoint_);
  stager_ = std::make_unique<scheduler::Stager>(*executor_);
  observers_ = std::make_unique<Observers>();
  symmetry_.broken = "no hierarchical collective";
}

Session::~Session() = default;

void Session::add_observer(scheduler::ExecutionObserver* o) {
  if (!o) return;
  observers_->list.push_back(o);
  // The executor tests its observer on every message: nobody watching costs nothing.
  executor_->set_observer(observers_.get());
}

void Session::remove_observer(scheduler::ExecutionObserver* o) {
  auto& l = observers_->list;
  l.erase(std::remove(l.begin(), l.end(), o), l.end());
  executor_->set_observer(l.empty() ? nullptr : observers_.get());
}

const std::vector<Program>& Session::programs(const CollectiveRequest& r) {
  Key key{algorithm_key(r.algorithm), static_cast<int>(r.collective), r.size.count, r.chunks, {}};
  for (const Communicator& g : r.groups) std::get<4>(key).push_back(g.npus);
  auto it = programs_.find(key);
  if (it != programs_.end()) return it->second;
  std::vector<Program> ps;
  if (r.groups.empty()) {
    ps.push_back(build(topo_, r, collective::whole(topo_), r.size));
  } else {
    ps.reserve(r.groups.size());
    for (const Communicator& g : r.groups) ps.push_back(build(topo_, r, g, r.size));
  }
  return programs_.emplace(std::move(key), std::move(ps)).first->second;
}

LaunchId Session::launch(const CollectiveRequest& r, Done on_done) {
  if (!r.algorithm.info) throw core::InputError("collective: no algorithm");
  const auto id = static_cast<LaunchId>(launches_.size());
  launches_.emplace_back();
  launches_.back().stats.start = launches_.back().stats.end = sim_.now();
  done_.push_back(std::move(on_done));
  remaining_.push_back(0);
  staged_.emplace_back();
  if (is_staged(r)) {
    start_staged(id, r);
  } else {
    start_flat(id, r);
  }
  return id;
}

void Session::start_staged(LaunchId id, const CollectiveRequest& r) {
  if (rotation_.holds()) throw std::logic_error("Session: a collective beside a ring stand-in");
  staged_launched_ = true;
  scheduler::HierarchicalSpec spec = staged_spec(topo_, r);
  if (!queues_) {
    // Decided once, at the first hierarchical collective: the dimension queues are shared by
    // every hierarchical collective of the run (the first one's intra policy and active_chunks).
    if (!allow_symmetry_) {
      symmetry_.broken = "the driver runs other traffic beside the hierarchical collectives";
    } else if (flat_launched_) {
      symmetry_.broken = "flat collectives share the run";
    } else if (spec.all_groups) {
      symmetry_.broken = "groups=all";
    } else {
      symmetry_ = scheduler::run_symmetry(topo_, *backend_, *executor_);
    }
    queues_ = std::make_unique<scheduler::DimensionQueues>(topo_.dimensions().size(), spec.intra,
                                                           spec.active_chunks, symmetry_.holds());
  } else if (symmetry_.holds() && spec.all_groups) {
    throw std::logic_error("Session: a groups=all collective after one-group ones");
  }
  ++staged_unfinished_;
  staged_[id] = std::make_unique<scheduler::HierarchicalCollective>(topo_, *executor_,
                                                                    std::move(spec), queues_.get());
  staged_[id]->start([this, id](const CollectiveStats& s) {
    --staged_unfinished_;
    finish(id, s);
  });
}

void Session::start_flat(LaunchId id, const CollectiveRequest& r) {
  if (symmetry_.holds()) {
    // One group stands for all only while nothing else uses the links (group_symmetry.hpp).
    throw std::logic_error("Session: a flat collective beside one-group hierarchical ones");
  }
  if (rotation_.holds()) throw std::logic_error("Session: a collective beside a ring stand-in");
  const bool first = !flat_launched_ && launches_.size() == 1;
  flat_launched_ = true;
  const std::vector<Program>& ps = programs(r);
  remaining_[id] = static_cast<std::uint32_t>(ps.size());
  const std::string label =
      r.label.empty() ? fmt::format("{} {}", collective::to_string(r.collective), r.algorithm.label)
                      : r.label;
  // A flat ring alone on the machine: three ranks stand for all where every rank would do the
  // same (scheduler/rotation_symmetry.hpp); messages and bytes scaled back to every rank's.
  if (allow_rotation_ && first && ps.size() == 1 && ideal_endpoint_ &&
      !(executor_->observer() && executor_->observer()->watches_messages()) &&
      scheduler::one_group_blocker(*backend_, *endpoint_).empty()) {
    rotation_ = scheduler::rotation_symmetry(ps[0], topo_);
  }
  if (rotation_.holds()) {
    proxy_ = std::make_unique<Program>(scheduler::rotation_proxy(ps[0]));
    messages_expected_ += proxy_->total_ops() / 2;  // one receive per send
    const std::uint64_t n = rotation_.ranks, m = scheduler::kRotationProxyRanks;
    stager_->start(
        *proxy_,
        [this, id, n, m](scheduler::CollectiveId, const CollectiveStats& s) {
          LaunchStats& l = launches_[id];
          l.stats.end = std::max(l.stats.end, s.end);
          l.stats.messages += s.messages / m * n;
          l.stats.bytes += s.bytes / m * n;
          if (--remaining_[id] == 0) finish(id, l.stats);
        },
        label);
    return;
  }
  for (std::size_t g = 0; g < ps.size(); ++g) {
    const Program& p = ps[g];
    messages_expected_ += p.total_ops() / 2;
    // An engine with SRAM runs the collective in chunks (staging.hpp): the same request at the
    // chunk's size, on the same communicator.
    scheduler::ChunkProgram chunk = [this, r, g](core::Bytes size) -> const Program& {
      CollectiveRequest c = r;
      c.size = size;
      return programs(c)[g];
    };
    stager_->start(
        p,
        [this, id](scheduler::CollectiveId, const CollectiveStats& s) {
          LaunchStats& l = launches_[id];
          l.stats.end = std::max(l.stats.end, s.end);
          l.stats.messages += s.messages;
          l.stats.bytes += s.bytes;
          if (--remaining_[id] == 0) finish(id, l.stats);
        },
        label, r.size, std::move(chunk));
  }
}

LaunchId Session::send(topology::NodeId src, topology::NodeId dst, core::Bytes bytes, Done on_done,
                       std::string label) {
  const std::uint32_t n = topo_.num_npus();
  if (src >= n || dst >= n) {
    throw core::InputError(fmt::format("send: NPU {} -> {} on a platform of {} NPUs", src, dst, n));
  }
  if (symmetry_.holds() || rotation_.holds()) {
    throw std::logic_error("Session: a point-to-point message beside one-group collectives");
  }
  flat_launched_ = true;
  auto it = sends_.find({src, dst, bytes.count});
  if (it == sends_.end()) {
    it = sends_.emplace(std::tuple{src, dst, bytes.count},
                        collective::point_to_point(src, dst, bytes))
             .first;
  }
  const auto id = static_cast<LaunchId>(launches_.size());
  launches_.emplace_back();
  launches_.back().stats.start = launches_.back().stats.end = sim_.now();
  done_.push_back(std::move(on_done));
  remaining_.push_back(1);
  staged_.emplace_back();
  if (label.empty()) label = fmt::format("send {} {}->{}", core::to_string(bytes), src, dst);
  messages_expected_ += it->second.total_ops() / 2;
  executor_->start(
      it->second,
      [this, id](scheduler::CollectiveId, const CollectiveStats& s) {
        LaunchStats& l = launches_[id];
        l.stats.end = s.end;
        l.stats.messages = s.messages;
        l.stats.bytes = s.bytes;
        remaining_[id] = 0;
        finish(id, l.stats);
      },
      std::move(label));
  return id;
}

void Session::finish(LaunchId id, const CollectiveStats& s) {
  LaunchStats& l = launches_[id];
  if (staged_[id]) {
    const auto& h = *staged_[id];
    l.stats = s;
    l.activity = h.activity();
    l.stages_started = h.stages_started();
    l.chunk_queuing = h.chunk_queuing();
  }
  l.finished = true;
  if (done_[id]) done_[id](id, l.stats);
}

void Session::run(const RunOptions& options) {
  scheduler::ExecuteOptions eo;
  eo.max_time = options.max_time;
  eo.tick = options.tick;
  eo.tick_events = options.tick_events;
  scheduler::run_until_finished(sim_, *executor_, *backend_, core::Time{0}, eo);
}

SessionReport Session::report() const {
  SessionReport r;
  r.links = symmetry_.holds()  ? scheduler::expand_link_stats(backend_->link_stats(), symmetry_)
            : rotation_.holds() ? scheduler::expand_rotation_link_stats(backend_->link_stats(),
                                                                        rotation_)
                                : backend_->link_stats();
  r.backend_metrics = backend_->summary();
  r.resources = backend_->resources();
  r.endpoint = endpoint_->stats();
  r.events = sim_.events_processed();
  return r;
}

}  // namespace collsim::runtime
