// Link failures on the rail-optimised fabric (issue 51): railfat routes over its graph, so a
// failed spine trunk is routed round over the shortest paths that remain (the rule's own route
// where it avoids the failed links), the flow backend carries no byte on it, and failures that cut
// an NPU off are refused, as on the other graph-routed forms (docs/multipath.md "Link failures").
#include <gtest/gtest.h>

#include <string>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "network/flow.hpp"
#include "recorder.hpp"
#include "topology/builders.hpp"
#include "topology/link_failures.hpp"

namespace collsim::network {
namespace {

using collsim::testing::Recorder;

// The fabric: 8 nodes of 4 GPUs, 4-port leaves split 2 down : 2 up, so each rail has 4
// leaves of 2 nodes and 2 spines. Switches: sw0..sw7 the nodes' scale-up switches, then rail 0's
// leaves sw8..sw11 and spines sw12, sw13 (node ids 40.. and 44, 45). sw8-sw12 is leaf 0's trunk
// to spine 0 on rail 0.
topology::Topology fabric() {
  return topology::from_compact("railfat:8x4:leaf=4:netlat=0us:scaleuplat=0us",
                                core::Bandwidth{1}, core::Time{});
}

TEST(RailFatFailures, SpineTrunkFailedEveryRouteAvoidsItAndStaysShortest) {
  const topology::Topology healthy = fabric();
  topology::Topology t = fabric();
  topology::apply_failed_links(t, "sw8-sw12", "--fail-links");
  ASSERT_EQ(t.failed_links().size(), 2u);
  EXPECT_EQ(t.links()[t.failed_links()[0]].src + t.links()[t.failed_links()[0]].dst, 40u + 44u);
  std::uint32_t rerouted = 0;
  for (topology::NodeId a = 0; a < t.num_npus(); ++a) {
    for (topology::NodeId b = 0; b < t.num_npus(); ++b) {
      if (a == b) continue;
      const auto before = healthy.route(a, b), after = t.route(a, b);
      // Leaf 0 keeps its trunk to spine 1: every pair still has a path as short as before.
      ASSERT_EQ(after.size(), before.size()) << a << " -> " << b;
      EXPECT_EQ(t.hops(a, b), after.size());
      topology::NodeId at = a;
      for (topology::LinkId l : after) {
        EXPECT_FALSE(t.link_failed(l)) << a << " -> " << b;
        EXPECT_EQ(t.links()[l].src, at);
        at = t.links()[l].dst;
      }
      EXPECT_EQ(at, b);
      rerouted += after != before;
      // A pair whose route avoided the trunk keeps it.
      bool crossed = false;
      for (topology::LinkId l : before) crossed = crossed || t.link_failed(l);
      if (!crossed) {
        EXPECT_EQ(after, before) << a << " -> " << b;
      }
    }
  }
  // d-mod-k takes spine (destination node mod 2): up the trunk go the 8 GPUs of nodes 0-1 to
  // GPU 0 of nodes 2, 4, 6 (24; three of every four first cross their scale-up switch to rail 0,
  // as PXN does), down it the 24 GPUs of nodes 2-7 to GPU 0 of node 0 (24).
  EXPECT_EQ(rerouted, 24u + 24u);
}

TEST(RailFatFailures, FlowBackendCarriesNoByteOnTheFailedTrunk) {
  topology::Topology t = fabric();
  topology::apply_failed_links(t, "sw8-sw12", "--fail-links");
  core::Simulation sim;
  FlowBackend net(sim, t, {});
  Recorder rec(sim);
  std::uint64_t tag = 0;
  for (topology::NodeId a = 0; a < t.num_npus(); ++a) {
    for (topology::NodeId b = 0; b < t.num_npus(); ++b) {
      if (a != b) net.send(a, b, core::Bytes{1000}, rec, tag++);
    }
  }
  sim.run();
  EXPECT_EQ(rec.delivered.size(), tag);
  std::uint64_t on_trunks = 0;
  for (topology::LinkId l : t.failed_links()) EXPECT_EQ(net.link_stats()[l].bytes, 0u) << l;
  // The other trunk of leaf 0 on rail 0 (to spine 1) took the rerouted bytes as well.
  for (topology::LinkId l = 0; l < t.links().size(); ++l) {
    const auto& k = t.links()[l];
    if ((k.src == 40 && k.dst == 45) || (k.src == 45 && k.dst == 40)) {
      on_trunks += net.link_stats()[l].bytes;
    }
  }
  EXPECT_GT(on_trunks, 0u);
}

TEST(RailFatFailures, AnNpuCutOffIsRefusedNamingIt) {
  topology::Topology t = fabric();
  // GPU 0's scale-up link and its NIC: nothing leaves it.
  try {
    topology::apply_failed_links(t, "npu0-sw0,npu0-sw8", "--fail-links");
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--fail-links: with these links failed NPU 0 can no "
                                         "longer reach NPU 1"),
              std::string::npos)
        << e.what();
  }
  // Both of leaf 0's trunks on rail 0: its nodes' rail-0 GPUs still reach the others over the
  // scale-up switch and another rail (PXN's way round), so it is allowed.
  topology::Topology u = fabric();
  EXPECT_NO_THROW(topology::apply_failed_links(u, "sw8-sw12,sw8-sw13", "--fail-links"));
  // GPU 0 of node 0 -> GPU 0 of node 2: over the scale-up switch to GPU 1, rail 1's four links,
  // and the scale-up switch of node 2 back to GPU 0: 8 links.
  EXPECT_EQ(u.route(0, 8).size(), 8u);
}

}  // namespace
}  // namespace collsim::network
