#include "network/analytical.hpp"

#include <algorithm>

#include "network/backend.hpp"
#include "network/group.hpp"

namespace collsim::network {

AnalyticalBackend::AnalyticalBackend(core::Simulation& sim, const topology::Topology& topo)
    : Backend(topo), sim_(sim), topo_(topo), link_stats_(topo.links().size()) {
  route_.reserve(64);
}

void AnalyticalBackend::transmit(topology::NodeId src, topology::NodeId dst, core::Bytes bytes,
                                 const MessageAttributes& attrs, DeliveryHandler& handler,
                                 std::uint64_t tag) {
  route_.clear();
  route(topo_, src, dst, attrs.priority, attrs.path, route_);
  core::Time latency = topo_.ni_latency();  // the NIs' links to their routers (topology.hpp)
  double bottleneck = 0;
  for (topology::LinkId l : route_) {
    const topology::Link& link = topo_.links()[l];
    latency += link.latency;
    bottleneck = bottleneck == 0 ? link.bandwidth.bytes_per_s
                                 : std::min(bottleneck, link.bandwidth.bytes_per_s);
  }
  // Collectives send many equal messages over equal links: reuse the last exact division.
  if (bytes.count != last_bytes_ || bottleneck != last_bw_) {
    last_bytes_ = bytes.count;
    last_bw_ = bottleneck;
    last_serialize_ = core::transfer_time(bytes, core::Bandwidth{bottleneck});
  }
  const core::Time serialize = last_serialize_;
  // Busy time adds up each message's serialization, overlaps included: above the run time it
  // shows how far the congestion-unaware model oversubscribed the link.
  core::Time head;  // when the message's first byte enters the link (cut-through)
  for (topology::LinkId l : route_) {
    link_stats_[l].bytes += bytes.count;
    link_stats_[l].busy += serialize;
    if (link_observer_) {
      link_observer_->on_link_busy(l, sim_.now() + head, sim_.now() + head + serialize);
    }
    head += topo_.links()[l].latency;
  }

  const std::uint32_t slot = slots_.acquire();
  slots_[slot] = Slot{&handler, tag};
  // Event tag: slot * 2 + (0 injected, 1 delivered). Injection is never later than delivery, and
  // equal times run in scheduling order, so the slot is freed only after both.
  sim_.schedule_in(serialize, *this, std::uint64_t{slot} * 2);
  sim_.schedule_in(serialize + latency, *this, std::uint64_t{slot} * 2 + 1);
}

void AnalyticalBackend::transmit_group(const GroupMessage& g, const MessageAttributes&,
                                       DeliveryHandler& handler, std::uint64_t tag) {
  const topology::SwitchReduction& spec = group_switch(topo_, g, name());
  std::vector<GroupLeg>& legs = legs_;
  legs.clear();
  group_legs(g, legs);
  double bottleneck = spec.port_bandwidth.bytes_per_s;
  core::Time up, down;
  for (const GroupLeg& leg : legs) {
    route_.clear();
    route_leg(topo_, g, leg, route_);
    core::Time lat;
    for (topology::LinkId l : route_) {
      lat += topo_.links()[l].latency;
      bottleneck = std::min(bottleneck, topo_.links()[l].bandwidth.bytes_per_s);
      link_stats_[l].bytes += g.bytes.count;
    }
    core::Time& side = leg.up ? up : down;
    side = std::max(side, lat);
  }
  const core::Time serialize = core::transfer_time(g.bytes, core::Bandwidth{bottleneck});
  for (const GroupLeg& leg : legs) {
    route_.clear();
    route_leg(topo_, g, leg, route_);
    for (topology::LinkId l : route_) link_stats_[l].busy += serialize;
  }
  const std::uint32_t slot = slots_.acquire();
  slots_[slot] = Slot{&handler, tag};
  sim_.schedule_in(serialize, *this, std::uint64_t{slot} * 2);
  sim_.schedule_in(serialize + topo_.ni_latency() + up + spec.latency + down, *this,
                   std::uint64_t{slot} * 2 + 1);
}

void AnalyticalBackend::on_event(std::uint64_t event) {
  const auto slot = static_cast<std::uint32_t>(event / 2);
  const Slot s = slots_[slot];
  if (event % 2 == 0) {
    s.handler->on_injected(s.tag);
  } else {
    slots_.release(slot);
    s.handler->on_delivered(s.tag);
  }
}

BackendInfo analytical_info() {
  return {.name = "analytical",
          .description =
              "congestion-unaware alpha-beta: route latency + bytes / bottleneck "
              "bandwidth, cut-through; messages never contend",
          .params = {},
          .make = [](core::Simulation& sim, const topology::Topology& topo,
                     const BackendOptions&) -> std::unique_ptr<Backend> {
            return std::make_unique<AnalyticalBackend>(sim, topo);
          },
          .links_only = [](const BackendOptions&) { return true; }};
}

}  // namespace collsim::network
