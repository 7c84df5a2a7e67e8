// The packet backend's iSLIP switch allocation (switch_allocator islip): McKeown's iSLIP with one
// iteration (IEEE/ACM ToN 7(2), 1999; Dally & Towles ch. 19.3), as BookSim's iq_router runs it
// with `sw_allocator = islip` and `alloc_iters = 1`, the setting of the MultiTree authors' BookSim
// configurations. One allocation per instant (a router cycle), in three phases:
//  * Request: an input port asks each output channel that one of its VCs wants for at most one
//    of them, the VC whose request can go now (output free, downstream room) with the earliest
//    schedule step (schedule_ni), ties round-robin from the port's VC pointer (one past the VC
//    it sent last), as BookSim's iq_router picks one VC per input and output pair.
//  * Grant: each output grants the first requesting input port at or after its grant pointer
//    (one past the port it was last accepted by), whatever the requests' priorities (BookSim's
//    iSLIP ignores them).
//  * Accept: each input port accepts the first granting output at or after its accept pointer
//    (one past the output it accepted last). Only then do the two pointers move: an output whose
//    grant was declined keeps its pointer and stays idle this cycle, and allocates again one
//    router cycle later (one iteration: no second chance within the cycle).
// Ports and outputs are ordered by their global ids (channel ids, then the NI queues), which
// keeps each router's ports in one fixed cyclic order, as BookSim's port numbers do.
#include <algorithm>

#include "network/packet.hpp"

namespace collsim::network {

void PacketBackend::islip_pass() {
  pass_scheduled_ = false;
  ++pass_id_;
  alloc_now_.swap(alloc_due_);
  std::sort(alloc_now_.begin(), alloc_now_.end());
  const core::Time now = sim_.now();
  const auto num_channels = static_cast<std::uint32_t>(channels_.size());
  const auto num_ports = static_cast<std::uint32_t>(channels_.size() + nis_.size());
  islip_grants_.clear();
  // Grant phase: each output with something new picks one input port.
  for (std::uint32_t ch : alloc_now_) {
    Channel& c = channels_[ch];
    c.alloc_due = false;
    std::sort(c.arriving.begin(), c.arriving.end());
    c.requests.insert(c.requests.end(), c.arriving.begin(), c.arriving.end());
    c.arriving.clear();
    if (!ready_to_grant(ch)) continue;
    const std::size_t n = c.requests.size();
    std::size_t idx = n;
    std::uint32_t vc = UINT32_MAX, port = 0, best_dist = 0, best_key = 0, best_vdist = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t r = c.requests[i];
      const InputVc& cand = ivcs_[r];
      std::uint32_t vdist = 0;
      if (cand.channel != UINT32_MAX) {
        Channel& pc = channels_[cand.channel];
        if (pc.port_busy_until > now) {
          // Its port is sending: ask again when that flit (packet) has left.
          if (!pc.port_wake_scheduled) {
            pc.port_wake_scheduled = true;
            sim_.schedule_at(pc.port_busy_until, *this, ev(kPortFree, cand.channel));
          }
          continue;
        }
        const std::uint32_t v = r - cand.channel * vcs_;
        vdist = v >= pc.port_rr ? v - pc.port_rr : v + vcs_ - pc.port_rr;
      }
      const Packet& p = packets_[cand.packets.front()];
      const std::uint32_t v = pick_vc(c, p, cand);
      if (v == UINT32_MAX) continue;
      const std::uint32_t from = port_id(r);
      // Distance from the grant pointer, one past the port accepted last (unsigned wrap-around
      // while nothing has been accepted yet).
      const std::uint32_t dist =
          from > c.last_grant ? from - c.last_grant : from + num_ports - c.last_grant;
      const std::uint32_t key = opt_.schedule_ni ? messages_[p.message].priority_key : 0;
      // The port's own choice among its VCs (earliest step, then its VC pointer) happens before
      // the output's choice among ports, which looks at the port order only.
      const bool better = idx == n || dist < best_dist ||
                          (dist == best_dist && (key < best_key ||
                                                 (key == best_key && vdist < best_vdist)));
      if (!better) continue;
      idx = i;
      vc = v;
      port = from;
      best_dist = dist;
      best_key = key;
      best_vdist = vdist;
    }
    if (idx == n) {
      // Nobody can go: wait for credits (ports that were busy wake the output themselves).
      c.blocked = true;
      const core::Time wake = credit_wake(ch);
      if (wake != core::Time::max()) schedule_wake(ch, wake);
      continue;
    }
    islip_grants_.push_back({ch, static_cast<std::uint32_t>(idx), vc, port});
  }
  alloc_now_.clear();
  // Accept phase: each input port takes the first granting output at or after its pointer.
  for (const IslipGrant& g : islip_grants_) {
    if (g.port >= num_channels) continue;  // an NI queue: one VC, so at most one grant
    Channel& pc = channels_[g.port];
    const std::uint32_t dist =
        g.ch > pc.accept_last ? g.ch - pc.accept_last : g.ch + num_channels - pc.accept_last;
    if (pc.choice_pass != pass_id_ || dist < pc.choice_dist) {
      pc.choice_pass = pass_id_;
      pc.choice = g.ch;
      pc.choice_dist = dist;
    }
  }
  // Both pointers move only on an accepted grant; a declined output tries again next cycle.
  for (const IslipGrant& g : islip_grants_) {
    if (g.port < num_channels) {
      Channel& pc = channels_[g.port];
      if (pc.choice != g.ch) {
        schedule_wake(g.ch, now + opt_.router_period);
        continue;
      }
      pc.accept_last = g.ch;
    }
    grant(g.ch, g.idx, g.vc);  // sets the output's grant pointer (last_grant) to the port
  }
}

}  // namespace collsim::network
