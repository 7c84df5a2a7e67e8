// ACE's "ideal" endpoint (MICRO'20 Sec. 5): the NIC handles the collective in one cycle, so a
// message costs nothing at either end. With the calibration knobs at their defaults it hands
// the executor's own callbacks to the network.
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

void Ideal::send(const Message& m, network::DeliveryHandler& h, std::uint64_t tag) {
  const core::Time delay = source_delay(p_);
  if (delay == core::Time{}) {
    backend_.send(m.src, m.dst, wire_bytes(m.bytes, p_.link_efficiency), h, tag, m.attrs);
    return;
  }
  const std::uint32_t slot = pending_.acquire();
  pending_[slot] = Pending{m, &h, tag};
  sim_.schedule_in(delay, *this, slot);
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
          },
          nullptr,
          true};
}

void Ideal::on_event(std::uint64_t slot) {
  const Pending p = pending_[static_cast<std::uint32_t>(slot)];
  pending_.release(static_cast<std::uint32_t>(slot));
  backend_.send(p.m.src, p.m.dst, wire_bytes(p.m.bytes, p_.link_efficiency), *p.h, p.tag,
                p.m.attrs);
}

}  // namespace collsim::endpoint
