#pragma once
// A bus as a LogGP resource (Culler et al., PPoPP'93; ACE Sec. 5 models the NPU-memory and
// NPU-NIC buses this way, with ASTRA-sim 1.0's rule for the gap): transfers are served one at a
// time in the order they are requested. A transfer of b bytes that starts at s keeps the bus for
// max(o, g - (s - end of the previous transfer)) + b G (sender overhead, or what is left of the
// gap, then serialization) and is usable at the far end L + o after that (latency, receiver
// overhead). With the paper's o = g the first term is always o.
//
// A message crosses the bus as a *run* of equal bus messages (ACE Table 7: 4 KB), which arrive
// at the bus between `first` and `last`, evenly spaced. The run is reserved in closed form, with
// no event per bus message: its first bus message leaves as above; back to back, the bus takes
// one every c = max(o, g) + b G; the last leaves at
//   max(first leaves + (n - 1) c, last arrives + o + b G)
// (exact for a bus that is idle or FIFO-busy, and for g <= o, when the arrivals are evenly
// spaced: the departure recursion d_i = max(d_{i-1} + c, a_i + o + b G) unrolls into the larger
// of its two ends). The bus's backlog ends (n - 1) c after the first departure, so a later run
// fills the gaps a slowly fed run leaves (the bus is work-conserving at run granularity).
// Because service is FIFO and its time is known on arrival, reserve() returns the whole schedule
// at once: no event per queue step, no allocation.
//
// The same resource with L = o = g = 0 is a plain FIFO server of a given rate (ACE's ALUs, an
// NPU's local reduction).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/units.hpp"

namespace collsim::endpoint {

struct LogGP {
  core::Time latency;   ///< L
  core::Time overhead;  ///< o
  core::Time gap;       ///< g
};

/// The times of a run of `pieces` bus messages, from its request.
struct Grant {
  core::Time queued;      ///< summed over the bus messages: waiting for the bus
  core::Time transfer;    ///< summed over the bus messages: leaving the bus to usable at the far end
  core::Time first_done;  ///< absolute time the first bus message is usable at the far end
  core::Time done;        ///< absolute time the last one is
};

class Bus {
 public:
  /// bandwidth must be > 0; infinite: no serialization.
  Bus(core::Bandwidth bandwidth, LogGP p) : bw_(bandwidth), p_(p) {}

  /// Reserve the bus for `bytes` in one transfer requested at `now` (in time order).
  Grant reserve(core::Time now, core::Bytes bytes) { return reserve_run(now, now, 1, bytes); }

  /// Reserve the bus for `pieces` >= 1 equal bus messages of `piece` bytes each, the first
  /// arriving at `first`, the last at `last` >= first, evenly spaced (header comment).
  Grant reserve_run(core::Time first, core::Time last, std::uint32_t pieces, core::Bytes piece) {
    // An unlimited bus (infinite bandwidth: an engine with every cost set to zero) serializes
    // nothing.
    const core::Time ser = std::isfinite(bw_.bytes_per_s) ? core::transfer_time(piece, bw_)
                                                          : core::Time{};
    const core::Time start = started_ ? std::max(first, free_) : first;
    const core::Time offset =
        started_ ? std::max(p_.overhead, p_.gap - (start - free_)) : p_.overhead;
    const core::Time first_out = start + offset + ser;
    const auto more = static_cast<std::int64_t>(pieces) - 1;
    const core::Time cycle = std::max(p_.overhead, p_.gap) + ser;
    const core::Time backlog = first_out + cycle * more;
    const core::Time last_out = std::max(backlog, last + p_.overhead + ser);
    free_ = backlog;
    started_ = true;
    const core::Time tail = p_.latency + p_.overhead;
    // Waiting, summed: the first waits start - first; with arrivals every (last - first) / more
    // and departures every (last_out - first_out) / more, the i-th waits the difference of the
    // two lines less its own hold, never below zero (a trapezoid in i).
    const core::Time hold = p_.overhead + ser;
    const core::Time w0 = start - first;
    const core::Time wn = std::max(core::Time{}, last_out - hold - last);
    const core::Time queued =
        pieces == 1 ? w0 : core::Time::from_ps((w0 + wn).ps * static_cast<std::int64_t>(pieces) / 2);
    const core::Time transfer = (hold + tail) * static_cast<std::int64_t>(pieces);
    return Grant{queued, transfer, first_out + tail, last_out + tail};
  }

 private:
  core::Bandwidth bw_;
  LogGP p_;
  core::Time free_;  // when the reserved work ends (the previous transfer's end, back to back)
  bool started_ = false;
};

}  // namespace collsim::endpoint
