// The NCCL closed form (collective/nccl/model.hpp) against published nccl-tests all-reduce busbw
// figures of machines collsim has no log of (docs/nccl.md "Other presets and shapes"). Nothing
// was fitted to them: NCCL's own constants, the presets' datasheets and the H100-fitted η and α.
#include <gtest/gtest.h>

#include "collective/nccl/model.hpp"
#include "topology/gpu_systems/gpu_system.hpp"

namespace collsim::collective::nccl {
namespace {

// busbw (GB/s) of the `nccl` choice for an all-reduce of 8 GiB.
double all_reduce_busbw(std::string_view system, std::uint32_t gpus, std::uint32_t nodes = 1) {
  const Context ctx{topology::find_gpu_system(system, "--system"), {gpus, nodes}, {}};
  const double bytes = 8.0 * (1ull << 30);
  const Estimate e = estimate("nccl", Op::AllReduce, bytes, ctx);
  return bytes / e.seconds / 1e9 * busbw_factor(Op::AllReduce, ctx.shape.ranks());
}

TEST(NcclPublished, SingleNodeAllReduceWithinTenPercentOfPublishedBusbw) {
  // Azure ND A100 v4 (8 x A100 SXM4, NCCL 2.18.5): 231.58 GB/s in-place at 8G.
  const double a100 = all_reduce_busbw("a100", 8) / 231.58;
  EXPECT_GT(a100, 0.90);
  EXPECT_LT(a100, 1.10);
  // Azure ND H200 v5 (8 x H200, NCCL 2.20.5, NVLS): 479.98 GB/s in-place at 8G.
  const double h200 = all_reduce_busbw("h200", 8) / 479.98;
  EXPECT_GT(h200, 0.90);
  EXPECT_LT(h200, 1.10);
  // Azure ND GB200 v6 (the 4 GB200 of one host, NCCL 2.25.1, ring): 679.61 GB/s at 8G.
  const double gb200 = all_reduce_busbw("gb200", 4) / 679.61;
  EXPECT_GT(gb200, 0.90);
  EXPECT_LT(gb200, 1.10);
}

// A full GB200 NVL72 rack (72 ranks; coreweave/nccl-tests PR 43): 834.57 GB/s out-of-place at
// 8 GiB. collsim's NVLS on 72 GPUs (NCCL's tuner's Blackwell NVLS efficiency 0.74) is 18% above.
TEST(NcclPublished, KnownDeviationGb200RackNvlsAboveMeasured) {
  const double r = all_reduce_busbw("gb200", 72) / 834.57;
  EXPECT_GT(r, 1.10);
  EXPECT_LT(r, 1.25);
}

// Across nodes the all-reduce is NIC-bound; with the NIC at NVIDIA's published 46-48 of 50 GB/s
// per NDR NIC (0.94 of the line rate, nccl-tests issue 290) NVIDIA's other measurements are met
// within 5%, none fitted: 192 GB/s all-reduce busbw on DGX A100 with 8 x 200 Gb/s HDR (NCCL
// issue 812; collsim 184.8: the ring at 8 GiB) and about 350 GB/s at 512 MiB on 248 nodes of 8
// H200 (nccl-tests issue 283; collsim 337: NVLS-tree). With the NVLink-fitted efficiency the old
// model put both about 20% low.
TEST(NcclPublished, MultiNodeAllReduceAtNvidiasNicRate) {
  const double a100 = all_reduce_busbw("a100", 8, 10) / 192.0;
  EXPECT_GT(a100, 0.90);
  EXPECT_LT(a100, 1.10);
  const Context ctx{topology::find_gpu_system("h200", "--system"), {8, 248}, {}};
  const double bytes = 512.0 * (1 << 20);
  const Estimate e = estimate("nccl", Op::AllReduce, bytes, ctx);
  EXPECT_EQ(e.algorithm->name, "nvls-tree");
  const double h200 = bytes / e.seconds / 1e9 * busbw_factor(Op::AllReduce, ctx.shape.ranks());
  EXPECT_GT(h200 / 350, 0.90);
  EXPECT_LT(h200 / 350, 1.10);
}

}  // namespace
}  // namespace collsim::collective::nccl
