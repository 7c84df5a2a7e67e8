// fill_link_metrics (jobs/result.hpp): per-dimension utilization and Themis's bandwidth-weighted
// average utilization (ISCA'22 Sec. 3.1), from hand-set link statistics.
#include <gtest/gtest.h>

#include "jobs/result.hpp"
#include "topology/builders.hpp"

namespace collsim::report {
namespace {

using namespace collsim::jobs;  // NOLINT: the drivers under test

TEST(LinkMetrics, AverageUtilizationWeightsDimensionsByOneNpusBandwidth) {
  // 4 x 2 platform: a 4-ring of 2 links per NPU at 10 GB/s (20 GB/s per NPU) and a switch of one
  // 30 GB/s link per NPU. Over 1 us, every ring link carries 5000 B (50%) and every switch link
  // (up and down) 7500 B (25%): dims 50% and 25%, average (20 x 50 + 30 x 25) / 50 = 35%.
  const auto lat = core::Time::from_ns(100);
  const auto t = topology::hierarchical(
      {topology::DimSpec{topology::DimKind::Ring, 4, core::Bandwidth{10e9}, lat, 2},
       topology::DimSpec{topology::DimKind::Switch, 2, core::Bandwidth{30e9}, lat, 1}});
  std::vector<network::LinkStats> stats(t.links().size());
  std::uint64_t per_npu_bw[2] = {0, 0};
  for (std::size_t l = 0; l < stats.size(); ++l) {
    stats[l].bytes = t.links()[l].dim == 0 ? 5000 : 7500;
  }
  for (topology::LinkId l : t.out_links(0)) {
    per_npu_bw[t.links()[l].dim] += static_cast<std::uint64_t>(t.links()[l].bandwidth.bytes_per_s);
  }
  ASSERT_EQ(per_npu_bw[0], 20'000'000'000u);
  ASSERT_EQ(per_npu_bw[1], 30'000'000'000u);
  ResultRow row;
  row.time = core::Time::from_ns(1000);
  fill_link_metrics(row, t, stats, 2);
  ASSERT_EQ(row.dim_utilization.size(), 2u);
  EXPECT_DOUBLE_EQ(row.dim_utilization[0], 0.5);
  EXPECT_DOUBLE_EQ(row.dim_utilization[1], 0.25);
  EXPECT_DOUBLE_EQ(row.bw_utilization, 0.35);
  EXPECT_DOUBLE_EQ(row.max_link_utilization, 0.5);
  // No time, no figures: the average stays "not applicable".
  ResultRow none;
  fill_link_metrics(none, t, stats, 2);
  EXPECT_LT(none.bw_utilization, 0);
}

}  // namespace
}  // namespace collsim::report
