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
#include <vector>

#include "network/packet_allocator.hpp"
#include "network/packet_fabric.hpp"

namespace collsim::network::packet {
namespace {

class ISlip final : public SwitchAllocatorUnit {
 public:
  void allocate(Fabric& f) override {
    const core::Time now = f.sim.now();
    const auto num_channels = static_cast<std::uint32_t>(f.channels.size());
    const std::uint32_t num_ports = f.num_ports();
    grants_.clear();
    // Grant phase: each output with something new picks one input port.
    for (std::uint32_t ch : f.alloc_now) {
      f.take_arrivals(ch);
      if (!f.ready_to_grant(ch)) continue;
      Channel& c = f.channels[ch];
      const std::size_t n = c.requests.size();
      std::size_t idx = n;
      std::uint32_t vc = kNoVc, port = 0, best_dist = 0, best_key = 0, best_vdist = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t r = c.requests[i];
        const InputVc& cand = f.ivcs[r];
        // A busy port asks again when that flit (packet) has left.
        if (!f.port_free(cand)) continue;
        std::uint32_t vdist = 0;
        if (cand.channel != kNoChannel) {
          const std::uint32_t v = r - cand.channel * f.vcs, ptr = f.channels[cand.channel].port_rr;
          vdist = v >= ptr ? v - ptr : v + f.vcs - ptr;
        }
        const Packet& p = f.front(cand);
        const std::uint32_t v = f.pick_vc(ch, p, cand);
        if (v == kNoVc) continue;
        const std::uint32_t from = f.port_id(r);
        // Distance from the grant pointer, one past the port accepted last (unsigned wrap-around
        // while nothing has been accepted yet).
        const std::uint32_t dist =
            from > c.last_grant ? from - c.last_grant : from + num_ports - c.last_grant;
        const std::uint32_t key = f.opt.schedule_ni ? f.priority_of(p) : 0;
        // The port's own choice among its VCs (earliest step, then its VC pointer) happens
        // before the output's choice among ports, which looks at the port order only.
        const bool better =
            idx == n || dist < best_dist ||
            (dist == best_dist && (key < best_key || (key == best_key && vdist < best_vdist)));
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
        f.wait_for_credits(ch);
        continue;
      }
      grants_.push_back({ch, static_cast<std::uint32_t>(idx), vc, port});
    }
    // Accept phase: each input port takes the first granting output at or after its pointer.
    for (const Grant& g : grants_) {
      if (g.port >= num_channels) continue;  // an NI queue: one VC, so at most one grant
      Channel& pc = f.channels[g.port];
      const std::uint32_t dist =
          g.ch > pc.accept_last ? g.ch - pc.accept_last : g.ch + num_channels - pc.accept_last;
      if (pc.choice_pass != f.pass_id || dist < pc.choice_dist) {
        pc.choice_pass = f.pass_id;
        pc.choice = g.ch;
        pc.choice_dist = dist;
      }
    }
    // Both pointers move only on an accepted grant; a declined output tries again next cycle.
    for (const Grant& g : grants_) {
      if (g.port < num_channels) {
        Channel& pc = f.channels[g.port];
        if (pc.choice != g.ch) {
          f.schedule_wake(g.ch, now + f.opt.router_period);
          continue;
        }
        pc.accept_last = g.ch;
      }
      f.grant(g.ch, g.idx, g.vc);  // sets the output's grant pointer (last_grant) to the port
    }
  }

 private:
  // This pass's grants, one per output (request index idx, downstream VC vc, input port).
  struct Grant {
    std::uint32_t ch = 0, idx = 0, vc = 0, port = 0;
  };
  std::vector<Grant> grants_;
};

}  // namespace

std::unique_ptr<SwitchAllocatorUnit> make_islip() { return std::make_unique<ISlip>(); }

}  // namespace collsim::network::packet
