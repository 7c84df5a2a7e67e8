// PAT (algorithms/pat.cpp): the trees are right for any rank count, each rank talks to log2(N)
// peers, sends (N-1) shards, and on a non-blocking switch the flow backend runs it in the
// closed form (N-1)/N S / B plus one hop latency per tree level; its NCCL closed form
// (collective/nccl/pat.cpp) is NCCL's tuner, and the `nccl` choice takes it where NCCL would.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "collective/algorithm.hpp"
#include "collective/ir/verifier.hpp"
#include "collective/nccl/model.hpp"
#include "core/error.hpp"
#include "jobs/collective_sweep.hpp"
#include "network/backend.hpp"
#include "topology/builders.hpp"
#include "topology/gpu_systems/gpu_system.hpp"

namespace collsim::collective {
namespace {

const core::Bandwidth kB{50e9};

TEST(Pat, VerifiesForAnyRankCount) {
  for (std::uint32_t n : {2u, 3u, 5u, 8u, 12u, 16u, 33u}) {
    const auto t = topology::from_compact("switch:" + std::to_string(n), kB, core::Time{});
    for (Collective c : {Collective::AllGather, Collective::ReduceScatter}) {
      for (std::uint32_t chunks : {1u, 2u}) {
        const Program p = build_program(parse_algorithm("pat", "a"), t, c, core::Bytes{1 << 20},
                                        chunks);
        const Verdict v = verify(p);
        EXPECT_TRUE(v.ok) << n << " " << to_string(c) << ": " << v.reason;
        // N-1 sends per chunk per rank, to at most ceil(log2 N) peers.
        std::set<Rank> peers;
        std::uint32_t sends = 0;
        for (const Op& op : p.ops[0]) {
          if (!op.is_send()) continue;
          ++sends;
          peers.insert(op.peer);
        }
        EXPECT_EQ(sends, chunks * (n - 1)) << n;
        EXPECT_LE(peers.size(), ceil_log2(n)) << n;
      }
    }
  }
}

TEST(Pat, FlowAllGatherOnASwitchIsBandwidthOptimal) {
  // 16 ranks on a switch, 1 us per link: every rank sends and receives 15 shards of S/16; the
  // longest tree path is 4 hops of two links each.
  const auto t = topology::from_compact("switch:16", kB, core::Time::from_ns(1000));
  const std::uint64_t s = 256ull << 20;
  for (Collective c : {Collective::AllGather, Collective::ReduceScatter}) {
    jobs::CollectiveJob job;
    job.collective = c;
    job.sizes = {core::Bytes{s}};
    job.algorithms = {parse_algorithm("pat", "t"), parse_algorithm("ring", "t")};
    const auto rows =
        jobs::run_collective_job("p", t, network::find_backend("flow", "t"), job);
    const double transfer = 15.0 / 16 * s / kB.bytes_per_s;
    EXPECT_GT(rows[0].time.seconds(), transfer) << to_string(c);
    EXPECT_LT(rows[0].time.seconds(), transfer * 1.02 + 8e-6) << to_string(c);
    // The ring pays 15 hops of latency, PAT at most a few tree levels more than its 4.
    EXPECT_LT(rows[0].time, rows[1].time) << to_string(c);
  }
}

nccl::Estimate nccl_estimate(const char* algo, nccl::Op op, std::uint32_t gpus,
                             std::uint32_t nodes, double bytes) {
  const nccl::Context ctx{topology::find_gpu_system("h100", "t"), {gpus, nodes}, {}};
  return nccl::estimate(algo, op, bytes, ctx);
}

TEST(NcclPat, ClosedFormIsNcclsTuner) {
  // 64 nodes of 1 H100: R = 0.759 x 50 GB/s; latency 8 - 8.4 + 6 x 14/3.5 + 64 x 2.8 us.
  const double bytes = 1 << 30;
  const auto e = nccl_estimate("pat", nccl::Op::AllGather, 1, 64, bytes);
  const double want = 34.5e-6 + (8 - 8.4 + 6 * 4 + 64 * 2.8) * 1e-6 + bytes / (0.75 * 0.759 * 50e9);
  EXPECT_NEAR(e.seconds / want, 1.0, 1e-9);
}

TEST(NcclPat, RefusedWithMoreThanOneGpuPerNodeAndForAllReduce) {
  EXPECT_THROW(nccl_estimate("pat", nccl::Op::AllGather, 8, 4, 1 << 20), core::InputError);
  EXPECT_THROW(nccl_estimate("pat", nccl::Op::AllReduce, 1, 4, 1 << 20), core::InputError);
}

TEST(NcclPat, NcclChoiceTakesPatForSmallGathersAtScaleAndTheRingForLargeOnes) {
  // 64 nodes of one GPU: the ring's 63 network steps (one GPU per node: the tree's network
  // latency, LL 5 / LL128 8.5 / Simple 14 us) against PAT's 0.2 ms of latency at 0.75 of the
  // bandwidth. LL128's ring catches up where 63 x 8.5 us + 5.6 us - 202.8 us = S/(0.75 R) -
  // 63/64 S/(0.92 R), about 49 MB; LL loses to PAT from 1 MiB on.
  EXPECT_EQ(nccl_estimate("nccl", nccl::Op::AllGather, 1, 64, 1 << 20).algorithm->name, "pat");
  EXPECT_EQ(nccl_estimate("nccl", nccl::Op::ReduceScatter, 1, 64, 32 << 20).algorithm->name,
            "pat");
  EXPECT_EQ(nccl_estimate("nccl", nccl::Op::AllGather, 1, 64, 1u << 30).algorithm->name, "ring");
  // With 8 GPUs a node NCCL does not enable it.
  EXPECT_NE(nccl_estimate("nccl", nccl::Op::AllGather, 8, 64, 1 << 20).algorithm->name, "pat");
}

}  // namespace
}  // namespace collsim::collective
