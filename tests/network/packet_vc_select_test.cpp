// The packet backend's VC selection unit (network/packet_vc_select.hpp): select_vc's two policies
// and VcClasses' dateline and topology classes, their VC ranges and round-robin pointers, checked
// against the rules written out by hand (Dally & Towles ch. 14.1 for datelines; Kim et al.
// ISCA'08 Sec. 4.2 for a class per global hop).
#include "network/packet_vc_select.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace collsim::network::packet {
namespace {

std::vector<std::uint32_t> order_of(VcRange r, std::vector<bool> usable_mask) {
  // The VCs round-robin selection picks one after another when each pick is removed.
  std::vector<std::uint32_t> got;
  for (;;) {
    const std::uint32_t v = select_vc(
        VcSelect::RoundRobin, r, [&](std::uint32_t x) { return usable_mask[x]; },
        [](std::uint32_t) { return 0u; });
    if (v == kNoVc) return got;
    got.push_back(v);
    usable_mask[v] = false;
  }
}

TEST(PacketVcSelect, RoundRobinStartsAtItsPointerAndWrapsWithinTheRange) {
  // VCs 2..5, pointer 3: 5 first, then 2, 3, 4; VCs outside the range are never taken.
  const VcRange r{2, 6, 3};
  EXPECT_EQ(order_of(r, std::vector<bool>(8, true)), (std::vector<std::uint32_t>{5, 2, 3, 4}));
  EXPECT_EQ(order_of(r, {true, true, false, true, false, false, true, true}),
            (std::vector<std::uint32_t>{3}));
  EXPECT_EQ(order_of(r, {true, true, false, false, false, false, true, true}),
            std::vector<std::uint32_t>{});
}

TEST(PacketVcSelect, MostFreeTakesTheUsableVcWithTheMostSpaceTiesToTheLowest) {
  const std::vector<std::uint32_t> free = {90, 40, 70, 70, 10};
  const std::vector<bool> usable = {false, true, true, true, true};
  const auto pick = [&](VcRange r) {
    return select_vc(
        VcSelect::MostFree, r, [&](std::uint32_t v) { return usable[v]; },
        [&](std::uint32_t v) { return free[v]; });
  };
  EXPECT_EQ(pick({0, 5, 4}), 2u);  // 90 is not usable; 70 twice: the lower; the pointer is ignored
  EXPECT_EQ(pick({3, 5, 0}), 3u);
  EXPECT_EQ(pick({0, 1, 0}), kNoVc);
}

TEST(PacketVcSelect, DatelineClassesSplitTheVcsInHalves) {
  // 4 VCs: class 0 on VCs 0-1, class 1 (after the wrap-around link) on VCs 2-3.
  VcClasses c(4, true, 0, 3);
  EXPECT_EQ(c.range(0, 0).lo, 0u);
  EXPECT_EQ(c.range(0, 0).hi, 2u);
  EXPECT_EQ(c.range(0, 1).lo, 2u);
  EXPECT_EQ(c.range(0, 1).hi, 4u);
  // The wrap-around link takes class 1; a new dimension restarts at class 0; the same dimension
  // keeps the packet's class.
  EXPECT_EQ(c.class_on(true, false, 0, 0, 0), 1u);
  EXPECT_EQ(c.class_on(false, false, 1, 1, 0), 0u);
  EXPECT_EQ(c.class_on(false, false, 0, 1, 0), 1u);
  EXPECT_EQ(c.class_after(true, false, 0, 0, 0), 1u);
  EXPECT_EQ(c.class_after(false, false, 0, 1, 0), 1u);  // sticks within the dimension
  EXPECT_EQ(c.class_after(false, false, 1, 1, 0), 0u);  // and not into the next one
}

TEST(PacketVcSelect, TopologyClassesGoUpOnEachRaisingLinkAndStopAtTheLast) {
  // 3 classes over 8 VCs: floor(k 8 / 3) .. : 0-1, 2-4, 5-7.
  VcClasses c(8, false, 3, 2);
  EXPECT_EQ(c.range(1, 0).lo, 0u);
  EXPECT_EQ(c.range(1, 0).hi, 2u);
  EXPECT_EQ(c.range(1, 1).lo, 2u);
  EXPECT_EQ(c.range(1, 1).hi, 5u);
  EXPECT_EQ(c.range(1, 2).lo, 5u);
  EXPECT_EQ(c.range(1, 2).hi, 8u);
  EXPECT_EQ(c.class_on(false, true, 0, 0, 0), 1u);
  EXPECT_EQ(c.class_on(false, false, 0, 1, 0), 1u);
  EXPECT_EQ(c.class_on(false, true, 0, 2, 0), 2u);  // no class above the last
  EXPECT_EQ(c.class_after(false, true, 0, 1, 0), 2u);
  // One class (or none): every VC, class 0 whatever the link.
  VcClasses one(4, false, 1, 2);
  EXPECT_EQ(one.class_on(false, true, 0, 0, 0), 0u);
  EXPECT_EQ(one.range(0, 0).hi, 4u);
}

TEST(PacketVcSelect, AGrantMovesItsClassPointerOnePastTheVcOnThatChannelOnly) {
  VcClasses c(4, true, 0, 2);
  EXPECT_EQ(c.range(0, 1).start, 0u);
  c.granted(0, 2);  // class 1's first VC: its pointer moves to the second
  EXPECT_EQ(c.range(0, 1).start, 1u);
  c.granted(0, 3);  // past the class's last VC: back to its first
  EXPECT_EQ(c.range(0, 1).start, 0u);
  c.granted(0, 0);
  EXPECT_EQ(c.range(0, 0).start, 1u);
  EXPECT_EQ(c.range(0, 1).start, 0u);  // the other class's pointer stays
  EXPECT_EQ(c.range(1, 0).start, 0u);  // and so does the other channel's
}

}  // namespace
}  // namespace collsim::network::packet
