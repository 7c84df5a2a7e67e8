// The flow backend's max-min fair rates on the issue-34 fabrics, derived by hand: a dragonfly
// with minimal and with Valiant routing (topology/dragonfly.hpp) and a topology imported from a
// SimAI topology file (topology/graph_import.hpp).
#include <gtest/gtest.h>

#include <string>

#include "core/engine.hpp"
#include "network/flow.hpp"
#include "recorder.hpp"
#include "test_paths.hpp"
#include "topology/builders.hpp"
#include "topology/dragonfly.hpp"
#include "topology/graph_import.hpp"

namespace collsim::network {
namespace {

using collsim::testing::Recorder;
using topology::NodeId;

// dragonfly:3x2x2 at 1 GB/s (1 byte/ns), no latency. Router (g, r) holds NPUs 4g + 2r and
// 4g + 2r + 1. Consecutive global ports, h = 1: group 0's link to group 1 on router (0,0), to
// group 2 on (0,1); group 1's to group 0 on (1,0), to group 2 on (1,1); group 2's to group 0 on
// (2,0), to group 1 on (2,1).
//   f1 0->4: (0,0) -> global -> (1,0)                         NPU 4 on (1,0)
//   f2 2->6: (0,1) -> local (0,0) -> global -> (1,0) -> local (1,1)
//   f3 3->7: the same links as f2
//   f6 1->5: (0,0) -> global -> (1,0)
//   f4 9->4, f5 8->4: (2,0) -> local (2,1) -> global (1,1) -> local (1,0) -> NPU 4
// Progressive filling: the global link (0,0)->(1,0) carries f1 f2 f3 f6 and fills at 1/4; the
// link (1,0)->NPU 4 carries f1 (now fixed at 1/4), f4, f5, which share the remaining 3/4: 3/8
// each (their other links, shared by two, allow 1/2). When the four 1000-byte flows end at
// 4000 ns, f4 and f5 rise to 1/2 each (the link into NPU 4 and the local link (2,0)->(2,1)):
// 2500 bytes = 3/8 x 4000 + 1/2 x 2000, done at 6000 ns.
TEST(FlowFabrics, DragonflyMinimalMaxMin) {
  const auto t = topology::from_compact("dragonfly:3x2x2", core::Bandwidth{1e9}, core::Time{});
  core::Simulation sim;
  FlowBackend net(sim, t, {});
  Recorder rec(sim);
  net.send(0, 4, core::Bytes{1000}, rec, 1);
  net.send(2, 6, core::Bytes{1000}, rec, 2);
  net.send(3, 7, core::Bytes{1000}, rec, 3);
  net.send(1, 5, core::Bytes{1000}, rec, 6);
  net.send(9, 4, core::Bytes{2500}, rec, 4);
  net.send(8, 4, core::Bytes{2500}, rec, 5);
  sim.run(core::Time::from_ns(1));
  for (const std::uint64_t id : {1, 2, 3, 6}) EXPECT_NEAR(net.rate_of(id), 0.25e9, 1) << id;
  EXPECT_NEAR(net.rate_of(4), 0.375e9, 1);
  EXPECT_NEAR(net.rate_of(5), 0.375e9, 1);
  sim.run();
  for (const std::uint64_t id : {1, 2, 3, 6}) EXPECT_NEAR(rec.delivered[id], 4'000'000, 2) << id;
  EXPECT_NEAR(rec.delivered[4], 6'000'000, 2);
  EXPECT_NEAR(rec.delivered[5], 6'000'000, 2);
}

// Adversarial traffic on 5 groups of 2 routers with one NPU each (NPU 2g + r on router (g, r)),
// 1 GB/s everywhere: NPUs 0 and 1 of group 0 send to NPUs 2 and 3 of group 1. Group 0's ports
// for groups 1, 2 sit on router (0,0), for 3, 4 on (0,1) (h = 2); group 1's port for group 0 on
// (1,0).
//   minimal: both flows cross the one global link (0,0)->(1,0): 1/2 each.
//   valiant: each goes through its own intermediate group (a hash of source, destination and
//   seed). Different groups: its two global links are its own, group 0's local link is used
//   (if at all) (0,0)->(0,1) by the first flow and (0,1)->(0,0) by the second, group 1's
//   (1,1)->(1,0) and (1,0)->(1,1): nothing is shared, 1 GB/s each. The same group: both cross
//   group 0's one link to it, 1/2 each.
TEST(FlowFabrics, DragonflyValiantSpreadsAdversarialTraffic) {
  topology::DragonflySpec s;
  s.groups = 5;
  s.routers = 2;
  s.terminals = 1;
  s.terminal_bandwidth = s.local_bandwidth = s.global_bandwidth = core::Bandwidth{1e9};
  const auto rates = [](const topology::Topology& t) {
    core::Simulation sim;
    FlowBackend net(sim, t, {});
    Recorder rec(sim);
    net.send(0, 2, core::Bytes{1000}, rec, 1);
    net.send(1, 3, core::Bytes{1000}, rec, 2);
    sim.run(core::Time::from_ns(1));
    EXPECT_DOUBLE_EQ(net.rate_of(1), net.rate_of(2));
    return net.rate_of(1);
  };
  EXPECT_NEAR(rates(topology::dragonfly(s)), 0.5e9, 1);
  s.valiant = true;
  int apart = 0, together = 0;
  for (std::uint32_t seed = 0; seed < 16; ++seed) {
    s.seed = seed;
    const bool same = topology::dragonfly_valiant_group(s, 0, 2) ==
                      topology::dragonfly_valiant_group(s, 1, 3);
    EXPECT_NEAR(rates(topology::dragonfly(s)), same ? 0.5e9 : 1e9, 1) << "seed " << seed;
    (same ? together : apart) += 1;
  }
  // Three intermediate groups to pick from: both cases occur among 16 seeds.
  EXPECT_GT(apart, 0);
  EXPECT_GT(together, 0);
}

// SimAI's Spectrum-X 16-GPU file (examples/topologies/): 100 Gb/s (12.5 GB/s) NICs, one ASW per
// rail (GPU i on ASW 18 + i mod 8), 2400 Gb/s (300 GB/s) to the server's NVSwitch, 400 Gb/s
// (50 GB/s) ASW-PSW links.
//   f1 0->8  rail 0: 0 -> ASW 18 -> 8
//   f2 0->1  same server: 0 -> NVSwitch 16 -> 1
//   f3 1->8  rail 1 to rail 0: 1 -> ASW 19 -> PSW -> ASW 18 -> 8
//   f4 9->0  rail 1 to rail 0: 9 -> ASW 19 -> PSW -> ASW 18 -> 0
// f1 and f3 share ASW 18 -> GPU 8: 6.25 GB/s each. f2 runs at the NVLink's 300 GB/s (an NPU
// does not forward, so it is alone there), f4 at its NIC's 12.5 GB/s (whatever PSWs f3 and f4
// take, their ASW-PSW links carry at most 18.75 of 50 GB/s). Sizes for 10 us each; delivery
// adds the route latency: 2 x 500 ns (f1), 2 x 25 ns (f2), 4 x 500 ns (f3, f4).
TEST(FlowFabrics, ImportedSimaiGraphMaxMin) {
  const auto t = topology::load_topology_file(
      std::string(COLLSIM_SOURCE_DIR) + "/examples/topologies/Spectrum-X_16g_8gps_100Gbps_A100",
      "t");
  core::Simulation sim;
  FlowBackend net(sim, t, {});
  Recorder rec(sim);
  net.send(0, 8, core::Bytes{62'500}, rec, 1);
  net.send(0, 1, core::Bytes{3'000'000}, rec, 2);
  net.send(1, 8, core::Bytes{62'500}, rec, 3);
  net.send(9, 0, core::Bytes{125'000}, rec, 4);
  sim.run(core::Time::from_ns(1));
  EXPECT_NEAR(net.rate_of(1), 6.25e9, 1);
  EXPECT_NEAR(net.rate_of(2), 300e9, 1);
  EXPECT_NEAR(net.rate_of(3), 6.25e9, 1);
  EXPECT_NEAR(net.rate_of(4), 12.5e9, 1);
  sim.run();
  EXPECT_NEAR(rec.delivered[1], 11'000'000, 2);
  EXPECT_NEAR(rec.delivered[2], 10'050'000, 2);
  EXPECT_NEAR(rec.delivered[3], 12'000'000, 2);
  EXPECT_NEAR(rec.delivered[4], 12'000'000, 2);
}

}  // namespace
}  // namespace collsim::network
