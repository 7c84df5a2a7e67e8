// Multipath on the rail-optimised fat tree (issue 34): railfat's closed-form equal-cost paths
// (rail_fat_tree.cpp rail_paths) against the graph search they stand in for, and a hand-derived
// max-min case on two planes, where spraying gives one message both plane ports of its NIC.
#include <gtest/gtest.h>

#include "core/engine.hpp"
#include "network/flow.hpp"
#include "network/multipath.hpp"
#include "network/packet.hpp"
#include "recorder.hpp"
#include "topology/builders.hpp"
#include "topology/equal_cost_paths.hpp"

namespace collsim::network {
namespace {

using collsim::testing::Recorder;

topology::Topology rail(const std::string& spec) {
  return topology::from_compact(spec, core::Bandwidth{1}, core::Time{});
}

BackendOptions with(Multipath m) {
  BackendOptions o;
  o.multipath = m;
  return o;
}

TEST(MultipathRailFat, ClosedFormPathsAreTheGraphSearchsPathsInItsOrder) {
  // Two planes and two spines (8 nodes on 4-port leaves: 2 nodes per leaf, 4 leaves, 2 spines),
  // one leaf, and one plane: every pair, every path index (and the wrap past the last).
  for (const char* spec : {"railfat:8x2:leaf=4:planes=2", "railfat:4x4:planes=2",
                           "railfat:8x2:leaf=4"}) {
    const auto t = rail(spec);
    ASSERT_NE(t.equal_cost_paths(), nullptr) << spec;
    auto plain = t;
    plain.set_equal_cost_paths(nullptr);
    topology::EqualCostPaths fast(t), search(plain);
    const std::uint32_t g = t.dimensions()[0].spec.size;
    for (topology::NodeId s = 0; s < t.num_npus(); ++s) {
      for (topology::NodeId d = 0; d < t.num_npus(); ++d) {
        // Other rail and node: the search also finds the P rail-first paths, numbered after
        // the P PXN paths (the scale-up link's id is lower); railfat keeps the PXN half.
        const bool cross = s % g != d % g && s / g != d / g;
        const std::uint64_t p = search.count(s, d) / (cross ? 2 : 1);
        ASSERT_EQ(fast.count(s, d), p) << spec << " " << s << "->" << d;
        for (std::uint64_t i = 0; i <= p; ++i) {
          std::vector<topology::LinkId> a, b;
          fast.append(s, d, i, a);
          search.append(s, d, i % p, b);
          ASSERT_EQ(a, b) << spec << " " << s << "->" << d << " path " << i;
        }
      }
    }
  }
  // Counts by hand on railfat:8x2:leaf=4:planes=2 (GPU = 2 node + rail; node a on leaf a/2):
  // same node 1; same rail, same leaf: 2 planes; other leaf: 2 planes x 2 spines; other rail
  // and node: the rail's (the scale-up hop first, as the route's PXN).
  const auto t = rail("railfat:8x2:leaf=4:planes=2");
  topology::EqualCostPaths p(t);
  EXPECT_EQ(p.count(0, 1), 1u);
  EXPECT_EQ(p.count(0, 2), 2u);
  EXPECT_EQ(p.count(0, 4), 4u);
  EXPECT_EQ(p.count(0, 3), 2u);  // other rail, node 1 on the same leaf
  EXPECT_EQ(p.count(1, 4), 4u);
}

// railfat:4x2:planes=2, one 16-port leaf per rail and plane, 2 GB/s NICs (two 1 GB/s plane
// ports), 450 GB/s scale-up, no latency. GPU = 2 node + rail.
const char* kTwoPlanes = "railfat:4x2:planes=2:leaf=16:nic=16Gb/s:netlat=0us:scaleuplat=0us";

TEST(MultipathRailFat, SprayPacketGivesOneMessageBothPlanes) {
  const auto t = rail(kTwoPlanes);
  // none: GPU 0 -> GPU 2 (node 1, one ahead) takes plane 0 alone: 1 GB/s, 1000 B in 1 us.
  {
    core::Simulation sim;
    FlowBackend net(sim, t, {});
    Recorder rec(sim);
    net.send(0, 2, core::Bytes{1000}, rec, 1);
    sim.run(core::Time::from_ns(1));
    EXPECT_NEAR(net.rate_of(1), 1e9, 1);
    sim.run();
    EXPECT_EQ(rec.delivered[1], 1'000'000);
  }
  // spray-packet: two equal-cost paths (one per plane), 500 B each at its port's 1 GB/s: the
  // message moves at the NIC's full 2 GB/s, 500 ns, and each plane port carries half.
  core::Simulation sim;
  FlowBackend net(sim, t, with(Multipath::SprayPacket));
  Recorder rec(sim);
  net.send(0, 2, core::Bytes{1000}, rec, 1);
  sim.run();
  EXPECT_EQ(rec.delivered[1], 500'000);
  const auto out = t.out_links(0);  // scale-up, plane 0 NIC, plane 1 NIC
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(net.link_stats()[out[0]].bytes, 0u);
  EXPECT_EQ(net.link_stats()[out[1]].bytes, 500u);
  EXPECT_EQ(net.link_stats()[out[2]].bytes, 500u);
}

TEST(MultipathRailFat, SprayPacketAcrossRailsKeepsThePxnHop) {
  // GPU 1 (node 0, rail 1) -> GPU 2 (node 1, rail 0): over node 0's scale-up switch to GPU 0,
  // then rail 0 on both planes: 500 B per plane port of GPU 0 at 1 GB/s (the scale-up's
  // 450 GB/s is no bottleneck), 500 ns, where the route (plane 0 alone) takes 1 us. GPU 1's own
  // NIC stays idle.
  const auto t = rail(kTwoPlanes);
  core::Simulation sim;
  FlowBackend net(sim, t, with(Multipath::SprayPacket));
  Recorder rec(sim);
  net.send(1, 2, core::Bytes{1000}, rec, 1);
  sim.run();
  EXPECT_EQ(rec.delivered[1], 500'000);
  const auto gpu0 = t.out_links(0), gpu1 = t.out_links(1);
  EXPECT_EQ(net.link_stats()[gpu0[1]].bytes, 500u);
  EXPECT_EQ(net.link_stats()[gpu0[2]].bytes, 500u);
  EXPECT_EQ(net.link_stats()[gpu1[0]].bytes, 1000u);  // its scale-up link
  EXPECT_EQ(net.link_stats()[gpu1[1]].bytes, 0u);
  EXPECT_EQ(net.link_stats()[gpu1[2]].bytes, 0u);
}

TEST(MultipathRailFat, PacketBackendAllToAllSprayedCompletes) {
  // Spraying the rail-first paths too deadlocked this all-to-all (see rail_paths).
  const auto t = topology::from_compact("railfat:4x8:planes=2", core::Bandwidth{1}, core::Time{});
  core::Simulation sim;
  PacketBackend net(sim, t, with(Multipath::SprayPacket));
  Recorder rec(sim);
  std::uint64_t tag = 0;
  for (topology::NodeId s = 0; s < 32; ++s) {
    for (topology::NodeId d = 0; d < 32; ++d) {
      if (s != d) net.send(s, d, core::Bytes{32768}, rec, ++tag);
    }
  }
  sim.run();
  EXPECT_EQ(rec.delivered.size(), 32u * 31u);
}

TEST(MultipathRailFat, EcmpAndSprayMessageAreAccepted) {
  const auto t = rail(kTwoPlanes);
  core::Simulation sim;
  for (Multipath m : {Multipath::Ecmp, Multipath::SprayMessage, Multipath::SprayPacket}) {
    EXPECT_NO_THROW(FlowBackend(sim, t, with(m))) << static_cast<int>(m);
  }
}

}  // namespace
}  // namespace collsim::network
