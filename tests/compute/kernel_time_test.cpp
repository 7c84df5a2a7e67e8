// compute/kernel_time: a GEMM's tile and wave quantization against closed forms on A100 (108 SMs,
// tiles of NVIDIA's Matrix Multiplication Background guide), and a kernel's max(compute, memory)
// plus launch.
#include <gtest/gtest.h>

#include <algorithm>

#include "compute/gpu_specs.hpp"
#include "compute/kernel_time.hpp"
#include "core/error.hpp"

namespace collsim::compute {
namespace {

const GpuSpec& a100() { return find_gpu("a100-80gb", "gpu"); }

// Seconds of one 256 x 128 tile of depth k on one A100 SM at efficiency e.
double tile_s(double k, double e) { return 2.0 * 256 * 128 * k / (312e12 * e / 108); }

TEST(GemmTiles, OneFullWaveRunsAtTheFullTileEfficiency) {
  // 12 x 9 = 108 tiles of 256 x 128: one wave, no padding.
  const GemmPlan p = plan_gemm(a100(), {256.0 * 12, 128.0 * 9, 4096}, 0.7);
  EXPECT_EQ(p.waves, 1);
  EXPECT_EQ(p.split_k, 1u);
  EXPECT_NEAR(p.seconds, tile_s(4096, 0.7), 1e-15);
  const double achieved = GemmShape{256.0 * 12, 128.0 * 9, 4096}.flops() / p.seconds;
  EXPECT_NEAR(achieved / 312e12, 0.7, 1e-9);
}

TEST(GemmTiles, OneColumnMoreCostsAQuarterMoreWithTheBestTile) {
  // n = 1153: 256 x 128 tiles need 120 blocks (two waves); 128 x 64 tiles 24 x 19 = 456 blocks,
  // five waves of a quarter-size tile, whose operands need 0.99 of the L2 bandwidth an SM's
  // share gives (42.7 FLOP per byte against 43.2): the cheapest, 1.25 / 0.988 of one wave.
  const GemmPlan p = plan_gemm(a100(), {256.0 * 12, 128.0 * 9 + 1, 4096}, 0.7);
  const double need = 312e12 / (1.41e9 * 5120);  // FLOP per L2 byte at the peak
  const double rate = std::min(1.0, (128.0 * 64 / 192) / need);
  EXPECT_EQ(p.tile_m * p.tile_n, 128u * 64);
  EXPECT_EQ(p.waves, 5);
  EXPECT_NEAR(p.seconds / tile_s(4096, 0.7), 5.0 / 4 / rate, 1e-9);
  EXPECT_GT(rate, 0.98);
  EXPECT_LT(rate, 1.0);
}

TEST(GemmTiles, FewTilesSplitTheReductionAcrossIdleSms) {
  // 4 tiles of 256 x 128 with k = 65,536: split-K fills the SMs (27 ways at most: 108 / 4 SMs,
  // every slice at least 256 deep); without it the GEMM would take 4 / 108 of the GPU.
  const GemmShape g{256, 512, 65536};
  const GemmPlan p = plan_gemm(a100(), g, 0.7);
  EXPECT_GT(p.split_k, 1u);
  EXPECT_GT(p.split_bytes, 0);
  const double unsplit = tile_s(65536, 0.7);
  EXPECT_LT(p.seconds, unsplit / 10);
}

TEST(GemmTiles, EfficiencyRisesWithTheHiddenSize) {
  // The QKV GEMM of one 2,048-token micro-batch at tp 8. Hidden 1,024: 8 x 3 tiles of 256 x 128
  // fill 24 of 108 SMs; split-K four ways (k / 4 = 256) makes 96 blocks, one wave: 8/9 of the
  // full-tile efficiency. Hidden 12,288 (the 175B layer): 256 x 128 tiles make 288 blocks, 3
  // waves for 2.67 of work (8/9); 128 x 64 tiles 1,152 blocks, 11 waves for 10.67 (0.970), at
  // 0.987 of the SM's rate for their L2 traffic: 0.957.
  const auto eff = [](double h) {
    const GemmShape g{2048, 3 * h / 8, h};
    return g.flops() / plan_gemm(a100(), g, 0.7).seconds / 312e12 / 0.7;
  };
  const double need = 312e12 / (1.41e9 * 5120);  // FLOP per L2 byte at the peak
  EXPECT_NEAR(eff(1024), 8.0 / 9, 1e-9);
  EXPECT_NEAR(eff(12288), 32.0 / 33 * (128.0 * 64 / 192) / need, 1e-9);
  // k too short to split: a 1,024 x 256 output fills 64 blocks of 64 x 64, one wave on 108 SMs
  // at 0.74 of the rate (their L2 traffic): 0.44 of the full-tile efficiency.
  const GemmShape small{1024, 256, 256};
  EXPECT_NEAR(small.flops() / plan_gemm(a100(), small, 0.7).seconds / 312e12 / 0.7,
              64.0 / 108 * 32 / need, 1e-9);
}

TEST(KernelTime, MaxOfComputeAndMemoryPlusOneLaunch) {
  const GpuSpec& g = a100();
  KernelWork copy;
  copy.bytes = 2e9;  // 2 GB through HBM at 0.88 x 2,039 GB/s
  const KernelTime t = kernel_time(g, copy, 0.7);
  EXPECT_EQ(t.compute, 0);
  EXPECT_NEAR(t.memory, 2e9 / 1.80e12, 1e-9);
  EXPECT_NEAR(t.seconds(), 2e9 / 1.80e12 + 0.9e-6, 1e-9);
  // A batched GEMM with k = 64 (attention scores of head size 64) writes more than it computes.
  KernelWork scores;
  scores.gemm = {2048, 2048, 64, 32};
  scores.bytes = 2.0 * (2048 * 64 * 2 + 2048.0 * 2048) * 32;
  const KernelTime s = kernel_time(g, scores, 0.7);
  EXPECT_GT(s.memory, s.compute);
  EXPECT_THROW(plan_gemm(g, {1, 1, 1}, 0), core::InputError);
}

}  // namespace
}  // namespace collsim::compute
