// ACE's "ideal" endpoint (MICRO'20 Sec. 5): the NIC handles the collective in one cycle, so a
// message costs nothing at either end. With the calibration knobs at their defaults it hands
// the executor's own callbacks to the network.
#include <algorithm>
#include <cmath>

#include "endpoint/endpoint.hpp"

namespace collsim::endpoint {

core::Bytes wire_bytes(core::Bytes payload, double efficiency) {
  if (efficiency >= 1.0) return payload;
  return core::Bytes{
      static_cast<std::uint64_t>(std::ceil(static_cast<double>(payload.count) / efficiency))};
}

Ideal::Ideal(core::Simulation& sim, network::Backend& backend, const EndpointParams& p,
             const topology::Topology* topo)
    : sim_(sim), backend_(backend), p_(p), topo_(topo) {
  if (p_.link_fifo && topo_) links_.resize(topo_->links().size());
  if (!topo_) p_.link_fifo = p_.ideal_dma = false;
  if (p_.ideal_dma) dma_free_.assign(topo_->num_npus(), core::Time{});
}

void Ideal::stage_in(topology::NodeId npu, core::Bytes b, StagingHandler& h,
                     std::uint64_t tag) {
  const std::uint32_t slot = staged_.acquire();
  staged_[slot] = Staged{&h, tag};
  core::Time& free = dma_free_[npu];
  free = std::max(free, sim_.now()) + core::transfer_time(b, p_.npu_nic_bandwidth);
  sim_.schedule_at(free, *this, slot | kStagingBit);
}

void Ideal::stage_out(topology::NodeId, core::Bytes, StagingHandler& h, std::uint64_t tag) {
  const std::uint32_t slot = staged_.acquire();
  staged_[slot] = Staged{&h, tag};
  sim_.schedule_in(core::Time{}, *this, slot | kStagingBit);
}

void Ideal::send(const Message& m, network::DeliveryHandler& h, std::uint64_t tag) {
  const core::Time delay = source_delay(p_);
  if (delay == core::Time{} && !p_.link_fifo) {
    backend_.send(m.src, m.dst, wire_bytes(m.bytes, p_.link_efficiency), h, tag, m.attrs);
    return;
  }
  const std::uint32_t slot = pending_.acquire();
  pending_[slot] = Pending{m, &h, tag};
  if (delay > core::Time{}) {
    sim_.schedule_in(delay, *this, slot);
    return;
  }
  enqueue(slot);
}

// The overhead is paid, or a copy is done.
void Ideal::on_event(std::uint64_t tag) {
  if (tag & kStagingBit) {
    const auto slot = static_cast<std::uint32_t>(tag & ~kStagingBit);
    const Staged s = staged_[slot];
    staged_.release(slot);
    s.h->on_staged(s.tag);
    return;
  }
  enqueue(static_cast<std::uint32_t>(tag));
}

void Ideal::enqueue(std::uint32_t slot) {
  if (!p_.link_fifo) {
    const Pending p = pending_[slot];
    pending_.release(slot);
    backend_.send(p.m.src, p.m.dst, wire_bytes(p.m.bytes, p_.link_efficiency), *p.h, p.tag,
                  p.m.attrs);
    return;
  }
  Pending& p = pending_[slot];
  route_.clear();
  topo_->route(p.m.src, p.m.dst, route_, p.m.attrs.path);
  p.link = route_.front();
  LinkQueue& q = links_[p.link];
  if (q.busy) {
    (q.tail == kNone ? q.head : pending_[q.tail].next) = slot;
    q.tail = slot;
    return;
  }
  q.busy = true;
  transmit(slot);
}

void Ideal::transmit(std::uint32_t slot) {
  const Pending& p = pending_[slot];
  backend_.send(p.m.src, p.m.dst, wire_bytes(p.m.bytes, p_.link_efficiency), *this, slot,
                p.m.attrs);
}

// The link is free: the next message in its queue goes.
void Ideal::on_injected(std::uint64_t tag) {
  const auto slot = static_cast<std::uint32_t>(tag);
  Pending& p = pending_[slot];
  p.injected = true;
  LinkQueue& q = links_[p.link];
  network::DeliveryHandler* h = p.h;
  const std::uint64_t t = p.tag;
  if (p.delivered) pending_.release(slot);
  if (q.head != kNone) {
    const std::uint32_t next = q.head;
    q.head = pending_[next].next;
    if (q.head == kNone) q.tail = kNone;
    transmit(next);
  } else {
    q.busy = false;
  }
  h->on_injected(t);
}

void Ideal::on_delivered(std::uint64_t tag) {
  const auto slot = static_cast<std::uint32_t>(tag);
  Pending& p = pending_[slot];
  p.delivered = true;
  network::DeliveryHandler* h = p.h;
  const std::uint64_t t = p.tag;
  if (p.injected) pending_.release(slot);
  h->on_delivered(t);
}

EndpointInfo ideal_info() {
  return {"ideal",
          "no endpoint cost: a message is on the wire when the executor sends it and usable when "
          "its last byte arrives (reduction and memory traffic take no time)",
          "ACE (MICRO'20) Sec. 5, the \"Ideal\" system (unlimited NIC resources, no endpoint "
          "latency)",
          [](core::Simulation& sim, network::Backend& b, const topology::Topology& t,
             const EndpointParams& p) -> std::unique_ptr<Endpoint> {
            return std::make_unique<Ideal>(sim, b, p, &t);
          },
          nullptr,
          [](const EndpointParams& p) { return !p.link_fifo && !p.ideal_dma; }};
}

}  // namespace collsim::endpoint
