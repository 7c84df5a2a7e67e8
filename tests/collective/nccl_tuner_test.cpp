// NCCL's tuner latency (collective/nccl/tuner.hpp) against NCCL 2.29's formulas worked by hand
// from its constants (src/tuning/cost_model.cc, ring.cc, tree.cc, nvls.cc, pat.cc), and the
// 1 KiB all-reduce of `collsim nccl-tests` growing with the shape as that latency does.
#include <gtest/gtest.h>

#include <cstdint>

#include "collective/nccl/model.hpp"
#include "collective/nccl/tuner.hpp"
#include "topology/gpu_systems/gpu_system.hpp"

namespace collsim::collective::nccl {
namespace {

Context on(std::string_view system, std::uint32_t gpus, std::uint32_t nodes) {
  return Context{topology::find_gpu_system(system, "--system"), {gpus, nodes}, {}};
}

constexpr double kUs = 1e-6;

TEST(NcclTuner, LatencyTermMatchesNcclsFormulaOnThreeShapes) {
  // 2 nodes x 8 H100 (Intel host), ring all-reduce: 2 (16 - 1) = 30 steps, 2 (2 - 1) = 2 of
  // them network. Simple: 8.4 + 28 x max(3.4, 3 x 1.0) + 2 x 14 = 131.6 us;
  // LL: 6.6 + 28 x max(0.6, 1.0) + 2 x 2.7 = 40.0 us; LL128: 14 + 28 x 1.9 + 2 x 4 = 75.2 us.
  const Context h2x8 = on("h100", 8, 2);
  EXPECT_NEAR(tuner_latency(TunerAlgo::Ring, Protocol::Simple, Op::AllReduce, h2x8), 131.6 * kUs,
              1e-9);
  EXPECT_NEAR(tuner_latency(TunerAlgo::Ring, Protocol::LL, Op::AllReduce, h2x8), 40.0 * kUs, 1e-9);
  EXPECT_NEAR(tuner_latency(TunerAlgo::Ring, Protocol::LL128, Op::AllReduce, h2x8), 75.2 * kUs,
              1e-9);
  // 4 nodes x 8 A100 (AMD host: network post overhead 2 us, x 3 for Simple), ring all-gather:
  // 31 steps, 3 network: 8.4 + 28 x max(3.4, 6.0) + 3 x 14 = 218.4 us. Tree all-reduce, LL:
  // 6.8 + 2 (7 x 0.6 + log2 4 x 5.0) = 35.2 us. NVLS-tree on 4 x 8 H100: 25 + 2 x 2 x 20.9.
  const Context a4x8 = on("a100", 8, 4);
  EXPECT_NEAR(tuner_latency(TunerAlgo::Ring, Protocol::Simple, Op::AllGather, a4x8), 218.4 * kUs,
              1e-9);
  EXPECT_NEAR(tuner_latency(TunerAlgo::Tree, Protocol::LL, Op::AllReduce, a4x8), 35.2 * kUs, 1e-9);
  EXPECT_NEAR(tuner_latency(TunerAlgo::NvlsTree, Protocol::Simple, Op::AllReduce, on("h100", 8, 4)),
              108.6 * kUs, 1e-9);
  // 16 nodes x 1 H100: tree all-reduce, Simple: 8.4 + 2 (0 + 4 x 14) = 120.4 us; PAT all-gather:
  // 8 + 4 x 14 / 3.5 + 16 x 2.8 = 68.8 us; one node of 8 H100s, NVLS: its 25 us alone, and the
  // ring's LL all-reduce 6.6 + 14 x 0.6 = 15.0 us.
  const Context h16x1 = on("h100", 1, 16);
  EXPECT_NEAR(tuner_latency(TunerAlgo::Tree, Protocol::Simple, Op::AllReduce, h16x1), 120.4 * kUs,
              1e-9);
  EXPECT_NEAR(tuner_latency(TunerAlgo::Pat, Protocol::Simple, Op::AllGather, h16x1), 68.8 * kUs,
              1e-9);
  const Context h1x8 = on("h100", 8, 1);
  EXPECT_NEAR(tuner_latency(TunerAlgo::Nvls, Protocol::Simple, Op::AllReduce, h1x8), 25 * kUs,
              1e-9);
  EXPECT_NEAR(tuner_latency(TunerAlgo::Ring, Protocol::LL, Op::AllReduce, h1x8), 15.0 * kUs, 1e-9);
}

TEST(NcclTuner, RingPlateauAndSizeCorrectionsAreNccls) {
  // ring.cc: x 1.4 for a multi-node Simple all-reduce from 64 bytes per channel and rank (24
  // channels x 16 ranks x 64 = 24 KiB), not on one node, not for LL.
  const Context h2x8 = on("h100", 8, 2);
  EXPECT_EQ(ring_plateau_factor(Protocol::Simple, Op::AllReduce, 24576, h2x8), 1.4);
  EXPECT_EQ(ring_plateau_factor(Protocol::Simple, Op::AllReduce, 24575, h2x8), 1.0);
  EXPECT_EQ(ring_plateau_factor(Protocol::LL, Op::AllReduce, 1e9, h2x8), 1.0);
  EXPECT_EQ(ring_plateau_factor(Protocol::Simple, Op::AllGather, 1e9, h2x8), 1.0);
  EXPECT_EQ(ring_plateau_factor(Protocol::Simple, Op::AllReduce, 1e9, on("h100", 8, 1)), 1.0);
  // treeCorrectionFactor: 1 MiB is log2(2^20 / 64) = 14: LL .5, LL128 .6, Simple .5; none from
  // 2^23 x 64 bytes (512 MiB).
  EXPECT_EQ(tree_correction(Protocol::LL, 1 << 20), 0.5);
  EXPECT_EQ(tree_correction(Protocol::LL128, 1 << 20), 0.6);
  EXPECT_EQ(tree_correction(Protocol::Simple, 1 << 20), 0.5);
  EXPECT_EQ(tree_correction(Protocol::Simple, 512.0 * (1 << 20)), 1.0);
  // llMaxBws: one Hopper node 141 GB/s; across nodes by CPU: Intel 39 (2 nodes), 20.4 (more).
  EXPECT_EQ(ll_max_bandwidth(on("h100", 8, 1)), 141e9);
  EXPECT_EQ(ll_max_bandwidth(h2x8), 39e9);
  EXPECT_NEAR(ll_max_bandwidth(on("h100", 8, 4)), 20.4e9, 1);
  EXPECT_EQ(ll_max_bandwidth(on("a100", 8, 4)), 19e9);  // AMD host
}

// `collsim nccl-tests all_reduce_perf --system h100 --nodes N -g G -b 1K -e 1K`, N 2-16, G 1-8:
// NCCL's choice at 1 KiB is latency-bound, so its time is α + the chosen algorithm's tuner
// latency + under a microsecond of transfer, and grows with nodes and with GPUs per node.
TEST(NcclTuner, OneKibAllReduceGrowsWithTheShapeAsTheTunerLatency) {
  int checked = 0;
  for (std::uint32_t g : {1u, 2u, 4u, 8u}) {
    double previous_nodes = 0;
    for (std::uint32_t n = 2; n <= 16; ++n) {
      const Context ctx = on("h100", g, n);
      const Estimate e = estimate("nccl", Op::AllReduce, 1024, ctx);
      const double floor = e.seconds - ctx.calibration.overhead_s;
      double least = 1;
      for (TunerAlgo a : {TunerAlgo::Ring, TunerAlgo::Tree, TunerAlgo::NvlsTree}) {
        for (Protocol p : kProtocols) {
          if (a == TunerAlgo::NvlsTree && p != Protocol::Simple) continue;
          least = std::min(least, tuner_latency(a, p, Op::AllReduce, ctx));
        }
      }
      EXPECT_GE(floor, least) << g << "x" << n;
      EXPECT_LT(floor, least + 1.5e-6) << g << "x" << n << " " << e.algorithm->name;
      EXPECT_GE(e.seconds, previous_nodes) << g << "x" << n;
      previous_nodes = e.seconds;
      if (g > 1) {
        EXPECT_GE(e.seconds, estimate("nccl", Op::AllReduce, 1024, on("h100", g / 2, n)).seconds)
            << g << "x" << n;
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 60);
}

}  // namespace
}  // namespace collsim::collective::nccl
