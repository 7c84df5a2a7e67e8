// The packet backend's credit counters (packet_credits.hpp has the rule): returns are applied
// when their channel next allocates, and a channel blocked for space wakes when enough are back.
#include "network/packet_credits.hpp"

#include <algorithm>

#include "network/packet_fabric.hpp"

namespace collsim::network::packet {

// Credits of returns wholly back by now, for every VC (no division: a comparison per return);
// those of a return still coming back flit by flit are counted by partial() and taken at a
// grant (take_partial), so a VC with room to spare costs nothing more.
void Fabric::apply_credits(std::uint32_t ch) {
  Channel& c = channels[ch];
  const core::Time now = sim.now();
  // Nothing coming back, or nothing wholly back yet: skip the VC loop.
  if (c.sink || c.returns_pending == 0 || now < c.next_return) return;
  core::Time next = core::Time::max();
  for (std::uint32_t v = 0; v < vcs; ++v) {
    InputVc& down = ivcs[ch * vcs + v];
    while (now >= down.return_at) {
      const CreditBack& r = credit_pool[down.returning.head];
      down.credits += r.flits - r.given;
      if (observer) report_credit(ch, v, r.last, r.flits - r.given);
      pop_return(down);
      --c.returns_pending;
    }
    next = std::min(next, down.return_at);
  }
  c.next_return = next;
}

void Fabric::take_partial(std::uint32_t ch, std::uint32_t v) {
  const std::uint32_t got = partial(ch, v);
  if (got == 0) return;
  InputVc& down = ivcs[ch * vcs + v];
  CreditBack& r = credit_pool[down.returning.head];
  r.given += got;
  down.credits += got;
  if (observer) report_credit(ch, v, sim.now(), got);
  if (r.given == r.flits) {
    pop_return(down);
    --channels[ch].returns_pending;
  }
}

void Fabric::report_credit(std::uint32_t ch, std::uint32_t v, core::Time at, std::uint32_t flits) {
  observer->on_packet_event({.kind = PacketEvent::Kind::Credit,
                             .at = at,
                             .packet = 0,
                             .message = 0,
                             .channel = ch,
                             .in_channel = kNoChannel,
                             .in_vc = 0,
                             .out_vc = v,
                             .flits = flits,
                             .until = core::Time{0}});
}

void Fabric::pop_return(InputVc& down) {
  credit_pool.release(down.returning.pop_front(credit_pool));
  down.return_at =
      down.returning.empty() ? core::Time::max() : credit_pool[down.returning.head].last;
}

core::Time Fabric::credit_wake(std::uint32_t ch) {
  Channel& c = channels[ch];
  if (c.sink) return core::Time::max();  // no credits: it waits for ports, not space
  // The waiting packets' sizes, smallest and largest (most are the same); they stay while the
  // channel is blocked (its requests change only when it allocates).
  std::uint32_t lo = UINT32_MAX, hi = 0;
  for (std::uint32_t r : c.requests) {
    const std::uint32_t f = packets[ivcs[r].packets.head].flits;
    lo = std::min(lo, f);
    hi = std::max(hi, f);
  }
  c.request_flits_lo = lo;
  c.request_flits_hi = hi;
  core::Time wake = core::Time::max();
  for (std::uint32_t v = 0; v < vcs; ++v) wake = std::min(wake, credit_wake(ch, v, lo, hi));
  return wake;
}

core::Time Fabric::credit_wake(std::uint32_t ch, std::uint32_t v, std::uint32_t lo,
                               std::uint32_t hi) const {
  const core::Time now = sim.now();
  const InputVc& down = ivcs[std::size_t{ch} * vcs + v];
  // Space back by now, applied or not.
  const std::uint32_t have = credits_by(down.returning, credit_pool, down.credits, now);
  // The next credit count at which one more waiting packet would fit in v (none: v is held
  // back by something other than its space).
  if (have >= hi) return core::Time::max();
  std::uint32_t need = lo;
  if (have >= lo) {
    need = UINT32_MAX;
    for (std::uint32_t r : channels[ch].requests) {
      const std::uint32_t f = packets[ivcs[r].packets.head].flits;
      if (f > have) need = std::min(need, f);
    }
  }
  // When the credits still to come make up the rest: strictly after now.
  return credits_arrive(down.returning, credit_pool, need - have, now);
}

core::Time Fabric::credit_wake(std::uint32_t ch, std::uint32_t v) const {
  const Channel& c = channels[ch];
  if (c.sink || c.requests.empty()) return core::Time::max();
  return credit_wake(ch, v, c.request_flits_lo, c.request_flits_hi);
}

}  // namespace collsim::network::packet
