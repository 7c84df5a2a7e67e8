// The flow backend's max-min fair rates on the production fabrics (issue 34): the rail-optimised
// fat tree (railfat, one and two planes) and the fat tree with per-level oversubscription,
// each a hand-derived case of progressive filling on the form's own routes.
#include <gtest/gtest.h>

#include "core/engine.hpp"
#include "network/flow.hpp"
#include "recorder.hpp"
#include "topology/builders.hpp"

namespace collsim::network {
namespace {

using collsim::testing::Recorder;

TEST(FlowFabrics, RailFatTreeOversubscribedSpineAndPxnTraffic) {
  // 6 nodes of 2 GPUs (GPU = 2 node + index), 4-port leaves split 3:1 (oversub=3): leaf 0 holds
  // nodes 0-2, leaf 1 nodes 3-5, one spine; NIC ports and the trunk 1 GB/s, no latency.
  const auto t =
      topology::from_compact("railfat:6x2:leaf=4:oversub=3:nic=8Gb/s:netlat=0us:scaleuplat=0us",
                             core::Bandwidth{1}, core::Time{});
  // Rail 0 flows f1 0->6, f2 2->8, f3 4->10 cross the leaf 0 -> spine trunk; f5 1->6 (GPU 1 of
  // node 0 to GPU 0 of node 3) goes over the scale-up switch to GPU 0 first (450 GB/s, not a
  // bottleneck) and then the same trunk; f4 0->2 stays on leaf 0.
  // Filling: the trunk has 4 flows: 0.25 GB/s each. GPU 0's NIC port carries f1, f5 and f4:
  // f4 gets the 0.5 left.
  core::Simulation sim;
  FlowBackend net(sim, t, {});
  Recorder rec(sim);
  net.send(0, 6, core::Bytes{1000}, rec, 1);
  net.send(2, 8, core::Bytes{1000}, rec, 2);
  net.send(4, 10, core::Bytes{1000}, rec, 3);
  net.send(0, 2, core::Bytes{1000}, rec, 4);
  net.send(1, 6, core::Bytes{1000}, rec, 5);
  sim.run(core::Time::from_ns(1));
  for (std::uint64_t f : {1, 2, 3, 5}) EXPECT_NEAR(net.rate_of(f), 0.25e9, 1) << f;
  EXPECT_NEAR(net.rate_of(4), 0.5e9, 1);
  sim.run();
  // f4: 1000 B at 0.5 GB/s = 2 us; its end frees GPU 0's port, not the trunk: the others
  // finish 1000 B at 0.25 GB/s = 4 us.
  EXPECT_NEAR(rec.delivered[4], 2'000'000, 1);
  for (std::uint64_t f : {1, 2, 3, 5}) EXPECT_NEAR(rec.delivered[f], 4'000'000, 1) << f;
}

TEST(FlowFabrics, RailFatTreeTwoPlanesEachPortItsOwnShare) {
  // 8 nodes on one 16-port leaf per rail and plane; a 2 GB/s NIC is two 1 GB/s plane ports.
  // GPU 0 (node 0) sends to nodes 1, 2, 3 (GPUs 2, 4, 6): 1 and 3 ahead take plane 0, 2 ahead
  // plane 1. Plane 0's port is shared by two flows (0.5 each); plane 1's flow has 1 GB/s.
  const auto t =
      topology::from_compact("railfat:8x2:planes=2:leaf=16:nic=16Gb/s:netlat=0us:scaleuplat=0us",
                             core::Bandwidth{1}, core::Time{});
  core::Simulation sim;
  FlowBackend net(sim, t, {});
  Recorder rec(sim);
  net.send(0, 2, core::Bytes{1000}, rec, 1);
  net.send(0, 4, core::Bytes{1000}, rec, 2);
  net.send(0, 6, core::Bytes{1000}, rec, 3);
  sim.run(core::Time::from_ns(1));
  EXPECT_NEAR(net.rate_of(1), 0.5e9, 1);
  EXPECT_NEAR(net.rate_of(2), 1.0e9, 1);
  EXPECT_NEAR(net.rate_of(3), 0.5e9, 1);
  sim.run();
  EXPECT_NEAR(rec.delivered[2], 1'000'000, 1);  // 1000 B at 1 GB/s
  EXPECT_NEAR(rec.delivered[1], 2'000'000, 1);  // 1000 B at 0.5 GB/s
  EXPECT_NEAR(rec.delivered[3], 2'000'000, 1);
}

TEST(FlowFabrics, FatTreeWithAnOversubscribedLeafLevel) {
  // fattree:2x2:oversub=2 at 1 GB/s: NPUs 0, 1 on leaf 4, NPUs 2, 3 on leaf 5, spines 6, 7; the
  // leaf-spine links carry 0.5 GB/s. d-mod-k: to NPU 2 through spine 6, to NPU 3 through 7.
  // f1 0->2 and f2 1->2 share leaf 4 -> spine 6 (0.5): 0.25 each, the first to freeze. Then f3
  // 0->3 (alone on leaf 4 -> spine 7, 0.5) and f4 0->1 rise on NPU 0's 1 GB/s link, which has
  // 1 - 0.25 left: 0.375 each (below f3's 0.5 trunk).
  const auto t =
      topology::from_compact("fattree:2x2:oversub=2", core::Bandwidth{1e9}, core::Time{});
  core::Simulation sim;
  FlowBackend net(sim, t, {});
  Recorder rec(sim);
  net.send(0, 2, core::Bytes{1000}, rec, 1);
  net.send(1, 2, core::Bytes{1000}, rec, 2);
  net.send(0, 3, core::Bytes{1500}, rec, 3);
  net.send(0, 1, core::Bytes{1500}, rec, 4);
  sim.run(core::Time::from_ns(1));
  EXPECT_NEAR(net.rate_of(1), 0.25e9, 1);
  EXPECT_NEAR(net.rate_of(2), 0.25e9, 1);
  EXPECT_NEAR(net.rate_of(3), 0.375e9, 1);
  EXPECT_NEAR(net.rate_of(4), 0.375e9, 1);
  sim.run();
  // f3, f4: 1500 B at 0.375 GB/s = 4 us; f1, f2: 1000 B at 0.25 GB/s = 4 us, all together.
  for (std::uint64_t f : {1, 2, 3, 4}) EXPECT_NEAR(rec.delivered[f], 4'000'000, 1) << f;
  // Non-blocking (the same tree without the option): NPU 0's link freezes f1, f3, f4 at 1/3
  // first, and f2 takes the 2/3 left on leaf 4 -> spine 6.
  const auto flat = topology::from_compact("fattree:2x2", core::Bandwidth{1e9}, core::Time{});
  core::Simulation sim2;
  FlowBackend net2(sim2, flat, {});
  Recorder rec2(sim2);
  net2.send(0, 2, core::Bytes{1000}, rec2, 1);
  net2.send(1, 2, core::Bytes{1000}, rec2, 2);
  net2.send(0, 3, core::Bytes{1000}, rec2, 3);
  net2.send(0, 1, core::Bytes{1000}, rec2, 4);
  sim2.run(core::Time::from_ns(1));
  EXPECT_NEAR(net2.rate_of(1), 1e9 / 3, 1);
  EXPECT_NEAR(net2.rate_of(2), 2e9 / 3, 1);
  EXPECT_NEAR(net2.rate_of(3), 1e9 / 3, 1);
  EXPECT_NEAR(net2.rate_of(4), 1e9 / 3, 1);
}

}  // namespace
}  // namespace collsim::network
