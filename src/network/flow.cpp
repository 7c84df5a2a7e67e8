#include "network/flow.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "network/backend.hpp"

namespace collsim::network {
namespace {

// Picoseconds to move `bytes` at `rate`, rounded up (never early). A whole number of bytes (every
// flow until its rate first changes, so every uncontended message) takes core::transfer_time's
// exact value, the same as the analytical and queue backends on every platform; only the
// fractional remainder of a flow whose rate changed is computed in floating point.
core::Time time_for(double bytes, double rate) {
  if (bytes <= 0) return core::Time{0};
  if (bytes < 0x1p53 && bytes == std::floor(bytes)) {
    return core::transfer_time(core::Bytes{static_cast<std::uint64_t>(bytes)},
                               core::Bandwidth{rate});
  }
  return core::Time{static_cast<std::int64_t>(
      std::ceil(static_cast<long double>(bytes) * 1e12L / static_cast<long double>(rate)))};
}

}  // namespace

FlowBackend::FlowBackend(core::Simulation& sim, const topology::Topology& topo,
                         const BackendOptions& opt)
    : Backend(topo),
      sim_(sim),
      topo_(topo),
      num_links_(static_cast<std::uint32_t>(topo.links().size())),
      multipath_(topo, opt.multipath, opt.ecmp_seed, "flow") {
  for (const topology::Link& l : topo.links()) capacity_.push_back(l.bandwidth.bytes_per_s);
  // The NI policy (backend.hpp NiPolicy): fifo and round-robin give the NPU an NI of its fastest
  // link's rate (unless capped explicitly), fifo one message at a time through it.
  const NiPolicy policy = opt.ni_policy.value_or(NiPolicy::AllAtOnce);
  fifo_ = policy == NiPolicy::Fifo;
  if (fifo_ && opt.multipath == Multipath::SprayPacket) {
    throw core::InputError(
        "flow backend option multipath: spray-packet splits a message into sub-flows, which "
        "ni_policy fifo would send one after another; use ni_policy all-at-once or round-robin");
  }
  const bool ni_inject = policy == NiPolicy::RoundRobin;
  const bool ni_eject = policy != NiPolicy::AllAtOnce;
  inject_cap_ = opt.npu_injection_bandwidth.has_value() || ni_inject;
  eject_cap_ = opt.npu_ejection_bandwidth.has_value() || ni_eject;
  const auto fastest = [&](topology::NodeId npu) {
    double bw = 0;
    for (topology::LinkId l : topo.out_links(npu)) {
      bw = std::max(bw, topo.links()[l].bandwidth.bytes_per_s);
    }
    return bw > 0 ? bw : std::numeric_limits<double>::infinity();
  };
  for (int side = 0; side < 2; ++side) {
    const auto& cap = side == 0 ? opt.npu_injection_bandwidth : opt.npu_ejection_bandwidth;
    if (!(side == 0 ? inject_cap_ : eject_cap_)) continue;
    for (topology::NodeId npu = 0; npu < topo.num_npus(); ++npu) {
      capacity_.push_back(cap ? cap->bytes_per_s : fastest(npu));
    }
  }
  // In-network ports (topology.hpp SwitchReduction): each NPU port of such a switch, in and out.
  for (topology::NodeId sw = topo.num_npus(); sw < topo.num_nodes(); ++sw) {
    const topology::SwitchReduction* spec = topo.in_network(sw);
    if (spec == nullptr) continue;
    for (int up = 1; up >= 0; --up) {
      for (topology::LinkId l : up ? topo.in_links(sw) : topo.out_links(sw)) {
        const topology::NodeId npu = up ? topo.links()[l].src : topo.links()[l].dst;
        if (!topo.is_npu(npu)) continue;
        port_res_.emplace((std::uint64_t{sw} << 33) | (std::uint64_t{npu} << 1) | up,
                          static_cast<std::uint32_t>(capacity_.size()));
        capacity_.push_back(spec->port_bandwidth.bytes_per_s);
        port_info_.push_back(Resource{
            up ? "npu-switch-reduce-in" : "npu-switch-reduce-out", npu, spec->port_bandwidth});
      }
    }
  }
  if (fifo_) {
    fifo_queue_.resize(topo.num_npus());
    fifo_busy_.assign(topo.num_npus(), 0);
  }
  const std::size_t n = capacity_.size();
  stats_.resize(n);
  on_res_.resize(n);
  busy_since_.resize(n);
  is_dirty_.resize(n, 0);
  res_seen_.resize(n, 0);
  rem_cap_.resize(n, 0);
  unfrozen_.resize(n, 0);
  stamp_.resize(n, 0);
  key_.resize(n, 0);
  route_.reserve(64);
  max_solver_work_ = opt.max_solver_work;
}

std::vector<Resource> FlowBackend::resources() const {
  std::vector<Resource> out;
  std::size_t r = num_links_;
  for (const char* kind : {"npu-injection", "npu-ejection"}) {
    if ((kind[4] == 'i' && !inject_cap_) || (kind[4] == 'e' && !eject_cap_)) continue;
    for (topology::NodeId n = 0; n < topo_.num_npus(); ++n, ++r) {
      out.push_back(Resource{kind, n, core::Bandwidth{capacity_[r]}});
    }
  }
  out.insert(out.end(), port_info_.begin(), port_info_.end());
  return out;
}

void FlowBackend::transmit_group(const GroupMessage& g, const MessageAttributes&,
                                 DeliveryHandler& handler, std::uint64_t tag) {
  const topology::SwitchReduction& spec = group_switch(topo_, g, name());
  const std::uint32_t f = flows_.acquire();
  Flow& fl = flows_[f];
  fl.handler = &handler;
  fl.tag = tag;
  fl.src = g.root;
  fl.queued = false;
  fl.bytes = g.bytes.count;
  fl.remaining = static_cast<double>(g.bytes.count);
  fl.rate = 0;
  fl.updated = sim_.now();
  fl.res.clear();
  fl.pos.clear();
  legs_.clear();
  group_legs(g, legs_);
  core::Time up, down;
  for (const GroupLeg& leg : legs_) {
    route_.clear();
    route_leg(topo_, g, leg, route_);
    core::Time lat;
    for (topology::LinkId l : route_) {
      fl.res.push_back(l);
      lat += topo_.links()[l].latency;
    }
    core::Time& side = leg.up ? up : down;
    side = std::max(side, lat);
    const auto port = port_res_.find((std::uint64_t{g.switch_node} << 33) |
                                     (std::uint64_t{leg.npu} << 1) | (leg.up ? 1u : 0u));
    if (port != port_res_.end()) fl.res.push_back(port->second);
    if (leg.up && inject_cap_) fl.res.push_back(num_links_ + leg.npu);
    if (!leg.up && eject_cap_) {
      fl.res.push_back(num_links_ + (inject_cap_ ? topo_.num_npus() : 0) + leg.npu);
    }
  }
  fl.latency = topo_.ni_latency() + up + spec.latency + down;
  if (g.bytes.count == 0) {
    fl.active = false;
    ++fl.version;
    sim_.schedule_in(core::Time{0}, *this, event_tag(f, fl.version, kFinish));
    return;
  }
  activate(f);
}

void FlowBackend::transmit(topology::NodeId src, topology::NodeId dst, core::Bytes bytes,
                           const MessageAttributes& attrs, DeliveryHandler& handler,
                           std::uint64_t tag) {
  route_.clear();
  if (!multipath_.active()) {
    route(topo_, src, dst, attrs.priority, attrs.path, route_);
  } else if (!pinned_route(src, dst, attrs.priority, route_)) {
    const std::uint64_t first = multipath_.message_path(src, dst, attrs);
    if (multipath_.rule() == Multipath::SprayPacket) {
      spray(src, dst, bytes, first, handler, tag);
      return;
    }
    multipath_.append(src, dst, first, route_);
  }
  start(src, dst, bytes, handler, tag);
}

void FlowBackend::spray(topology::NodeId src, topology::NodeId dst, core::Bytes bytes,
                        std::uint64_t first, DeliveryHandler& handler, std::uint64_t tag) {
  const std::uint64_t p = multipath_.paths(src, dst);
  const std::uint64_t n = std::min<std::uint64_t>(
      {p, kMaxSprayPaths, std::max<std::uint64_t>(bytes.count, 1)});
  if (n <= 1) {
    multipath_.append(src, dst, first, route_);
    start(src, dst, bytes, handler, tag);
    return;
  }
  const std::uint32_t s = splits_.acquire();
  splits_[s] = Split{&handler, tag, static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(n)};
  for (std::uint64_t i = 0; i < n; ++i) {
    route_.clear();
    // Every path when there are at most 64, else 64 spread evenly over them.
    multipath_.append(src, dst, first + (n == p ? i : i * (p / n)), route_);
    const std::uint64_t part = bytes.count / n + (i < bytes.count % n ? 1 : 0);
    start(src, dst, core::Bytes{part}, split_handler_, s);
  }
}

void FlowBackend::SplitHandler::on_injected(std::uint64_t split) {
  Split& sp = b_.splits_[static_cast<std::uint32_t>(split)];
  if (--sp.to_inject == 0) sp.handler->on_injected(sp.tag);
}

void FlowBackend::SplitHandler::on_delivered(std::uint64_t split) {
  const auto s = static_cast<std::uint32_t>(split);
  Split& sp = b_.splits_[s];
  if (--sp.to_deliver != 0) return;
  DeliveryHandler* h = sp.handler;
  const std::uint64_t tag = sp.tag;
  b_.splits_.release(s);
  h->on_delivered(tag);
}

void FlowBackend::start(topology::NodeId src, topology::NodeId dst, core::Bytes bytes,
                        DeliveryHandler& handler, std::uint64_t tag) {
  const std::uint32_t f = flows_.acquire();
  Flow& fl = flows_[f];
  fl.handler = &handler;
  fl.tag = tag;
  fl.src = src;
  fl.queued = false;
  fl.bytes = bytes.count;
  fl.remaining = static_cast<double>(bytes.count);
  fl.rate = 0;
  fl.updated = sim_.now();
  fl.res.clear();
  fl.pos.clear();
  fl.latency = topo_.ni_latency();  // the NIs' links to their routers (topology.hpp)
  for (topology::LinkId l : route_) fl.latency += topo_.links()[l].latency;
  if (bytes.count == 0) {
    // Nothing to share: free at once, arrive after the latency. It holds no links (a direct
    // all-reduce of 1 B on ring:1024 keeps a million empty messages of 256 hops in flight).
    fl.active = false;
    ++fl.version;
    sim_.schedule_in(core::Time{0}, *this, event_tag(f, fl.version, kFinish));
    return;
  }
  fl.res.assign(route_.begin(), route_.end());
  std::uint32_t extra = num_links_;
  if (inject_cap_) {
    fl.res.push_back(extra + src);
    extra += topo_.num_npus();
  }
  if (eject_cap_) fl.res.push_back(extra + dst);

  if (fifo_) {
    // The NI sends one message at a time: this one waits for those before it.
    fl.queued = true;
    if (fifo_busy_[src]) {
      fifo_queue_[src].push_back(f);
      return;
    }
    fifo_busy_[src] = 1;
  }
  activate(f);
}

void FlowBackend::activate(std::uint32_t f) {
  Flow& fl = flows_[f];
  fl.updated = sim_.now();
  fl.active = true;
  for (std::uint32_t i = 0; i < fl.res.size(); ++i) {
    const std::uint32_t r = fl.res[i];
    if (on_res_[r].empty()) busy_since_[r] = sim_.now();
    fl.pos.push_back(static_cast<std::uint32_t>(on_res_[r].size()));
    on_res_[r].push_back(Entry{f, i});
    mark_dirty(r);
  }
}

void FlowBackend::mark_dirty(std::uint32_t r) {
  if (!is_dirty_[r]) {
    is_dirty_[r] = 1;
    dirty_.push_back(r);
  }
  if (!recompute_scheduled_) {
    recompute_scheduled_ = true;
    // Runs after every event already queued for this instant: one recomputation per batch.
    sim_.schedule_in(core::Time{0}, *this, kRecompute);
  }
}

void FlowBackend::on_event(std::uint64_t event) {
  const auto kind = static_cast<Kind>(event & 3u);
  if (kind == kRecompute) {
    recompute_scheduled_ = false;
    recompute();
    return;
  }
  const auto f = static_cast<std::uint32_t>((event >> 2) & 0xffffffffu);
  const auto version = static_cast<std::uint32_t>(event >> 34);
  Flow& fl = flows_[f];
  if (kind == kDelivered) {
    DeliveryHandler* h = fl.handler;
    const std::uint64_t tag = fl.tag;
    flows_.release(f);
    h->on_delivered(tag);
    return;
  }
  if (version != (fl.version & 0x3fffffffu)) return;  // the rate changed since: stale
  finish(f);
}

void FlowBackend::finish(std::uint32_t f) {
  Flow& fl = flows_[f];
  if (fl.active) detach(f);
  if (fl.queued) {
    // fifo: the NI takes its next message.
    fl.queued = false;
    auto& q = fifo_queue_[fl.src];
    if (q.empty()) {
      fifo_busy_[fl.src] = 0;
    } else {
      const std::uint32_t next = q.front();
      q.pop_front();
      activate(next);
    }
  }
  ++fl.version;  // no later finish event for this flow is valid
  sim_.schedule_in(flows_[f].latency, *this, event_tag(f, 0, kDelivered));
  // The callback may send() and grow flows_: copy what it needs first.
  DeliveryHandler* h = flows_[f].handler;
  const std::uint64_t tag = flows_[f].tag;
  h->on_injected(tag);
}

void FlowBackend::detach(std::uint32_t f) {
  Flow& fl = flows_[f];
  fl.active = false;
  fl.remaining = 0;
  const core::Time now = sim_.now();
  for (std::uint32_t i = 0; i < fl.res.size(); ++i) {
    const std::uint32_t r = fl.res[i];
    auto& list = on_res_[r];
    const std::uint32_t p = fl.pos[i];
    list[p] = list.back();
    flows_[list[p].flow].pos[list[p].index] = p;
    list.pop_back();
    stats_[r].bytes += fl.bytes;
    if (list.empty()) {
      stats_[r].busy += now - busy_since_[r];
      if (link_observer_) link_observer_->on_link_busy(r, busy_since_[r], now);
    } else {
      mark_dirty(r);  // the others may speed up
    }
  }
}

void FlowBackend::recompute() {
  const core::Time now = sim_.now();
  ++epoch_;
  comp_res_.clear();
  comp_flows_.clear();
  // The component touched by the change: dirty links, their flows, those flows' links, ...
  for (std::uint32_t r : dirty_) {
    is_dirty_[r] = 0;
    if (res_seen_[r] != epoch_) {
      res_seen_[r] = epoch_;
      comp_res_.push_back(r);
    }
  }
  dirty_.clear();
  for (std::size_t i = 0; i < comp_res_.size(); ++i) {
    for (const Entry& e : on_res_[comp_res_[i]]) {
      Flow& fl = flows_[e.flow];
      if (fl.seen == epoch_) continue;
      fl.seen = epoch_;
      comp_flows_.push_back(e.flow);
      for (std::uint32_t q : fl.res) {
        if (res_seen_[q] != epoch_) {
          res_seen_[q] = epoch_;
          comp_res_.push_back(q);
        }
      }
    }
  }
  // The solver's work: every link of every flow reached, here and in the filling below.
  std::uint64_t visits = 0;
  for (std::uint32_t f : comp_flows_) visits += flows_[f].res.size();
  solver_visits_ += visits;
  ++recomputations_;
  peak_component_ = std::max<std::uint64_t>(peak_component_, comp_flows_.size());
  if (max_solver_work_ != 0 && solver_visits_ > max_solver_work_) {
    throw core::ResourceError(fmt::format(
        "the flow backend's max-min solver passed its work bound: {:.3g} flow-link visits in {} "
        "rate recomputations (up to {} flows sharing links in one), over the bound of {:.3g} "
        "(set by --max-messages): flows that share long routes make every rate change global; "
        "use fewer NPUs, a topology-aware algorithm, the analytical backend, or raise "
        "--max-messages",
        static_cast<double>(solver_visits_), recomputations_, peak_component_,
        static_cast<double>(max_solver_work_)));
  }
  // Bring the component's flows up to date at their old rates.
  old_rate_.clear();
  for (std::uint32_t f : comp_flows_) {
    Flow& fl = flows_[f];
    fl.remaining = std::max(0.0, fl.remaining - fl.rate * (now - fl.updated).seconds());
    fl.updated = now;
    old_rate_.push_back(fl.rate);
    // A flow alone on every link it crosses (every flow of a topology-aware algorithm) gets its
    // slowest link and takes no part in the filling.
    bool alone = true;
    double rate = capacity_[fl.res[0]];
    for (std::uint32_t q : fl.res) {
      alone = alone && on_res_[q].size() == 1;
      rate = std::min(rate, capacity_[q]);
    }
    fl.frozen = alone;
    if (alone) fl.rate = rate;
  }
  // Progressive filling with a lazy min-heap of (fair share, link). A link's share only rises
  // as flows freeze (a flow freezes at the smallest share, at most the link's own, so the rest
  // of the link's capacity over the rest of its flows is no less), so a link's entry stays in the
  // heap at the share it had: a lower bound, popped no later than its current share would be, and
  // pushed again at its current share then. The links are taken in the same (share, link id)
  // order as by pushing every change, with the same arithmetic, for a fraction of the pushes (a
  // flow crossing h links froze with h pushes). Where rounding lowers a share, it is pushed at once.
  heap_.clear();
  auto later = [](const HeapItem& a, const HeapItem& b) {
    return a.share != b.share ? a.share > b.share : a.res > b.res;
  };
  for (std::uint32_t r : comp_res_) {
    rem_cap_[r] = capacity_[r];
    // Links of lone flows carry nothing else: they have no unfrozen flows.
    unfrozen_[r] = on_res_[r].size() == 1 && flows_[on_res_[r][0].flow].frozen
                       ? 0
                       : static_cast<std::uint32_t>(on_res_[r].size());
    ++stamp_[r];
    if (unfrozen_[r] > 0) {
      key_[r] = rem_cap_[r] / unfrozen_[r];
      heap_.push_back(HeapItem{key_[r], r, stamp_[r]});
    }
  }
  std::make_heap(heap_.begin(), heap_.end(), later);
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const HeapItem top = heap_.back();
    heap_.pop_back();
    if (top.stamp != stamp_[top.res] || unfrozen_[top.res] == 0) continue;
    const double share = rem_cap_[top.res] / unfrozen_[top.res];
    if (share != top.share) {  // risen since it was pushed: back in at its current share
      key_[top.res] = share;
      heap_.push_back(HeapItem{share, top.res, ++stamp_[top.res]});
      std::push_heap(heap_.begin(), heap_.end(), later);
      continue;
    }
    for (const Entry& e : on_res_[top.res]) {
      Flow& fl = flows_[e.flow];
      if (fl.frozen) continue;
      fl.frozen = true;
      fl.rate = share;
      for (std::uint32_t q : fl.res) {
        rem_cap_[q] = std::max(0.0, rem_cap_[q] - share);
        --unfrozen_[q];
        if (q != top.res && unfrozen_[q] > 0) {
          const double now_share = rem_cap_[q] / unfrozen_[q];
          if (now_share < key_[q]) {
            key_[q] = now_share;
            heap_.push_back(HeapItem{now_share, q, ++stamp_[q]});
            std::push_heap(heap_.begin(), heap_.end(), later);
          }
        }
      }
    }
  }
  // New finish times for flows whose rate changed; the others' pending events stay valid.
  for (std::size_t i = 0; i < comp_flows_.size(); ++i) {
    const std::uint32_t f = comp_flows_[i];
    Flow& fl = flows_[f];
    if (fl.rate == old_rate_[i]) continue;
    ++fl.version;
    sim_.schedule_at(now + time_for(fl.remaining, fl.rate), *this,
                     event_tag(f, fl.version, kFinish));
  }
}

double FlowBackend::rate_of(std::uint64_t tag) const {
  for (const Flow& fl : flows_.all()) {
    if (fl.active && fl.tag == tag) return fl.rate;
  }
  return -1;
}

// The flow backend's parameters (params.hpp): NPU injection/ejection caps, modelled as extra
// links every flow of the NPU crosses.
BackendInfo flow_info() {
  constexpr std::string_view kModels = "NPU injection/ejection limits";
  return {.name = "flow",
          .description =
              "congestion-aware fluid model: messages are flows sharing every link max-min "
              "fairly, latency added once per message; NPU injection/ejection caps",
          .params =
              {
                  ni_policy_param(),
                  multipath_param(),
                  ecmp_seed_param(),
                  {.spec = {.key = "npu_injection_bandwidth",
                            .type = ParamType::Bandwidth,
                            .unset = "no cap",
                            .description =
                                "cap on each NPU's total injection bandwidth across all its links "
                                "(a NIC slower than the sum of its links)",
                            .source = "ACE Sec. 3 (NPU-NIC bus); MultiTree Sec. V-A (NI)"},
                   .label = "inject",
                   .models = kModels,
                   .set =
                       [](BackendOptions& o, const ParamValue& v) {
                         o.npu_injection_bandwidth = std::get<core::Bandwidth>(v);
                       },
                   .get =
                       [](const BackendOptions& o) {
                         return bandwidth_value(o.npu_injection_bandwidth);
                       }},
                  {.spec = {.key = "npu_ejection_bandwidth",
                            .type = ParamType::Bandwidth,
                            .unset = "no cap",
                            .description =
                                "cap on each NPU's total ejection bandwidth across all its links",
                            .source = "ACE Sec. 3 (NPU-NIC bus); MultiTree Sec. V-A (NI)"},
                   .label = "eject",
                   .models = kModels,
                   .set =
                       [](BackendOptions& o, const ParamValue& v) {
                         o.npu_ejection_bandwidth = std::get<core::Bandwidth>(v);
                       },
                   .get =
                       [](const BackendOptions& o) {
                         return bandwidth_value(o.npu_ejection_bandwidth);
                       }},
              },
          .make = [](core::Simulation& sim, const topology::Topology& topo,
                     const BackendOptions& opt) -> std::unique_ptr<Backend> {
            return std::make_unique<FlowBackend>(sim, topo, opt);
          },
          .links_only =
              [](const BackendOptions& o) {
                return !o.npu_injection_bandwidth && !o.npu_ejection_bandwidth &&
                       o.multipath == Multipath::None &&
                       o.ni_policy.value_or(NiPolicy::AllAtOnce) == NiPolicy::AllAtOnce;
              },
          .route_work = true};
}

}  // namespace collsim::network
