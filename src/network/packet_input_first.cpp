// Separable input-first switch allocation (switch_allocator input-first, the default; Dally &
// Towles ch. 19.3; BookSim's separable_input_first), once per instant after the instant's
// changes. Each input port offers one of its VCs: its round-robin choice (from one past the VC it
// sent last) among those whose request can go now (output free, a downstream VC with room),
// schedule_ni's earliest step first. The outputs with something new then allocate in channel
// order, each granting among the offered VCs round-robin over the input ports (from one past the
// port it granted last), schedule_ni's earliest step first. An input port granted by one output
// is busy for the others; a port whose offer lost to another port's is asked again in a further
// pass of the same instant (another iSLIP iteration), when its choice has moved on to a VC whose
// output is still free.
#include <vector>

#include "network/packet_allocator.hpp"
#include "network/packet_fabric.hpp"

namespace collsim::network::packet {
namespace {

class InputFirst final : public SwitchAllocatorUnit {
 public:
  void allocate(Fabric& f) override {
    for (std::uint32_t ch : f.alloc_now) {
      f.take_arrivals(ch);
      try_grant(f, ch);
    }
    const core::Time now = f.sim.now();
    for (std::uint32_t port : chose_) {
      const Channel& pc = f.channels[port];
      if (pc.port_busy_until > now || pc.choice == kNoVc) continue;
      const InputVc& chosen = f.ivcs[pc.choice];
      if (!chosen.requesting) continue;
      if (f.channels[f.target_of(chosen)].busy_until <= now) continue;
      // Its choice lost: its other VCs may go to outputs that are still free.
      for (std::uint32_t v = 0; v < f.vcs; ++v) {
        const InputVc& in = f.ivcs[port * f.vcs + v];
        if (!in.requesting) continue;
        const std::uint32_t t = f.target_of(in);
        if (f.channels[t].busy_until <= now) f.request_alloc(t);
      }
    }
    chose_.clear();
  }

 private:
  void try_grant(Fabric& f, std::uint32_t ch) {
    if (!f.ready_to_grant(ch)) return;
    Channel& c = f.channels[ch];
    const std::size_t n = c.requests.size();
    const bool sched = f.opt.schedule_ni;
    const std::uint32_t num_ports = f.num_ports();
    std::size_t idx = n;
    std::uint32_t vc = kNoVc, best_key = UINT32_MAX, best_dist = UINT32_MAX;
    for (std::size_t k = 0, i = c.rr < n ? c.rr : 0; k < n; ++k, i = i + 1 == n ? 0 : i + 1) {
      const std::uint32_t r = c.requests[i];
      const InputVc& cand = f.ivcs[r];
      if (!f.port_free(cand)) continue;
      // The port offers one VC this instant (a port with one request offers it).
      const bool offers = cand.channel != kNoChannel && f.channels[cand.channel].port_requests > 1;
      if (offers && port_choice(f, cand.channel, ch) != r) continue;
      const Packet& cp = f.front(cand);
      const std::uint32_t key = sched ? f.priority_of(cp) : 0;
      // A round-robin arbiter over the input ports (each offers one VC): the first after the
      // port granted last (schedule_ni: the earliest step first).
      const std::uint32_t from = f.port_id(r);
      const std::uint32_t dist =
          from > c.last_grant ? from - c.last_grant : from + num_ports - c.last_grant;
      // A request that cannot win needs no downstream VC (finding one changes nothing).
      if (idx != n && !(key < best_key || (key == best_key && dist < best_dist))) continue;
      // The VC the port's choice found (this output's state cannot have changed since: only
      // its own grant changes it), or one for the port's only request.
      const std::uint32_t v = offers ? f.channels[cand.channel].choice_vc : f.pick_vc(ch, cp, cand);
      if (v == kNoVc) continue;
      idx = i;
      vc = v;
      best_key = key;
      best_dist = dist;
      if (n == 1 || (dist == 1 && !sched)) break;  // the port right after the last: first in line
    }
    if (idx != n) {
      f.grant(ch, idx, vc);
    } else {
      f.wait_for_credits(ch);
    }
  }

  // The input VC port `port` offers in this pass (kNoVc: none); computed once per pass.
  std::uint32_t port_choice(Fabric& f, std::uint32_t port, std::uint32_t allocating) {
    Channel& pc = f.channels[port];
    if (pc.choice_pass == f.pass_id) return pc.choice;
    pc.choice_pass = f.pass_id;
    pc.choice = kNoVc;
    chose_.push_back(port);
    const core::Time now = f.sim.now();
    std::uint32_t best_key = UINT32_MAX, target = kNoChannel;
    for (std::uint32_t k = 0; k < f.vcs; ++k) {
      const std::uint32_t v = pc.port_rr + k < f.vcs ? pc.port_rr + k : pc.port_rr + k - f.vcs;
      const std::uint32_t ivc = port * f.vcs + v;
      const InputVc& in = f.ivcs[ivc];
      if (!in.requesting) continue;
      const Packet& p = f.front(in);
      const std::uint32_t t = f.target_of(in);
      if (f.channels[t].busy_until > now) continue;
      f.apply_credits(t);
      const std::uint32_t dv = f.pick_vc(t, p, in);
      if (dv == kNoVc) continue;
      // schedule_ni: the earliest step first (round-robin among equals), as the outputs do.
      const std::uint32_t key = f.priority_of(p);
      if (pc.choice != kNoVc && key >= best_key) continue;
      pc.choice = ivc;
      pc.choice_vc = dv;
      best_key = key;
      target = t;
      if (!f.opt.schedule_ni) break;
    }
    // Its output allocates in this instant (again, if it already has).
    if (target != kNoChannel && target != allocating && !f.channels[target].alloc_due) {
      f.request_alloc(target);
    }
    return pc.choice;
  }

  std::vector<std::uint32_t> chose_;  // ports that chose a VC in this pass
};

}  // namespace

std::unique_ptr<SwitchAllocatorUnit> make_input_first() { return std::make_unique<InputFirst>(); }

}  // namespace collsim::network::packet
