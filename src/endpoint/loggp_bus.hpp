#pragma once
// A bus as a LogGP resource (Culler et al., PPoPP'93; ACE Sec. 5 models the NPU-memory and
// NPU-NIC buses this way): transfers are served one at a time in the order they are requested.
// A transfer of b bytes that starts at s (when the bus is free, and at least g after the previous
// transfer started) keeps the bus for o + b G and is usable at the far end at s + o + b G + L + o
// (sender overhead, serialization, latency, receiver overhead). Because service is FIFO and its
// time is known on arrival, reserve() returns the whole schedule at once: no event per queue
// step, no allocation.
//
// The same resource with L = o = g = 0 is a plain FIFO server of a given rate (ACE's ALUs, an
// NPU's local reduction).
#include <algorithm>

#include "core/units.hpp"

namespace collsim::endpoint {

struct LogGP {
  core::Time latency;   ///< L
  core::Time overhead;  ///< o
  core::Time gap;       ///< g
};

/// The times of one transfer, from its request.
struct Grant {
  core::Time queued;    ///< waiting for the bus (start - request)
  core::Time transfer;  ///< start to usable at the far end
  core::Time done;      ///< absolute time the data is usable at the far end
};

class Bus {
 public:
  /// bandwidth must be > 0.
  Bus(core::Bandwidth bandwidth, LogGP p) : bw_(bandwidth), p_(p) {}
  /// Reserve the bus for `bytes` requested at `now` (requests must come in time order).
  Grant reserve(core::Time now, core::Bytes bytes) {
    core::Time start = std::max(now, free_);
    if (started_ && start < last_start_ + p_.gap) start = last_start_ + p_.gap;
    const core::Time ser = core::transfer_time(bytes, bw_);
    free_ = start + p_.overhead + ser;
    last_start_ = start;
    started_ = true;
    const core::Time done = start + p_.overhead + ser + p_.latency + p_.overhead;
    return Grant{start - now, done - start, done};
  }

 private:
  core::Bandwidth bw_;
  LogGP p_;
  core::Time free_;
  core::Time last_start_;
  bool started_ = false;
};

}  // namespace collsim::endpoint
