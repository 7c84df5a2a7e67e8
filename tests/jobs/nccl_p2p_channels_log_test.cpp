// NCCL's point-to-point channel rule (collective/nccl/p2p_channels.hpp) and collsim's reading of
// one channel's rate, checked against the sendrecv rows of the measured 8 x H100 log
// (docs/nccl.md "p2p"): where the rule gives 4, 4 and 8 channels (32, 64, 128 MiB), the time
// left once α and the latency are taken off moves one NVLink's NCCL rate per channel
// (SM90_NVLINK_BW, 20.6 GB/s) to within a few percent, where every other reading found in NCCL's
// source is 1.5-2x off; and under the same rule alltoall_perf has enough channels at once to be
// link-bound at every size. Nothing here is fitted: the rate is NCCL's constant.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

#include "collective/nccl/model.hpp"
#include "collective/nccl/p2p_channels.hpp"
#include "collective/nccl/tuner.hpp"
#include "jobs/nccl_tests.hpp"
#include "real_inputs.hpp"
#include "topology/gpu_systems/gpu_system.hpp"

namespace collsim::jobs {
namespace {

namespace nccl = collective::nccl;

TEST(NcclP2pChannels, H100LogSendRecvMovesOneNvlinkPerChannel) {
  const auto dir = test::real_inputs("COLLSIM_NCCL_TESTS", "nccl-tests");
  if (dir.empty()) GTEST_SKIP() << test::no_real_inputs("COLLSIM_NCCL_TESTS", "nccl-tests");
  const auto path = dir / "h100-sxm-8gpu-nccl-2.29.2.log";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const topology::GpuSystem& h100 = topology::find_gpu_system("h100", "--system");
  const nccl::Context ctx{h100, {8, 1}, {}};
  const nccl::P2pChannelSetup setup = nccl::nvlink_p2p_setup(24, 18);
  // Fixed part: α + one Simple ring step over NVLink (base 8.4 + 3.4 us).
  const double fixed =
      ctx.calibration.overhead_s +
      nccl::base_latency(nccl::TunerAlgo::Ring, nccl::Protocol::Simple) +
      nccl::hw_latency(nccl::Hw::NVLink, nccl::TunerAlgo::Ring, nccl::Protocol::Simple);
  std::vector<double> per_channel;  // bytes/s one channel moved, 32-128 MiB
  std::vector<int> counts;
  const auto runs = read_nccl_log(text.str(), path.string());
  for (const NcclLogRun& run : runs) {
    if (run.op != nccl::Op::SendRecv) continue;
    for (std::size_t i = 0; i < run.bytes.size(); ++i) {
      const double bytes = static_cast<double>(run.bytes[i]);
      const int channels = nccl::p2p_channels(bytes, run.ranks, run.nodes, setup);
      counts.push_back(channels);
      if (bytes > 128.0 * (1 << 20)) continue;
      per_channel.push_back(bytes / channels / (run.time_us[i] * 1e-6 - fixed));
    }
  }
  EXPECT_EQ(counts, (std::vector<int>{4, 4, 8, 16, 32, 32, 32, 32, 32, 32}));
  ASSERT_EQ(per_channel.size(), 3u);
  const double link = h100.nccl.nvlink_rate.value;  // SM90_NVLINK_BW, 20.6 GB/s
  for (double r : per_channel) {
    EXPECT_GT(r / link, 0.96) << r;
    EXPECT_LT(r / link, 1.04) << r;
  }
  // The readings that are not it: half a link (NCCL provisions 2 channels per NVLink), the
  // fitted link rate over the 32 p2p or the 24 collective channels: each at most 0.71 of it.
  const double measured = *std::min_element(per_channel.begin(), per_channel.end());
  EXPECT_LT(link / 2 / measured, 0.55);
  EXPECT_LT(nccl::nvlink_rate(ctx) / 32 / measured, 0.55);
  EXPECT_LT(nccl::nvlink_rate(ctx) / 24 / measured, 0.71);
  // alltoall_perf under the same rule: each of the 7 peers gets S/8 on its own channels, all at
  // once (at most the 32 p2p channels): 28 or more channels, each at one link's rate, fill the
  // link at every measured size.
  int alltoall_rows = 0;
  for (const NcclLogRun& run : runs) {
    if (run.op != nccl::Op::AllToAll) continue;
    for (const std::uint64_t bytes : run.bytes) {
      const int per_peer =
          nccl::p2p_channels(static_cast<double>(bytes) / run.ranks, run.ranks, run.nodes, setup);
      const int at_once = std::min(per_peer * static_cast<int>(run.ranks - 1), setup.channels);
      EXPECT_GE(at_once, 28) << bytes;
      EXPECT_GT(at_once * link, nccl::nvlink_rate(ctx)) << bytes;
      ++alltoall_rows;
    }
  }
  EXPECT_EQ(alltoall_rows, 10);
}

}  // namespace
}  // namespace collsim::jobs
