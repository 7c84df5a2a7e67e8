#include "network/packet_vc_select.hpp"

namespace collsim::network::packet {

VcClasses::VcClasses(std::uint32_t vcs, bool datelines, std::uint32_t classes,
                     std::uint32_t channels)
    : datelines_(datelines), classes_(datelines || classes <= 1 ? 0 : classes) {
  const std::uint32_t n = datelines_ ? 2 : classes_ != 0 ? classes_ : 1;
  for (std::uint32_t k = 0; k <= n; ++k) lo_.push_back(k * vcs / n);
  for (std::uint32_t v = 0; v < vcs; ++v) {
    std::uint32_t k = 0;
    while (lo_[k + 1] <= v) ++k;
    class_of_.push_back(static_cast<std::uint8_t>(k));
  }
  per_channel_ = n;
  rr_.assign(std::size_t{channels} * n, 0);
}

}  // namespace collsim::network::packet

#include "network/packet_fabric.hpp"

namespace collsim::network::packet {

std::uint32_t Fabric::pick_vc(std::uint32_t ch, const Packet& p, const InputVc& in) const {
  const Channel& c = channels[ch];
  if (c.sink) return 0;
  // Virtual cut-through needs room for the whole packet; wormhole room for one flit, in the VC
  // the worm's head took (body flits) or in an idle VC (a head).
  const std::uint32_t need = p.flits;
  const InputVc* down = &ivcs[std::size_t{ch} * vcs];
  const auto room = [&](std::uint32_t v) {
    if (down[v].credits >= need) return true;
    if (c.returns_pending == 0) return false;  // nothing coming back to count
    return down[v].credits + partial(ch, v) >= need;
  };
  if (!p.worm_head) return room(in.out_vc) ? in.out_vc : kNoVc;
  const auto usable = [&](std::uint32_t v) { return room(v) && (!worms || !down[v].held); };
  if (c.into_ni) return usable(0) ? 0 : kNoVc;
  const std::uint32_t cls = classes.class_on(c.dateline, c.raises, c.dim, p.vc_class, p.dim);
  return select_vc(opt.vc_select, classes.range(ch, cls), usable,
                   [&](std::uint32_t v) { return down[v].credits; });
}

}  // namespace collsim::network::packet
