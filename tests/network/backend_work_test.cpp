// The work guard counts what each backend simulates (issue 36 item 7): the packet backend's
// events are per packet (virtual cut-through) or per flit (wormhole), so a huge message is refused
// by its packets though it is one message; and a message of 2^64 - 1 bytes is counted without
// overflow.
#include <gtest/gtest.h>

#include "cli_run.hpp"
#include "network/backend.hpp"

namespace collsim::network {
namespace {

TEST(BackendWork, PacketBackendCountsPacketsAndFlits) {
  const BackendInfo& info = find_backend("packet", "backend");
  ASSERT_NE(info.work, nullptr);
  BackendOptions o;  // 256 B packets of 16 B flits
  // 10 messages of 2560 B in all: 10 + 10 packets.
  EXPECT_EQ(info.work(o, 10, 2560), 20u);
  o.packet.switching = Switching::Wormhole;
  // Flits: 20 packets (heads) + 160 payload flits + 10 for rounding.
  EXPECT_EQ(info.work(o, 10, 2560), 190u);
  EXPECT_GT(info.work(o, 1, UINT64_MAX), 1ull << 60);  // no overflow
  EXPECT_EQ(find_backend("analytical", "backend").work, nullptr);         // per message
}

TEST(BackendWork, HugeMessagesOnThePacketBackendAreRefused) {
  // 64 TiB: within the simulation horizon at 16 GB/s (4,400 s), but 112 messages of 1024 TiB
  // in all are 4.4e12 packets of 256 B. (2^64 - 1 B is refused earlier, as past the horizon.)
  const auto r = test::collsim("collective -t switch:8 -a ring -b packet -s 64TiB");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("about 4.4e+12 packets on the packet backend"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(--max-messages)"), std::string::npos) << r.err;
  const auto huge =
      test::collsim("collective -t switch:8 -a ring -b packet -s 18446744073709551615B");
  EXPECT_EQ(huge.status, 2) << huge.err;
  // Within the limit, the same size runs on a backend whose events are per message.
  const auto a =
      test::collsim("collective -t switch:8 -a ring -b analytical -s 1TiB --format csv -q");
  EXPECT_EQ(a.status, 0) << a.err;
}

TEST(BackendWork, StagedCollectivesOnThePacketBackendCountEveryGroup) {
  // The packet backend shares routers between groups, so every group of a hierarchical
  // all-reduce runs: 32 groups x 2 x 32 x 31 messages per phase, 2 phases, 2 dimensions =
  // 253,952 (what the run sends), not the 3,968 of one group per dimension.
  const auto r = test::collsim(
      "collective -t hier:ring32xring32 -a hierarchical -b packet -s 16MiB --max-messages 2e5");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("about 2.54e+05 messages"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("every group simulated: the packet backend"), std::string::npos) << r.err;
  // On flow without NIC caps one group per dimension stands for all: the same limit passes.
  const auto f = test::collsim(
      "collective -t hier:ring32xring32 -a hierarchical -b flow -s 16MiB --max-messages 2e5 "
      "--format csv -q");
  EXPECT_EQ(f.status, 0) << f.err;
}

}  // namespace
}  // namespace collsim::network
