// The packet backend's switch allocator registry (network/packet_allocator.hpp): one entry per
// network::SwitchAllocator, in its order, each making its unit. Each allocator's rule is checked
// in its own test: input-first in packet_router_test.cpp and packet_equivalence_test.cpp (against
// a flit-by-flit reference), iSLIP in packet_islip_test.cpp, output-order (the legacy rule) in
// packet_router_test.cpp's TheLegacyAllocationStillReproducesTheIssue.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "network/backend.hpp"
#include "network/packet_allocator.hpp"

namespace collsim::network::packet {
namespace {

TEST(PacketAllocators, OneEntryPerSwitchAllocatorInItsOrder) {
  const auto all = switch_allocators();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[static_cast<std::size_t>(SwitchAllocator::InputFirst)].name, "input-first");
  EXPECT_EQ(all[static_cast<std::size_t>(SwitchAllocator::OutputOrder)].name, "output-order");
  EXPECT_EQ(all[static_cast<std::size_t>(SwitchAllocator::ISlip)].name, "islip");
  std::set<std::string> names;
  for (const SwitchAllocatorInfo& a : all) {
    EXPECT_FALSE(a.description.empty()) << a.name;
    EXPECT_NE(a.make(), nullptr) << a.name;
    names.emplace(a.name);
  }
  EXPECT_EQ(names.size(), all.size());  // `switch_allocator` names each one once
}

}  // namespace
}  // namespace collsim::network::packet
