// Themis Algorithm 1 (inter-dimension chunk scheduling), checked on the paper's worked example and
// on hand-derived cases.
#include "scheduler/themis_plan.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace collsim::scheduler {
namespace {

using collective::Collective;

// Themis Sec. 3.3 / Figs. 5 and 7: a 4 x 4 platform whose dim2 has half dim1's bandwidth
// (here 2 GB/s and 1 GB/s per NPU, fixed delays negligible), a 256 MB all-reduce in 4 chunks of
// 64 MB. Latency Model, per chunk walked dim1 then dim2:
//   RS dim1 64 MB: 48 MB / 2 GB/s = 24 ms -> 16 MB; RS dim2: 12 MB / 1 GB/s = 12 ms -> 4 MB;
//   AG dim2 4 MB: 12 MB / 1 GB/s = 12 ms -> 16 MB; AG dim1: 48 MB / 2 GB/s = 24 ms.
// Walked dim2 then dim1: RS dim2 48 ms, RS dim1 6 ms, AG dim1 6 ms, AG dim2 48 ms.
std::vector<DimModel> fig5() {
  return {DimModel{4, core::Bandwidth{2e9}, core::Time{0}},
          DimModel{4, core::Bandwidth{1e9}, core::Time{0}}};
}

TEST(ThemisPlan, Figure7WorkedExample) {
  const Plan t =
      plan_chunks(fig5(), Collective::AllReduce, core::Bytes{256000000}, 4, InterDimPolicy::Themis);
  ASSERT_EQ(t.chunks.size(), 4u);
  // Chunk 1: loads equal (0, 0), below the threshold: the baseline order. Loads (48, 24) ms.
  EXPECT_EQ(t.chunks[0].dims, (std::vector<std::uint32_t>{0, 1, 1, 0}));
  EXPECT_EQ(t.chunks[0].ops,
            (std::vector<Collective>{Collective::ReduceScatter, Collective::ReduceScatter,
                                     Collective::AllGather, Collective::AllGather}));
  // Chunk 2: gap 24 ms >= threshold (RS of 4 MB on dim2: 3 ms); dim2 is lighter, so it goes
  // first (Fig. 7 step c). Loads (48 + 12, 24 + 96) = (60, 120) ms.
  EXPECT_EQ(t.chunks[1].dims, (std::vector<std::uint32_t>{1, 0, 0, 1}));
  // Chunks 3 and 4: dim1 is lighter, so dim1 first (steps d and e): (108, 144), then (156, 168).
  EXPECT_EQ(t.chunks[2].dims, (std::vector<std::uint32_t>{0, 1, 1, 0}));
  EXPECT_EQ(t.chunks[3].dims, (std::vector<std::uint32_t>{0, 1, 1, 0}));
  EXPECT_NEAR(t.loads[0], 0.156, 1e-12);
  EXPECT_NEAR(t.loads[1], 0.168, 1e-12);

  // Baseline: every chunk dim1 first: (4 x 48, 4 x 24) ms. The busier dimension predicts the
  // time: 192 ms against Themis's 168 ms.
  const Plan b = plan_chunks(fig5(), Collective::AllReduce, core::Bytes{256000000}, 4,
                             InterDimPolicy::Baseline);
  for (const ChunkPlan& c : b.chunks) {
    EXPECT_EQ(c.dims, (std::vector<std::uint32_t>{0, 1, 1, 0}));
  }
  EXPECT_NEAR(b.loads[0], 0.192, 1e-12);
  EXPECT_NEAR(b.loads[1], 0.096, 1e-12);
}

TEST(ThemisPlan, FixedDelaysStartTheTrackerAndTheThresholdKeepsTheBaseline) {
  // Equal bandwidths, dim2 with a 1 ms fixed delay and dim1 none. A 4 x 4 RS of 4 MB in 1 chunk:
  // gap 1 ms against a threshold of RS(4 MB / 16 = 250 KB) on dim1 = 187.5 KB / 1 GB/s =
  // 0.1875 ms, so the lighter dim1 goes first (ascending loads) - the baseline order anyway. With
  // the delay on dim1 instead, dim2 goes first.
  std::vector<DimModel> dims = {DimModel{4, core::Bandwidth{1e9}, core::Time::from_ns(0)},
                                DimModel{4, core::Bandwidth{1e9}, core::Time::from_ns(1000000)}};
  Plan p =
      plan_chunks(dims, Collective::ReduceScatter, core::Bytes{4000000}, 1, InterDimPolicy::Themis);
  EXPECT_EQ(p.chunks[0].dims, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(p.chunks[0].ops,
            (std::vector<Collective>{Collective::ReduceScatter, Collective::ReduceScatter}));
  std::swap(dims[0].fixed_delay, dims[1].fixed_delay);
  p = plan_chunks(dims, Collective::ReduceScatter, core::Bytes{4000000}, 1, InterDimPolicy::Themis);
  EXPECT_EQ(p.chunks[0].dims, (std::vector<std::uint32_t>{1, 0}));
  // RS dim2 of 4 MB: 3 MB / 1 GB/s = 3 ms; RS dim1 of 1 MB: 0.75 ms on top of its 1 ms delay.
  EXPECT_NEAR(p.loads[1], 0.003, 1e-12);
  EXPECT_NEAR(p.loads[0], 0.001 + 0.00075, 1e-12);
  // A gap below the threshold: 0.1 ms < 0.1875 ms keeps the baseline order.
  dims[0].fixed_delay = core::Time::from_ns(100000);
  dims[1].fixed_delay = core::Time{0};
  p = plan_chunks(dims, Collective::ReduceScatter, core::Bytes{4000000}, 1, InterDimPolicy::Themis);
  EXPECT_EQ(p.chunks[0].dims, (std::vector<std::uint32_t>{0, 1}));
}

TEST(ThemisPlan, AllGatherAloneGoesOutermostFirstAndGrows) {
  // A stand-alone AG of 16 MB on 4 x 4 starts from 1 MB per NPU; baseline order dimD..dim1.
  // AG dim2 of 1 MB: 3 MB / 1 GB/s = 3 ms -> 4 MB; AG dim1: 12 MB / 2 GB/s = 6 ms.
  const Plan p = plan_chunks(fig5(), Collective::AllGather, core::Bytes{16000000}, 1,
                             InterDimPolicy::Baseline);
  EXPECT_EQ(p.chunks[0].dims, (std::vector<std::uint32_t>{1, 0}));
  EXPECT_EQ(p.chunks[0].ops,
            (std::vector<Collective>{Collective::AllGather, Collective::AllGather}));
  EXPECT_NEAR(p.loads[1], 0.003, 1e-12);
  EXPECT_NEAR(p.loads[0], 0.006, 1e-12);
}

TEST(ThemisPlan, SizeOneDimensionsAreSkippedAndBadInputRefused) {
  const std::vector<DimModel> dims = {DimModel{1, core::Bandwidth{1e9}, core::Time{0}},
                                      DimModel{8, core::Bandwidth{1e9}, core::Time{0}}};
  const Plan p =
      plan_chunks(dims, Collective::AllReduce, core::Bytes{1 << 20}, 2, InterDimPolicy::Themis);
  EXPECT_EQ(p.chunks[1].dims, (std::vector<std::uint32_t>{1, 1}));
  EXPECT_THROW(plan_chunks(dims, Collective::AllReduce, core::Bytes{1}, 0, InterDimPolicy::Themis),
               core::InputError);
  EXPECT_EQ(parse_inter_dim_policy("themis", "f"), InterDimPolicy::Themis);
  EXPECT_THROW(parse_inter_dim_policy("greedy", "schedule"), core::InputError);
}

TEST(ThemisPlan, AllToAllIsPlannedLikeAReduceScatterWithoutShrinking) {
  // P = 4 at 1 GB/s and P = 8 at 2 GB/s, 2 chunks of 512 KiB. Chunk 0 takes the baseline order
  // (equal loads) and charges 524288 x 3/4 / 1e9 = 393.216 us and 524288 x 7/8 / 2e9 =
  // 229.376 us (the bytes per NPU do not change between all-to-all stages); chunk 1 then starts
  // on the less loaded dim1 (gap 163.84 us > threshold 32768 x 7/8 / 2e9 = 14.336 us).
  const std::vector<DimModel> dims = {DimModel{4, core::Bandwidth{1e9}, core::Time{0}},
                                      DimModel{8, core::Bandwidth{2e9}, core::Time{0}}};
  const Plan p =
      plan_chunks(dims, Collective::AllToAll, core::Bytes{1 << 20}, 2, InterDimPolicy::Themis);
  EXPECT_EQ(p.chunks[0].dims, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(p.chunks[1].dims, (std::vector<std::uint32_t>{1, 0}));
  EXPECT_EQ(p.chunks[1].ops, (std::vector<Collective>{Collective::AllToAll, Collective::AllToAll}));
  EXPECT_NEAR(p.loads[0], 2 * 393.216e-6, 1e-12);
  EXPECT_NEAR(p.loads[1], 2 * 229.376e-6, 1e-12);
}

TEST(ThemisPlan, AceTable5AllReducesTheOuterDimensionsBetweenTheLocalRsAndAg) {
  // ACE Table 5 on L x V x H = 4 x 4 x 2 at 4, 1 and 1 GB/s: RS in L, an all-reduce in V and in
  // H, AG in L. 4 MiB in one chunk: RS(L) 4 MiB x 3/4 / 4e9, then 1 MiB per NPU: AR(V)
  // 2 x 1 MiB x 3/4 / 1e9, AR(H) 2 x 1 MiB x 1/2 / 1e9, AG(L) 1 MiB x 3 / 4e9.
  const std::vector<DimModel> dims = {DimModel{4, core::Bandwidth{4e9}, core::Time{0}},
                                      DimModel{4, core::Bandwidth{1e9}, core::Time{0}},
                                      DimModel{2, core::Bandwidth{1e9}, core::Time{0}}};
  const double mib = 1 << 20;
  const Plan p = plan_chunks(dims, Collective::AllReduce, core::Bytes{4u << 20}, 1,
                             InterDimPolicy::AceTable5);
  EXPECT_EQ(p.chunks[0].dims, (std::vector<std::uint32_t>{0, 1, 2, 0}));
  EXPECT_EQ(p.chunks[0].ops,
            (std::vector<Collective>{Collective::ReduceScatter, Collective::AllReduce,
                                     Collective::AllReduce, Collective::AllGather}));
  EXPECT_NEAR(p.loads[0], 4 * mib * 0.75 / 4e9 + mib * 3 / 4e9, 1e-12);
  EXPECT_NEAR(p.loads[1], 2 * mib * 0.75 / 1e9, 1e-12);
  EXPECT_NEAR(p.loads[2], 2 * mib * 0.5 / 1e9, 1e-12);
  EXPECT_EQ(parse_inter_dim_policy("ace", "schedule"), InterDimPolicy::AceTable5);
  EXPECT_STREQ(to_string(InterDimPolicy::AceTable5), "ace");
  // Other collectives walk as the baseline does.
  const Plan rs = plan_chunks(dims, Collective::ReduceScatter, core::Bytes{4u << 20}, 1,
                              InterDimPolicy::AceTable5);
  EXPECT_EQ(rs.chunks[0].dims, (std::vector<std::uint32_t>{0, 1, 2}));
}

}  // namespace
}  // namespace collsim::scheduler
