#pragma once
// Credit-based flow control of the packet backend (Dally & Towles ch. 13.3; BookSim's
// BufferState): an output channel counts the free flits of each downstream VC; a grant takes the
// packet's flits, and the space comes back as the packet leaves that VC, a channel latency plus
// credit_delay_cycles later. Internal to src/network/packet*.cpp.
//
// A VC's returns travel back in the order they were sent (a VC's tails leave in order), so each
// VC keeps its returns in a FIFO and the channel applies them lazily when it next allocates: no
// event per credit. With per-flit credit return the flits of one return arrive one flit time
// apart, the tail's last; per packet all at once.
#include <cstdint>

#include "core/slot_pool.hpp"
#include "core/units.hpp"
#include "network/packet_fifo.hpp"

namespace collsim::network::packet {

/// A credit return in flight: `flits` of buffer space the upstream channel gets back, the last
/// flit's at `last` and each earlier one `step` before the next (step 0: all at `last`, per
/// packet); `given` of them have been applied.
struct CreditBack {
  core::Time last;
  core::Time step;
  std::uint32_t flits = 0;
  std::uint32_t given = 0;
  std::uint32_t next = kNil;  // the VC's next return (Fifo)

  /// Credits of this return that have arrived by `now`.
  std::uint32_t arrived(core::Time now) const {
    if (now >= last) return flits;
    return step.ps <= 0 ? 0 : arrived_partly(now);
  }
  std::uint32_t arrived_partly(core::Time now) const {
    // Flits j with last - (flits - j) step <= now: j <= flits - ceil((last - now) / step).
    const std::int64_t late = (last - now).ps, st = step.ps;
    const auto behind = static_cast<std::uint64_t>((late + st - 1) / st);
    return behind >= flits ? 0 : flits - static_cast<std::uint32_t>(behind);
  }
  /// When its j-th flit's credit arrives (1 <= j <= flits).
  core::Time time_of(std::uint32_t j) const { return last - step * (flits - j); }
};

using CreditPool = core::SlotPool<CreditBack>;

/// Credits of the front return that have arrived by `now` and are not applied yet (only the
/// front return can be partly back: the ones behind it end later).
inline std::uint32_t partial_credits(const Fifo& back, const CreditPool& pool, core::Time now) {
  if (back.empty()) return 0;
  const CreditBack& r = pool[back.head];
  return r.arrived(now) - r.given;
}

/// `credits` plus everything of `back` that is back by `now` and not applied yet.
inline std::uint32_t credits_by(const Fifo& back, const CreditPool& pool, std::uint32_t credits,
                                core::Time now) {
  for (std::uint32_t id = back.head; id != kNil; id = pool[id].next) {
    const CreditBack& r = pool[id];
    const std::uint32_t got = r.arrived(now);
    credits += got - r.given;
    if (got < r.flits) break;
  }
  return credits;
}

/// When `missing` (>= 1) more credits than are back by `now` will have arrived: strictly after
/// now; core::Time::max() if what is in flight is not enough.
inline core::Time credits_arrive(const Fifo& back, const CreditPool& pool, std::uint32_t missing,
                                 core::Time now) {
  for (std::uint32_t id = back.head; id != kNil; id = pool[id].next) {
    const CreditBack& r = pool[id];
    const std::uint32_t got = r.arrived(now);
    const std::uint32_t left = r.flits - got;
    if (left >= missing) return r.time_of(got + missing);
    missing -= left;
  }
  return core::Time::max();
}

}  // namespace collsim::network::packet
