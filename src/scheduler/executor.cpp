#include "scheduler/executor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <span>
#include <stdexcept>
#include <vector>

#include "collective/ir/progress.hpp"
#include "core/error.hpp"
#include "core/slot_pool.hpp"

namespace collsim::scheduler {

using collective::Lane;
using collective::Op;
using collective::Rank;

// One running collective: the Progress of its program, its channels and its messages in flight.
// It is the DeliveryHandler of its own messages (the tag is a slot in its pool).
class Executor::Run final : public collective::Progress::Hooks, public network::DeliveryHandler {
 public:
  Run(Executor& ex, CollectiveId id, const collective::Program& p, DoneCallback done,
      std::string label)
      : ex_(ex),
        id_(id),
        p_(p),
        done_(std::move(done)),
        label_(std::move(label)),
        progress_(p, *this) {
    stats_.start = stats_.end = ex.sim_.now();
  }

  void begin() {
    if (ex_.observer_) ex_.observer_->on_collective_start(id_, p_, label_);
    if (p_.routes) {
      network::Backend* net = ex_.endpoint_.network();
      if (net == nullptr) {
        throw core::InputError(fmt::format(
            "algorithm {}: its messages take reserved paths, which endpoint {} cannot pass to "
            "the network",
            p_.algorithm, ex_.endpoint_.name()));
      }
      net->pin_routes(p_.routes);
    }
    if (p_.in_network_switch != collective::kNoSwitch) begin_in_network();
    if (network::Backend* net = ex_.endpoint_.network(); net != nullptr && p_.step_schedule && net->wants_step_plan()) {
      net->set_step_plan(id_, step_plan());
    }
    progress_.pump_all();
    check_done();  // a program with nothing to do
  }

  bool finished() const { return finished_; }
  const CollectiveStats& stats() const { return stats_; }
  const std::string& label() const { return label_; }
  std::string describe_stuck() const { return progress_.describe_stuck(); }

  bool can_send(Lane, const Op&, std::uint32_t channel) override {
    return channel >= busy_.size() || !busy_[channel];
  }

  void on_send(Lane l, std::uint32_t op_index, std::uint32_t seq, std::uint32_t channel) override {
    const Op op = p_.op(l, op_index);
    if (op.kind != Op::Kind::Send) {
      send_switch(l, op_index, op, seq, channel);
      return;
    }
    const std::uint32_t slot = flight_.acquire();
    InFlight& f = flight_[slot];
    f.src = l;
    f.dst = op.peer;
    f.op = op_index;
    f.seq = seq;
    f.channel = channel;
    f.kind = InFlight::Kind::Send;
    f.id = ex_.next_message_++;
    if (channel >= busy_.size()) busy_.resize(channel + 1, 0);
    busy_[channel] = 1;
    endpoint::Message m;
    m.src = p_.npu(p_.rank_of(l));
    m.dst = p_.npu(op.peer);
    m.bytes = p_.bytes(op.first, op.count);
    m.attrs.priority = op.step;
    m.attrs.flow = id_;
    m.attrs.path = path_of(l);
    m.reduce = op.reduce;
    ++stats_.messages;
    stats_.bytes += m.bytes.count;
    if (ex_.observer_) ex_.observer_->on_send(info(f));
    ex_.endpoint_.send(m, *this, slot);
  }

  void on_recv_done(Lane l, std::uint32_t op_index, Lane, std::uint32_t) override {
    stats_.end = ex_.sim_.now();
    if (ex_.observer_) ex_.observer_->on_recv_done(id_, l, op_index);
  }

  void on_group_ready(Lane dst, std::uint32_t block) override {
    // The switch merges every rank's contribution and forwards one result to dst.
    const std::uint32_t slot = flight_.acquire();
    InFlight& f = flight_[slot];
    f.src = dst;
    f.dst = p_.rank_of(dst);
    f.op = progress_.group_op(block, f.dst);
    f.seq = block;
    f.channel = 0;
    f.kind = InFlight::Kind::Group;
    f.id = ex_.next_message_++;
    const Op op = p_.op(dst, f.op);
    network::GroupMessage g;
    g.kind = network::GroupMessage::Kind::Reduce;
    g.root = p_.npu(f.dst);
    g.members = members(f.dst);
    g.switch_node = p_.switch_of(f.dst);
    g.bytes = p_.bytes(op.first, op.count);
    if (ex_.observer_) ex_.observer_->on_send(info(f));
    network_->send_group(g, *this, slot, attrs_of(dst, op));
  }

  void on_injected(std::uint64_t tag) override {
    const InFlight& f = flight_[tag];
    if (f.kind == InFlight::Kind::Group) {
      // Every contribution has left its rank: their channels are free.
      const InFlight g = f;
      for (Rank r : progress_.domain(g.dst)) busy_[progress_.group_channel(g.seq, r)] = 0;
      if (ex_.observer_) ex_.observer_->on_injected(info(g));
      for (Rank r : progress_.domain(g.dst)) progress_.pump(p_.lane(r, p_.stream_of(g.src)));
      check_done();
      return;
    }
    busy_[f.channel] = 0;
    if (ex_.observer_) ex_.observer_->on_injected(info(f));
    progress_.pump(f.src);
    check_done();
  }

  void on_delivered(std::uint64_t tag) override {
    const InFlight f = flight_[tag];
    flight_.release(static_cast<std::uint32_t>(tag));
    if (ex_.observer_) ex_.observer_->on_delivered(info(f));
    if (f.kind == InFlight::Kind::Send) {
      progress_.arrive(f.src, f.dst, f.op, f.seq);
    } else if (f.kind == InFlight::Kind::Group) {
      progress_.arrive_group(f.src, f.seq);
    } else {
      progress_.arrive_multicast(f.src, f.op, f.seq);
    }
    check_done();
  }

 private:
  // Kept small (the hot path copies it); observers get the full MessageInfo, rebuilt from it.
  struct InFlight {
    enum class Kind : std::uint8_t { Send, Multicast, Group };
    Lane src = 0;  ///< Group: the destination lane
    Rank dst = 0;
    std::uint32_t op = 0;
    std::uint32_t seq = 0;  ///< Multicast and Group: the Progress block
    std::uint32_t channel = 0;
    Kind kind = Kind::Send;
    std::uint64_t id = 0;
  };

  // A program with in-network ops needs the network itself, and one that moves group messages.
  void begin_in_network() {
    network_ = ex_.endpoint_.network();
    if (network_ == nullptr) {
      throw core::InputError(fmt::format(
          "algorithm {}: its reductions in the switch need the network, which endpoint {} does "
          "not expose",
          p_.algorithm, ex_.endpoint_.name()));
    }
    if (!network_->offers_in_network()) {
      throw core::InputError(fmt::format(
          "algorithm {}: the {} backend has no in-network reduction or multicast; use the flow "
          "or analytical backend",
          p_.algorithm, network_->name()));
    }
    // Each domain's NPUs, contiguous (Progress::domain order); member_start_[r]: r's domain.
    rank_npus_.clear();
    member_start_.assign(p_.num_ranks, 0);
    for (Rank r = 0; r < p_.num_ranks; ++r) {
      const std::span<const Rank> d = progress_.domain(r);
      if (d.front() == r) {
        member_start_[r] = static_cast<std::uint32_t>(rank_npus_.size());
        for (Rank m : d) rank_npus_.push_back(p_.npu(m));
      } else {
        member_start_[r] = member_start_[d.front()];
      }
    }
  }

  // The NPUs of rank r's in-network domain (its switch's ranks).
  std::span<const topology::NodeId> members(Rank r) const {
    return {rank_npus_.data() + member_start_[r], progress_.domain(r).size()};
  }

  network::MessageAttributes attrs_of(Lane l, const Op& op) const {
    network::MessageAttributes a;
    a.priority = op.step;
    a.flow = id_;
    a.path = path_of(l);
    return a;
  }

  // A SwitchReduce (its group starts in on_group_ready) or a Multicast.
  void send_switch(Lane l, std::uint32_t op_index, const Op& op, std::uint32_t seq,
                   std::uint32_t channel) {
    if (channel >= busy_.size()) busy_.resize(channel + 1, 0);
    busy_[channel] = 1;
    ++stats_.messages;
    stats_.bytes += p_.bytes(op.first, op.count).count;
    if (op.kind != Op::Kind::Multicast) return;
    const std::uint32_t slot = flight_.acquire();
    InFlight& f = flight_[slot];
    f.src = l;
    f.dst = p_.rank_of(l);
    f.op = op_index;
    f.seq = seq;
    f.channel = channel;
    f.kind = InFlight::Kind::Multicast;
    f.id = ex_.next_message_++;
    network::GroupMessage g;
    g.kind = network::GroupMessage::Kind::Multicast;
    g.root = p_.npu(p_.rank_of(l));
    g.members = members(p_.rank_of(l));
    g.switch_node = p_.switch_of(p_.rank_of(l));
    g.bytes = p_.bytes(op.first, op.count);
    if (ex_.observer_) ex_.observer_->on_send(info(f));
    network_->send_group(g, *this, slot, attrs_of(l, op));
  }

  MessageInfo info(const InFlight& f) const {
    const Op op = p_.op(f.src, f.op);
    MessageInfo m;
    m.collective = id_;
    m.id = f.id;
    m.src = f.src;
    m.dst = f.dst;
    m.src_npu = p_.npu(p_.rank_of(f.src));
    m.dst_npu = p_.npu(f.dst);
    m.op = f.op;
    m.bytes = p_.bytes(op.first, op.count);
    m.attrs.priority = op.step;
    m.attrs.flow = id_;
    m.attrs.path = path_of(f.src);
    m.reduce = op.reduce;
    return m;
  }

  // What each NPU sends in each time step (Op.step), for a strict-schedule NI.
  network::StepPlan step_plan() const {
    network::StepPlan plan;
    std::uint32_t npus = 0;
    for (Rank r = 0; r < p_.num_ranks; ++r) npus = std::max(npus, p_.npu(r) + 1);
    plan.sends.assign(npus, {});
    for (Lane l = 0; l < p_.num_lanes(); ++l) {
      auto& row = plan.sends[p_.npu(p_.rank_of(l))];
      for (std::uint32_t i = 0; i < p_.num_ops(l); ++i) {
        const Op op = p_.op(l, i);
        if (!op.is_send() || op.step == 0) continue;
        if (row.size() <= op.step) row.resize(op.step + 1, 0);
        ++row[op.step];
        plan.flow_bytes = std::max(plan.flow_bytes, p_.bytes(op.first, op.count).count);
      }
    }
    return plan;
  }

  // A multi-stream program's stream s asks for parallel path s (a local switch of a package:
  // topology.hpp LocalSwitchRule), so striped streams spread over the switches.
  std::uint8_t path_of(Lane l) const {
    return p_.streams > 1 ? static_cast<std::uint8_t>(l % p_.streams % topology::kAnyPath)
                          : topology::kAnyPath;
  }

  void check_done() {
    if (finished_ || !progress_.finished()) return;
    finished_ = true;
    --ex_.unfinished_;
    ex_.stats_[id_] = stats_;
    ex_.release_later(id_);
    if (ex_.observer_) ex_.observer_->on_collective_end(id_, stats_);
    if (done_) done_(id_, stats_);
  }

  Executor& ex_;
  CollectiveId id_;
  const collective::Program& p_;
  DoneCallback done_;
  std::string label_;
  collective::Progress progress_;
  std::vector<std::uint8_t> busy_;  // by channel id: still serializing its last message
  network::Backend* network_ = nullptr;      // in-network ops only
  std::vector<topology::NodeId> rank_npus_;  // in-network ops only: domains' NPUs
  std::vector<std::uint32_t> member_start_;  // in-network ops only: rank -> its domain's start
  core::SlotPool<InFlight> flight_;
  CollectiveStats stats_;
  bool finished_ = false;
};

Executor::Executor(core::Simulation& sim, endpoint::Endpoint& endpoint)
    : sim_(sim), endpoint_(endpoint) {}

Executor::~Executor() = default;

CollectiveId Executor::start(const collective::Program& program, DoneCallback on_done,
                             std::string label) {
  const auto id = static_cast<CollectiveId>(runs_.size());
  if (label.empty()) label = fmt::format("{} {}", to_string(program.collective), program.algorithm);
  runs_.push_back(std::make_unique<Run>(*this, id, program, std::move(on_done), std::move(label)));
  stats_.emplace_back();
  ++unfinished_;
  // begin() may finish the run (nothing to do) and its callback start others: keep no reference.
  runs_[id]->begin();
  return id;
}

void Executor::release_later(CollectiveId id) {
  released_.push_back(id);
  if (!reaper_scheduled_) {
    reaper_scheduled_ = true;
    sim_.schedule_in(core::Time{}, reaper_, 0);
  }
}

void Executor::Reaper::on_event(std::uint64_t) {
  // An event of its own: no method of a finished run is on the stack here.
  ex.reaper_scheduled_ = false;
  for (CollectiveId id : ex.released_) ex.runs_[id].reset();
  ex.released_.clear();
}

bool Executor::finished(CollectiveId id) const { return !runs_.at(id) || runs_[id]->finished(); }
const CollectiveStats& Executor::stats(CollectiveId id) const {
  return runs_.at(id) ? runs_[id]->stats() : stats_[id];
}
const std::string& Executor::label(CollectiveId id) const {
  static const std::string finished;
  return runs_.at(id) ? runs_[id]->label() : finished;
}

std::string Executor::describe_stuck(std::size_t limit) const {
  std::string s;
  std::size_t shown = 0, stuck = 0;
  for (const auto& r : runs_) {
    if (!r || r->finished()) continue;
    ++stuck;
    if (shown == limit) continue;
    ++shown;
    if (!s.empty()) s += "; ";
    // One collective alone needs no label: the caller names it.
    if (runs_.size() > 1) s += r->label() + ": ";
    s += r->describe_stuck();
  }
  if (stuck > shown) s += fmt::format("; and {} more unfinished collectives", stuck - shown);
  return s;
}

void run_until_finished(core::Simulation& sim, Executor& executor, const network::Backend& backend,
                        core::Time start, const ExecuteOptions& options) {
  const auto bound = options.max_time ? std::optional(start + *options.max_time) : std::nullopt;
  core::Simulation::RunResult run;
  if (!options.tick) {
    run = sim.run(bound);
  } else {
    // A tick every tick_events events, and at least every 100 ms of wall time: with slow events
    // (a flow solve over long routes) 2^20 of them may take minutes, and the progress line and
    // Ctrl-C wait for the tick. Checking the clock every 4096 events costs nothing measurable.
    constexpr std::uint64_t kSlice = 4096;
    constexpr auto kPeriod = std::chrono::milliseconds(100);
    auto last = std::chrono::steady_clock::now();
    std::uint64_t since = 0;
    for (;;) {
      run = sim.run(bound, std::min(kSlice, std::max<std::uint64_t>(1, options.tick_events - since)));
      if (!run.budget) break;
      since += run.events;
      const auto now = std::chrono::steady_clock::now();
      if (since >= options.tick_events || now - last >= kPeriod) {
        options.tick();
        since = 0;
        last = now;
      }
    }
  }
  if (executor.all_finished()) return;
  const std::string what =
      executor.size() == 1 ? executor.label(0) : fmt::format("{} collectives", executor.size());
  if (!run.drained) {
    throw core::SimulationError(fmt::format("{}: not finished within the time bound of {}; {}",
                                            what, core::to_string(*options.max_time),
                                            executor.describe_stuck()));
  }
  const std::string blocked = backend.describe_blocked();
  throw core::SimulationError(
      fmt::format("{}: deadlock at {}; {}{}", what, core::to_string(sim.now() - start),
                  executor.describe_stuck(), blocked.empty() ? "" : "; network: " + blocked));
}

}  // namespace collsim::scheduler
