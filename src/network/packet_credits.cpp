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
  if (c.sink || c.returns_pending == 0) return;  // nothing coming back: skip the VC loop
  const core::Time now = sim.now();
  for (std::uint32_t v = 0; v < vcs; ++v) {
    InputVc& down = ivcs[ch * vcs + v];
    while (!down.returning.empty() && now >= credit_pool[down.returning.head].last) {
      const CreditBack& r = credit_pool[down.returning.head];
      down.credits += r.flits - r.given;
      if (observer) report_credit(ch, v, r.last, r.flits - r.given);
      credit_pool.release(down.returning.pop_front(credit_pool));
      --c.returns_pending;
    }
  }
}

std::uint32_t Fabric::partial(std::uint32_t ch, std::uint32_t v) const {
  return partial_credits(ivcs[ch * vcs + v].returning, credit_pool, sim.now());
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
    credit_pool.release(down.returning.pop_front(credit_pool));
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

core::Time Fabric::credit_wake(std::uint32_t ch) const {
  const Channel& c = channels[ch];
  if (c.sink) return core::Time::max();  // no credits: it waits for ports, not space
  const core::Time now = sim.now();
  core::Time wake = core::Time::max();
  for (std::uint32_t v = 0; v < vcs; ++v) {
    const InputVc& down = ivcs[ch * vcs + v];
    // Space back by now, applied or not.
    const std::uint32_t have = credits_by(down.returning, credit_pool, down.credits, now);
    // The next credit count at which one more waiting packet would fit in v (none: v is held
    // back by something other than its space).
    std::uint32_t need = UINT32_MAX;
    for (std::uint32_t r : c.requests) {
      const std::uint32_t f = packets[ivcs[r].packets.head].flits;
      if (f > have) need = std::min(need, f);
    }
    if (need == UINT32_MAX) continue;
    // When the credits still to come make up the rest: strictly after now.
    wake = std::min(wake, credits_arrive(down.returning, credit_pool, need - have, now));
  }
  return wake;
}

}  // namespace collsim::network::packet
