#include "network/queue.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "network/backend.hpp"

namespace collsim::network {
namespace {

// Event tag: slot * 2 + kind. kInjected fires once per message; kHopDone fires once per link, when
// the message reaches the link's head node.
constexpr std::uint64_t kInjected = 0;
constexpr std::uint64_t kHopDone = 1;

}  // namespace

QueueBackend::QueueBackend(core::Simulation& sim, const topology::Topology& topo)
    : Backend(topo),
      sim_(sim),
      topo_(topo),
      free_at_(topo.links().size()),
      link_stats_(topo.links().size()) {}

void QueueBackend::transmit(topology::NodeId src, topology::NodeId dst, core::Bytes bytes,
                            const MessageAttributes& attrs, DeliveryHandler& handler,
                            std::uint64_t tag) {
  const std::uint32_t slot = slots_.acquire();
  Slot& s = slots_[slot];
  s.handler = &handler;
  s.tag = tag;
  s.bytes = bytes;
  s.hop = 0;
  s.route.clear();
  route(topo_, src, dst, attrs.priority, attrs.path, s.route);
  enter_link(slot);
}

// Why no explicit queues: arrivals at a link's tail are processed in simulation order, which is
// nondecreasing in time, so when a message arrives every message that reached the link earlier has
// already reserved its turn, and free_at_ is when the last of them ends. Starting at
// max(now, free_at_) is exactly FIFO service; the link's queue is implicit in the reservations.
void QueueBackend::enter_link(std::uint32_t slot) {
  Slot& s = slots_[slot];
  const topology::LinkId l = s.route[s.hop];
  const topology::Link& link = topo_.links()[l];
  const core::Time serialize = core::transfer_time(s.bytes, link.bandwidth);
  const core::Time end = std::max(sim_.now(), free_at_[l]) + serialize;
  free_at_[l] = end;
  link_stats_[l].bytes += s.bytes.count;
  link_stats_[l].busy += serialize;
  if (link_observer_) link_observer_->on_link_busy(l, end - serialize, end);
  // Scheduled before the first hop's arrival and never later, so it runs first even at equal
  // times; the slot is freed only on delivery, after both.
  if (s.hop == 0) sim_.schedule_at(end, *this, std::uint64_t{slot} * 2 + kInjected);
  // The last hop also carries the NIs' links to their routers (topology.hpp ni_latency).
  const core::Time after = s.hop + 1 == s.route.size() ? topo_.ni_latency() : core::Time{};
  sim_.schedule_at(end + link.latency + after, *this, std::uint64_t{slot} * 2 + kHopDone);
}

void QueueBackend::on_event(std::uint64_t event) {
  const auto slot = static_cast<std::uint32_t>(event / 2);
  Slot& s = slots_[slot];
  if (event % 2 == kInjected) {
    s.handler->on_injected(s.tag);  // may call send(): `s` is not used afterwards
    return;
  }
  if (++s.hop < s.route.size()) {
    enter_link(slot);
    return;
  }
  DeliveryHandler* const handler = s.handler;
  const std::uint64_t tag = s.tag;
  slots_.release(slot);
  handler->on_delivered(tag);
}

BackendInfo queue_info() {
  return {.name = "queue",
          .description =
              "congestion-aware per-link FIFO, store-and-forward: each hop latency + "
              "bytes / bandwidth after the messages ahead (ASTRA-sim's "
              "congestion-aware analytical model, any topology)",
          .params = {},
          .make = [](core::Simulation& sim, const topology::Topology& topo, const BackendOptions&)
              -> std::unique_ptr<Backend> { return std::make_unique<QueueBackend>(sim, topo); },
          .links_only = [](const BackendOptions&) { return true; }};
}

}  // namespace collsim::network
