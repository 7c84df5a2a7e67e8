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
  // 64 nodes of 1 H100: R = the NIC, 0.94 x 50 GB/s, x 0.75; latency (NCCL 2.29 pat.cc)
  // 8 + log2(64) x 14 / 3.5 + 64 x 2.8 = 211.2 us, + α.
  const double bytes = 1 << 30;
  const auto e = nccl_estimate("pat", nccl::Op::AllGather, 1, 64, bytes);
  const double want = nccl::Calibration{}.overhead_s + 211.2e-6 + bytes / (0.75 * 0.94 * 50e9);
  EXPECT_NEAR(e.seconds / want, 1.0, 1e-9);
}

TEST(NcclPat, RefusedWithMoreThanOneGpuPerNodeAndForAllReduce) {
  EXPECT_THROW(nccl_estimate("pat", nccl::Op::AllGather, 8, 4, 1 << 20), core::InputError);
  EXPECT_THROW(nccl_estimate("pat", nccl::Op::AllReduce, 1, 4, 1 << 20), core::InputError);
}

TEST(NcclPat, NcclChoiceTakesPatForMidGathersAtScaleAndTheRingElsewhere) {
  // 64 nodes of one GPU: PAT's 211.2 us of latency at 0.75 x 47 GB/s against the ring's 63
  // network steps (NCCL 2.29: LL 6.6 + 63 x 2.7 us at 20.4 GB/s, llMaxBws for more than 2 Intel
  // nodes; LL128 14 + 63 x 4 us at 0.92 x 47 GB/s). PAT wins from about 1.7 MB (where LL's low
  // rate costs more than its 34.5 us less latency) to about 9.8 MB (where LL128's rate pays for
  // its 54.8 us more latency).
  EXPECT_EQ(nccl_estimate("nccl", nccl::Op::AllGather, 1, 64, 1 << 20).algorithm->name, "ring");
  EXPECT_EQ(nccl_estimate("nccl", nccl::Op::AllGather, 1, 64, 4 << 20).algorithm->name, "pat");
  EXPECT_EQ(nccl_estimate("nccl", nccl::Op::ReduceScatter, 1, 64, 8 << 20).algorithm->name,
            "pat");
  EXPECT_EQ(nccl_estimate("nccl", nccl::Op::AllGather, 1, 64, 32 << 20).algorithm->name, "ring");
  EXPECT_EQ(nccl_estimate("nccl", nccl::Op::AllGather, 1, 64, 1u << 30).algorithm->name, "ring");
}

}  // namespace
}  // namespace collsim::collective
