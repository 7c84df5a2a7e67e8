// The closed-form NCCL model (collective/nccl/model.hpp): NVLS against the ring on an H100 node,
// the `nccl` choice, and shapes refused.
#include <gtest/gtest.h>

#include "collective/nccl/model.hpp"
#include "core/error.hpp"
#include "topology/gpu_systems/gpu_system.hpp"

namespace collsim::collective::nccl {
namespace {

Context on(std::string_view system, std::uint32_t gpus, std::uint32_t nodes = 1) {
  return Context{topology::find_gpu_system(system, "--system"), {gpus, nodes}, {}};
}

double busbw(std::string_view algo, Op op, double bytes, const Context& ctx) {
  const Estimate e = estimate(algo, op, bytes, ctx);
  return bytes / e.seconds / 1e9 * busbw_factor(op, ctx.shape.ranks());
}

TEST(NcclModel, NvlsAllReduceBeatsTheRingOnAnH100Node) {
  const Context ctx = on("h100", 8);
  const double big = 16.0 * (1ull << 30);
  // Measured (nccl-tests, NCCL 2.29.2, 8 x H100): NVLS 482 GB/s busbw, ring-bound all-gather 362.
  const double nvls = busbw("nvls", Op::AllReduce, big, ctx);
  const double ring = busbw("ring", Op::AllReduce, big, ctx);
  EXPECT_GT(nvls, 440);
  EXPECT_LT(nvls, 520);
  EXPECT_GT(ring, 320);
  EXPECT_LT(ring, 370);
  // Closed form: busbw = 2(n-1)/(n+1) x switch efficiency x the NVLink rate (η x 18 x NCCL's
  // 20.6 GB/s per link), less the latency's share.
  EXPECT_NEAR(nvls, 14.0 / 9 * 0.85 * nvlink_rate(ctx) / 1e9, 1.0);
  EXPECT_NEAR(nvlink_rate(ctx), ctx.calibration.efficiency * 18 * 20.6e9, 1);
}

TEST(NcclModel, NcclPicksNvlsForAllReduceAndTheRingForAllGather) {
  const Context h100 = on("h100", 8);
  for (double mib = 32; mib <= 16384; mib *= 2) {
    const double bytes = mib * (1 << 20);
    EXPECT_EQ(estimate("nccl", Op::AllReduce, bytes, h100).algorithm->name, "nvls") << mib;
    EXPECT_EQ(estimate("nccl", Op::AllGather, bytes, h100).algorithm->name, "ring") << mib;
    EXPECT_EQ(estimate("nccl", Op::ReduceScatter, bytes, h100).algorithm->name, "ring") << mib;
  }
  // No NVLink SHARP on A100; NVLS does not span nodes (NVLS-tree does, all-reduce only).
  EXPECT_EQ(estimate("nccl", Op::AllReduce, 1e9, on("a100", 8)).algorithm->name, "ring");
  const std::string_view multi =
      estimate("nccl", Op::AllReduce, 1e9, on("h100", 8, 10)).algorithm->name;
  EXPECT_EQ(multi, "nvls-tree");
  EXPECT_THROW(estimate("nvls", Op::AllReduce, 1e9, on("a100", 8)), core::InputError);
  EXPECT_THROW(estimate("nvls", Op::AllToAll, 1e9, on("h100", 8)), core::InputError);
}

TEST(NcclModel, MultiNodeRingIsBoundByTheNics) {
  // 8 rails of 400 Gb/s: the ring's per-GPU rate across nodes is min(NVLink, 8 x NIC).
  const Context ctx = on("h100", 8, 10);
  const double bw = busbw("ring", Op::AllReduce, 8.0 * (1ull << 30), ctx);
  EXPECT_GT(bw, 0.9 * 8 * nic_rate(ctx) / 1e9);
  EXPECT_LT(bw, 8 * nic_rate(ctx) / 1e9);
  // The NIC at its published efficiency (46-48 of 50 GB/s per NDR NIC), not the NVLink η.
  EXPECT_NEAR(nic_rate(ctx), 0.94 * 50e9, 1);
  // One GPU per node: its own NIC only.
  const Context one = on("h100", 1, 4);
  EXPECT_LT(busbw("ring", Op::AllReduce, 8.0 * (1ull << 30), one), nic_rate(one) / 1e9);
}

TEST(NcclModel, ProtocolsLlForSmallLl128BetweenSimpleForLarge) {
  const Context ctx = on("h100", 8);
  EXPECT_EQ(estimate("nccl", Op::AllGather, 1024, ctx).protocol, Protocol::LL);
  EXPECT_EQ(estimate("nccl", Op::AllGather, 16.0 * (1 << 20), ctx).protocol, Protocol::LL128);
  EXPECT_EQ(estimate("nccl", Op::AllGather, 64.0 * (1 << 20), ctx).protocol, Protocol::Simple);
  // NCCL's tuner (ring.cc): LL moves half the bus rate, capped at llMaxBws (141 GB/s on one
  // Hopper node), LL128 0.92 of it. At 1 GB the transfer dominates: time ratios near rate ratios.
  const double r = nvlink_rate(ctx);
  const double simple = estimate("ring", Op::AllGather, 1e9, ctx, "simple").seconds;
  const double ll = estimate("ring", Op::AllGather, 1e9, ctx, "LL").seconds;
  const double ll128 = estimate("ring", Op::AllGather, 1e9, ctx, "ll128").seconds;
  EXPECT_NEAR(ll / simple, r / 141e9, 0.05);
  EXPECT_NEAR(ll128 / simple, 1 / 0.92, 0.01);
  // A 1 KiB all-gather on 8 GPUs: α + LL's ring latency, 6.6 + 7 x 0.6 = 10.8 us, + 15 ns.
  const double tiny = estimate("nccl", Op::AllGather, 1024, ctx).seconds;
  EXPECT_NEAR(tiny, ctx.calibration.overhead_s + 10.8e-6, 0.1e-6);
  EXPECT_THROW(estimate("nvls", Op::AllReduce, 1e6, ctx, "LL"), core::InputError);
  EXPECT_THROW(estimate("ring", Op::AllReduce, 1e6, ctx, "LL64"), core::InputError);
}

// Point-to-point: NCCL's protocol by size per peer (LL to 16 KiB, NCCL_P2P_LL_THRESHOLD) and its
// channel rule in the rate: a sendrecv on 8 H100s runs on 4 channels at 32-64 MiB, each at one
// NVLink's rate as NCCL rates it (η x 20.6 GB/s), 32 channels (link-bound) from 512 MiB.
TEST(NcclModel, PointToPointTakesNcclsProtocolAndChannelRate) {
  const Context ctx = on("h100", 8);
  EXPECT_EQ(estimate("nccl", Op::SendRecv, 16384, ctx).protocol, Protocol::LL);
  EXPECT_EQ(estimate("nccl", Op::SendRecv, 16385, ctx).protocol, Protocol::Simple);
  EXPECT_EQ(estimate("nccl", Op::AllToAll, 8 * 16384.0, ctx).protocol, Protocol::LL);
  const double mib = 1 << 20;
  const double channel = nvlink_channel_rate(ctx);
  const double fixed = estimate("nccl", Op::SendRecv, 0.5 * mib, ctx).seconds -
                       0.5 * mib / (4 * channel);  // 8 x 64 KiB parts: the minimum 4 channels
  EXPECT_NEAR(estimate("nccl", Op::SendRecv, 32 * mib, ctx).seconds,
              fixed + 32 * mib / (4 * channel), 1e-9);
  EXPECT_NEAR(estimate("nccl", Op::SendRecv, 128 * mib, ctx).seconds,
              fixed + 128 * mib / (8 * channel), 1e-9);
  EXPECT_NEAR(estimate("nccl", Op::SendRecv, 1024 * mib, ctx).seconds,
              fixed + 1024 * mib / nvlink_rate(ctx), 1e-9);
  // Named protocols are honoured (as NCCL_PROTO): Simple at 1 KiB, slower than NCCL's LL.
  EXPECT_GT(estimate("p2p", Op::SendRecv, 1024, ctx, "Simple").seconds,
            estimate("p2p", Op::SendRecv, 1024, ctx).seconds);
}

// A regression: LL's latency credit against Simple once went below zero on large rings (-310 us
// for a 1 KiB all-reduce on 10 x 8 H100s). Every preset, shape, collective and protocol now
// gives a positive time that does not fall as the size grows.
TEST(NcclModel, TimesArePositiveAndNeverFallWithSizeOnEveryPresetShapeAndProtocol) {
  struct Case {
    const char* system;
    std::uint32_t gpus, nodes;
  };
  const Case cases[] = {{"a100", 8, 1},  {"a100", 8, 10},  {"h100", 2, 1},  {"h100", 8, 1},
                        {"h100", 8, 10}, {"h100", 8, 248}, {"h100", 1, 64}, {"h200", 8, 248},
                        {"gb200", 4, 1}, {"gb200", 72, 1}};
  int checked = 0;
  for (const Case& c : cases) {
    const Context ctx = on(c.system, c.gpus, c.nodes);
    for (Op op : {Op::AllReduce, Op::AllGather, Op::ReduceScatter, Op::AllToAll, Op::SendRecv}) {
      for (const char* protocol : {"nccl", "LL", "LL128", "Simple"}) {
        double previous = 0;
        for (double bytes = 1024; bytes <= 16.0 * (1ull << 30); bytes *= 4) {
          double t = 0;
          try {
            t = estimate("nccl", op, bytes, ctx, protocol).seconds;
          } catch (const core::InputError&) {
            break;  // no algorithm runs this op with this protocol here (p2p is Simple only)
          }
          ASSERT_GT(t, 1e-6) << c.system << " " << c.gpus << "x" << c.nodes << " "
                             << perf_binary(op) << " " << protocol << " " << bytes;
          ASSERT_GE(t, previous) << c.system << " " << perf_binary(op) << " " << protocol << " "
                                 << bytes;
          previous = t;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(NcclModel, ShapesBeyondTheSystemAreRefused) {
  EXPECT_THROW(estimate("nccl", Op::AllReduce, 1e9, on("h100", 9)), core::InputError);
  EXPECT_THROW(estimate("nccl", Op::AllReduce, 1e9, on("h100", 1)), core::InputError);
  EXPECT_NO_THROW(estimate("nccl", Op::AllReduce, 1e9, on("gb200", 72)));
  EXPECT_THROW(find_algorithm("collnet-split", "--algorithm"), core::InputError);
  // NCCL has no NVLS with 2 GPUs or fewer on a node (transport/nvls.cc ncclNvlsInit).
  EXPECT_THROW(estimate("nvls", Op::AllReduce, 1e9, on("h100", 2)), core::InputError);
  EXPECT_NO_THROW(estimate("nvls", Op::AllReduce, 1e9, on("h100", 4)));
}

}  // namespace
}  // namespace collsim::collective::nccl
