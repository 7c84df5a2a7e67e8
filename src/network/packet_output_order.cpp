// Output-order switch allocation (switch_allocator output-order; collsim before issue 37, kept to
// reproduce old results): the outputs with something new allocate in channel order, each
// granting the first request that can go (its input port free, a downstream VC with room) in a
// round-robin over a list of its requests kept in arrival order, from the position after the
// request granted last (schedule_ni: the earliest step first). Its known deviation: a granted
// request leaves the list and a re-request joins at its end, so two VCs of one input port
// re-requesting in turn can keep the pointer from another port's request
// (docs/network-models.md, "Router allocation").
#include "network/packet_allocator.hpp"
#include "network/packet_fabric.hpp"

namespace collsim::network::packet {
namespace {

class OutputOrder final : public SwitchAllocatorUnit {
 public:
  void allocate(Fabric& f) override {
    for (std::uint32_t ch : f.alloc_now) {
      f.take_arrivals(ch);
      try_grant(f, ch);
    }
  }

 private:
  static void try_grant(Fabric& f, std::uint32_t ch) {
    if (!f.ready_to_grant(ch)) return;
    Channel& c = f.channels[ch];
    const std::size_t n = c.requests.size();
    std::size_t idx = n;
    std::uint32_t vc = kNoVc, best_key = UINT32_MAX;
    for (std::size_t k = 0, i = c.rr < n ? c.rr : 0; k < n; ++k, i = i + 1 == n ? 0 : i + 1) {
      const InputVc& cand = f.ivcs[c.requests[i]];
      if (!f.port_free(cand)) continue;
      const Packet& cp = f.front(cand);
      const std::uint32_t v = f.pick_vc(ch, cp, cand);
      if (v == kNoVc) continue;
      const std::uint32_t key = f.opt.schedule_ni ? f.priority_of(cp) : 0;
      if (idx == n || key < best_key) {
        idx = i;
        vc = v;
        best_key = key;
      }
      if (!f.opt.schedule_ni) break;
    }
    if (idx != n) {
      f.grant(ch, idx, vc);
    } else {
      f.wait_for_credits(ch);
    }
  }
};

}  // namespace

std::unique_ptr<SwitchAllocatorUnit> make_output_order() { return std::make_unique<OutputOrder>(); }

}  // namespace collsim::network::packet
