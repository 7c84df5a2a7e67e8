#pragma once
// Settings several validation tests share, from the papers' platforms: ACE's Table 5 ring
// dimensions and the MultiTree authors' NI execution (MultiTree Sec. IV-A, the authors' simulator).
#include <cstdint>

#include "network/backend.hpp"
#include "topology/topology.hpp"

namespace collsim::test {

/// A bidirectional ring dimension of `n` NPUs, two links per NPU of `gbps` GB/s and `ns` ns.
inline topology::DimSpec ring_dim(std::uint32_t n, double gbps, std::int64_t ns) {
  topology::DimSpec d;
  d.kind = topology::DimKind::Ring;
  d.size = n;
  d.bandwidth = core::Bandwidth{gbps * 1e9};
  d.latency = core::Time::from_ns(ns);
  d.links_per_npu = 2;
  return d;
}

/// The packet backend with the MultiTree authors' NI: 4 schedule-table NIs per NPU, strict step
/// order, the estimated lockstep, and message-based flow control when `mbfc`.
inline network::BackendOptions authors_ni(bool mbfc) {
  network::BackendOptions o;
  o.packet.nis_per_npu = 4;
  o.packet.schedule_ni = true;
  o.packet.strict_schedule = true;
  o.packet.estimate_lockstep = true;
  o.packet.message_based_flow_control = mbfc;
  return o;
}

}  // namespace collsim::test
