#pragma once
// VC allocation of the packet backend (Dally & Towles ch. 19; BookSim's VC allocator): which VC
// of a channel's downstream input port a packet's head takes. The packet's class fixes a range of
// VCs, and `vc_select` picks one in it that is usable (room for the packet, not held by a worm):
//  * torus dateline classes: the VCs split in two halves; a packet takes the upper half on a
//    ring's wrap-around link and after it in that dimension, the lower half in a new dimension
//    (with dimension-order routing this breaks every cyclic channel dependency);
//  * topology VC classes (Topology::vc_classes; the dragonfly, Kim et al. ISCA'08 Sec. 4.2):
//    class k of C on VCs floor(k V / C) .. floor((k + 1) V / C) - 1, one class up on each link
//    the topology marks (a global link);
//  * round-robin: the first usable VC at or after the class's pointer, which moves one past the
//    VC granted (per channel and class); most-free: the usable VC with the most free space,
//    ties to the lowest (collsim before issue 37).
// Internal to src/network/packet*.cpp.
#include <cstdint>
#include <vector>

#include "network/backend.hpp"

namespace collsim::network::packet {

constexpr std::uint32_t kNoVc = UINT32_MAX;

/// The VCs of one class on one channel, and where its round-robin pointer stands.
struct VcRange {
  std::uint32_t lo = 0, hi = 0;  // VCs lo .. hi - 1
  std::uint32_t start = 0;       // round-robin: try lo + start first
};

/// The first VC of `r` that `usable(v)` accepts, by `policy` (free(v): its free flits, for
/// most-free); kNoVc if none.
template <class Usable, class Free>
std::uint32_t select_vc(VcSelect policy, const VcRange& r, Usable usable, Free free) {
  if (policy == VcSelect::RoundRobin) {
    const std::uint32_t n = r.hi - r.lo;
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::uint32_t v = r.start + k < n ? r.lo + r.start + k : r.lo + r.start + k - n;
      if (usable(v)) return v;
    }
    return kNoVc;
  }
  // The VC with the most free space (ties: the lowest): packets spread over the VCs instead of
  // queueing behind each other in one, as a VC allocator that prefers idle VCs does.
  std::uint32_t best = kNoVc;
  for (std::uint32_t v = r.lo; v < r.hi; ++v) {
    if (usable(v) && (best == kNoVc || free(v) > free(best))) best = v;
  }
  return best;
}

/// A backend's VC classes and its VC allocator's round-robin pointers (per channel and class).
class VcClasses {
 public:
  VcClasses() = default;
  /// `vcs` VCs per port; dateline classes (datelines) or `classes` topology classes (0 or 1:
  /// none); `channels` channels. Precondition: vcs even with datelines, vcs >= classes.
  VcClasses(std::uint32_t vcs, bool datelines, std::uint32_t classes, std::uint32_t channels);

  /// The class a packet of class `cls` whose last link was in dimension `dim` takes on a channel
  /// (its dimension, wrap-around and class-raising flags).
  std::uint32_t class_on(bool dateline, bool raises, std::uint32_t channel_dim, std::uint32_t cls,
                         std::uint32_t dim) const {
    if (datelines_) return dateline ? 1 : channel_dim == dim ? cls : 0;
    if (classes_ != 0) return std::min(cls + (raises ? 1u : 0u), classes_ - 1);
    return 0;
  }
  /// The packet's class once it has crossed such a link (the dateline class sticks within a
  /// dimension).
  std::uint32_t class_after(bool dateline, bool raises, std::uint32_t channel_dim,
                            std::uint32_t cls, std::uint32_t dim) const {
    if (classes_ != 0) return std::min(cls + (raises ? 1u : 0u), classes_ - 1);
    return (channel_dim == dim ? cls : 0) | (dateline ? 1u : 0u);
  }
  /// The VCs of class `cls` on channel `ch`, with its pointer.
  VcRange range(std::uint32_t ch, std::uint32_t cls) const {
    return {lo_[cls], lo_[cls + 1], rr_[std::size_t{ch} * per_channel_ + cls]};
  }
  /// VC `vc` of channel `ch` was granted: its class's pointer moves one past it.
  void granted(std::uint32_t ch, std::uint32_t vc) {
    const std::uint32_t cls = class_of_[vc], lo = lo_[cls];
    const std::uint32_t next = vc - lo + 1;
    rr_[std::size_t{ch} * per_channel_ + cls] = next == lo_[cls + 1] - lo ? 0 : next;
  }

 private:
  bool datelines_ = false;
  std::uint32_t classes_ = 0;
  std::uint32_t per_channel_ = 1;       // classes with a pointer on every channel
  std::vector<std::uint32_t> lo_;       // class k: VCs lo_[k] .. lo_[k + 1] - 1
  std::vector<std::uint8_t> class_of_;  // per VC
  std::vector<std::uint32_t> rr_;       // per channel x class
};

}  // namespace collsim::network::packet
