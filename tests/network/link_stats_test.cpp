// Link metrics: per-link bytes and busy time, utilization, per-dimension utilization.
#include <gtest/gtest.h>

#include "collective/algorithm.hpp"
#include "core/engine.hpp"
#include "network/backend.hpp"
#include "jobs/result.hpp"
#include "jobs/collective_sweep.hpp"
#include "topology/builders.hpp"

namespace collsim {
namespace {

jobs::ResultRow run(const topology::Topology& t, const char* backend, std::uint64_t size) {
  jobs::CollectiveJob job;
  job.sizes = {core::Bytes{size}};
  job.algorithms = {collective::parse_algorithm("ring", "t")};
  job.busiest_links = 100;
  return jobs::run_collective_job("p", t, network::find_backend(backend, "t"), job).at(0);
}

TEST(Metrics, RingKeepsEveryRingLinkBusy) {
  // Unidirectional ring:4, 4 MiB, no latency: 6 steps of 1 MiB, every link carries 6 MiB and is
  // busy the whole time: utilization exactly 1 on every link and in the one dimension.
  const auto t = topology::ring(4, core::Bandwidth{16e9}, core::Time{0}, false);
  for (const char* b : {"analytical", "queue", "flow"}) {
    const auto row = run(t, b, 4 << 20);
    ASSERT_EQ(row.busiest_links.size(), 4u) << b;
    for (const auto& l : row.busiest_links) {
      EXPECT_EQ(l.bytes, 6u << 20) << b;
      EXPECT_EQ(l.busy, row.time) << b;
      EXPECT_NEAR(l.utilization, 1.0, 1e-9) << b;
    }
    ASSERT_EQ(row.dim_utilization.size(), 1u);
    EXPECT_NEAR(row.dim_utilization[0], 1.0, 1e-9) << b;
    EXPECT_NEAR(row.max_link_utilization, 1.0, 1e-9) << b;
  }
}

TEST(Metrics, OneDirectionOfABidirectionalRingIsHalfTheDimension) {
  // bidir-ring:4 has 8 directed links; a one-direction ring uses 4 of them fully: the dimension
  // is 50% utilized, the busiest links 100%, the idle ones 0 and listed last.
  const auto t = topology::ring(4, core::Bandwidth{16e9}, core::Time{0}, true);
  const auto row = run(t, "flow", 4 << 20);
  EXPECT_NEAR(row.dim_utilization.at(0), 0.5, 1e-9);
  ASSERT_EQ(row.busiest_links.size(), 8u);
  EXPECT_NEAR(row.busiest_links.front().utilization, 1.0, 1e-9);
  EXPECT_EQ(row.busiest_links.back().bytes, 0u);
}

TEST(Metrics, PerDimensionUtilizationOnATorus) {
  // torus 4x4 ring (snake order 0,1,2,3,7,6,5,9,10,11,15,14,13,12,8,4): of its 16 one-hop
  // steps, 10 move along dimension 0 (x) and 6 along dimension 1 (y). Each step's link carries
  // 2 * 15 / 16 * S over the run's time T = 30 * S / (16 B), so a used link is 100% busy and a
  // dimension with 32 directed links is (used links) / 32 utilized: x 10/32, y 6/32.
  const auto t = topology::torus({4, 4}, core::Bandwidth{16e9}, core::Time{0});
  const auto row = run(t, "flow", 16 << 20);
  ASSERT_EQ(row.dim_utilization.size(), 2u);
  EXPECT_NEAR(row.dim_utilization[0], 10.0 / 32, 1e-9);
  EXPECT_NEAR(row.dim_utilization[1], 6.0 / 32, 1e-9);
}

}  // namespace
}  // namespace collsim

namespace collsim {
namespace {

TEST(Metrics, ASlowNicIsTheBusiestResource) {
  // Direct all-reduce of 64 MiB on fc:8 with 25 GB/s links and a 50 GB/s injection cap: each NPU
  // sends 7 x 2 x 8 MiB through its NIC, which is busy the whole time, while each link carries
  // only 2 x 8 MiB. "max link" must name the NIC (100%), not the links (29%).
  const auto t = topology::from_compact("fc:8", core::Bandwidth{25e9}, core::Time::from_ns(150));
  jobs::CollectiveJob job;
  job.sizes = {core::Bytes{64ull << 20}};
  job.algorithms = {collective::parse_algorithm("direct", "t")};
  job.backend_options.npu_injection_bandwidth = core::Bandwidth{50e9};
  job.busiest_links = 2;
  const auto rows = jobs::run_collective_job("p", t, network::find_backend("flow", "b"), job);
  ASSERT_EQ(rows.size(), 1u);
  const auto& r = rows[0];
  EXPECT_NEAR(r.max_link_utilization, 1.0, 0.001);
  ASSERT_EQ(r.busiest_links.size(), 2u);
  EXPECT_EQ(r.busiest_links[0].kind, "npu-injection");
  EXPECT_EQ(r.busiest_links[0].src, 0u);
  EXPECT_EQ(r.busiest_links[0].link, t.links().size());  // the first entry after the links
  // 14 messages of 8 MiB through a 50 GB/s NIC: the run takes at least 14 x 8 MiB / 50 GB/s.
  EXPECT_GE(r.time.seconds(), 14.0 * (8 << 20) / 50e9);
  ASSERT_EQ(r.dim_utilization.size(), 1u);
  EXPECT_NEAR(r.dim_utilization[0], 2.0 * (8 << 20) / (25e9 * r.time.seconds()), 1e-6);
}

}  // namespace
}  // namespace collsim
