// NCCL's point-to-point channel count (collective/nccl/p2p_channels.hpp), against the rule in
// NCCL's source worked by hand.
#include <gtest/gtest.h>

#include <stdexcept>

#include "collective/nccl/p2p_channels.hpp"

namespace collsim::collective::nccl {
namespace {

constexpr double kMiB = 1 << 20;

TEST(NcclP2pChannels, SetupOnAnH100NodeIs32ChannelsAnd32PerPeer) {
  // 24 collective channels (as NCCL logs on 8 x H100) -> 32; 18 NVLinks -> 2 x 18 = 36 -> 64,
  // capped at the 32 channels.
  const P2pChannelSetup s = nvlink_p2p_setup(24, 18);
  EXPECT_EQ(s.channels, 32);
  EXPECT_EQ(s.channels_per_peer, 32);
  EXPECT_DOUBLE_EQ(s.chunk_bytes, 512 * 1024);
  // 12 collective channels, 2 NVLinks (a PCIe-class pair): 16 channels, 4 per peer.
  const P2pChannelSetup t = nvlink_p2p_setup(12, 2);
  EXPECT_EQ(t.channels, 16);
  EXPECT_EQ(t.channels_per_peer, 4);
  EXPECT_EQ(nvlink_p2p_setup(100, 18).channels, 64);  // NCCL's MAXCHANNELS
  EXPECT_THROW(nvlink_p2p_setup(0, 18), std::invalid_argument);
  EXPECT_THROW(nvlink_p2p_setup(24, 0), std::invalid_argument);
}

TEST(NcclP2pChannels, SendRecvOnEightH100sDoublesFrom128MiB) {
  const P2pChannelSetup s = nvlink_p2p_setup(24, 18);
  // Minimum 32 halved while x 8 ranks > 32: 4. Parts of at most 32 x 512 KiB = 16 MiB.
  EXPECT_EQ(p2p_channels(32 * kMiB, 8, 1, s), 4);
  EXPECT_EQ(p2p_channels(64 * kMiB, 8, 1, s), 4);  // 16 MiB parts: not above the bound
  EXPECT_EQ(p2p_channels(128 * kMiB, 8, 1, s), 8);
  EXPECT_EQ(p2p_channels(256 * kMiB, 8, 1, s), 16);
  EXPECT_EQ(p2p_channels(512 * kMiB, 8, 1, s), 32);
  EXPECT_EQ(p2p_channels(16384 * kMiB, 8, 1, s), 32);  // per-peer maximum
  // Small operations: at least one 64 KiB (chunk / 8) part per channel.
  EXPECT_EQ(p2p_channels(64 * 1024, 8, 1, s), 1);
  EXPECT_EQ(p2p_channels(128 * 1024, 8, 1, s), 2);
  EXPECT_EQ(p2p_channels(4 * kMiB, 8, 1, s), 4);  // an alltoall's 32 MiB / 8 to each peer
  EXPECT_EQ(p2p_channels(0, 8, 1, s), 1);
  // Two ranks: minimum 16 (16 x 2 <= 32).
  EXPECT_EQ(p2p_channels(32 * kMiB, 2, 1, s), 16);
}

TEST(NcclP2pChannels, AcrossNodesThePartsAreOneChunk) {
  // 16 channels, 4 per peer, 128 KiB chunk (NCCL_P2P_NET_CHUNKSIZE), 16 ranks on 2 nodes:
  // minimum 4 -> 2 -> 1; 1 MiB starts on 1 channel, parts above 128 KiB double it up to 4.
  const P2pChannelSetup s{16, 4, 128 * 1024};
  EXPECT_EQ(p2p_channels(kMiB, 16, 2, s), 4);
  EXPECT_EQ(p2p_channels(128 * 1024, 16, 2, s), 1);
  EXPECT_EQ(p2p_channels(256 * 1024, 16, 2, s), 2);
}

}  // namespace
}  // namespace collsim::collective::nccl
