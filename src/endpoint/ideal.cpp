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

Ideal::Ideal(core::Simulation& sim, network::Backend& backend, const EndpointParams& p)
    : sim_(sim), backend_(backend), p_(p) {}

// Events: (slot << 1) | 0 puts a message on the wire after message_overhead; (slot << 1) | 1
// hands a delivered message back once its aggregation is done.
void Ideal::send(const Message& m, network::DeliveryHandler& h, std::uint64_t tag) {
  const bool aggregate = p_.aggregation_pe != 0 && m.reduce;
  if (p_.message_overhead == core::Time{} && !aggregate) {
    backend_.send(m.src, m.dst, wire_bytes(m.bytes, p_.link_efficiency), h, tag, m.attrs);
    return;
  }
  const std::uint32_t slot = pending_.acquire();
  pending_[slot] = Pending{m, &h, tag};
  if (p_.message_overhead == core::Time{}) {
    put_on_wire(slot);
  } else {
    sim_.schedule_in(p_.message_overhead, *this, std::uint64_t{slot} << 1);
  }
}

void Ideal::put_on_wire(std::uint32_t slot) {
  const Pending& p = pending_[slot];
  if (p_.aggregation_pe != 0 && p.m.reduce) {
    // Delivered through this endpoint, which adds the aggregation.
    backend_.send(p.m.src, p.m.dst, wire_bytes(p.m.bytes, p_.link_efficiency), *this, slot,
                  p.m.attrs);
    return;
  }
  const Pending q = p;
  pending_.release(slot);
  backend_.send(q.m.src, q.m.dst, wire_bytes(q.m.bytes, p_.link_efficiency), *q.h, q.tag,
                q.m.attrs);
}

void Ideal::on_injected(std::uint64_t slot) {
  const Pending& p = pending_[static_cast<std::uint32_t>(slot)];
  p.h->on_injected(p.tag);
}

// The MultiTree authors' cycle model: ceil(ceil(D / vaults) / pe) x vaults cycles for D
// parameters, after the NPU's earlier aggregations.
void Ideal::on_delivered(std::uint64_t slot) {
  const Pending& p = pending_[static_cast<std::uint32_t>(slot)];
  const std::uint64_t params =
      (p.m.bytes.count + p_.aggregation_param_bytes.count - 1) / p_.aggregation_param_bytes.count;
  const std::uint64_t vaults = p_.aggregation_vaults;
  const std::uint64_t cycles =
      ((params + vaults - 1) / vaults + p_.aggregation_pe - 1) / p_.aggregation_pe * vaults;
  const core::Time cost = core::Time::from_ps(static_cast<std::int64_t>(
      std::llround(static_cast<double>(cycles) * 1e12 / p_.aggregation_clock_hz)));
  if (aggregator_free_.size() <= p.m.dst) aggregator_free_.resize(p.m.dst + 1);
  core::Time& free = aggregator_free_[p.m.dst];
  free = std::max(free, sim_.now()) + cost;
  sim_.schedule_at(free, *this, (slot << 1) | 1);
}

EndpointInfo ideal_info() {
  return {"ideal",
          "no endpoint cost: a message is on the wire when the executor sends it and usable when "
          "its last byte arrives (reduction and memory traffic take no time)",
          "ACE (MICRO'20) Sec. 5, the \"Ideal\" system (unlimited NIC resources, no endpoint "
          "latency)",
          [](core::Simulation& sim, network::Backend& b, const topology::Topology&,
             const EndpointParams& p) -> std::unique_ptr<Endpoint> {
            return std::make_unique<Ideal>(sim, b, p);
          }};
}

void Ideal::on_event(std::uint64_t event) {
  const auto slot = static_cast<std::uint32_t>(event >> 1);
  if ((event & 1) == 0) {
    put_on_wire(slot);
    return;
  }
  const Pending p = pending_[slot];
  pending_.release(slot);
  p.h->on_delivered(p.tag);
}

}  // namespace collsim::endpoint
