// The rail-optimised fabric (`railfat:NxG`, rail_fat_tree.cpp): wiring, defaults, deterministic
// routes that are shortest and stay on their rail, planes, dimensions for hierarchical
// algorithms, refusals; and the fat tree's per-level oversubscription (fat_tree.cpp).
#include <gtest/gtest.h>

#include <ctime>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "collective/algorithm.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "network/flow.hpp"
#include "runtime/execute.hpp"
#include "scheduler/group_symmetry.hpp"
#include "topology/builders.hpp"
#include "topology/forms.hpp"
#include "topology/inventory.hpp"

namespace collsim::topology {
namespace {

const core::Bandwidth kBw{16e9};
const core::Time kLat = core::Time::from_ns(150);

Topology rf(const std::string& spec) { return from_compact(spec, kBw, kLat, "--topology"); }

std::string error_of(const std::string& spec) {
  try {
    rf(spec);
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// Hops of a shortest path a -> b (BFS over every node, NPUs included).
std::uint32_t bfs_hops(const Topology& t, NodeId a, NodeId b) {
  std::vector<std::uint32_t> dist(t.num_nodes(), std::numeric_limits<std::uint32_t>::max());
  std::vector<NodeId> q{a};
  dist[a] = 0;
  for (std::size_t h = 0; h < q.size(); ++h) {
    for (LinkId l : t.out_links(q[h])) {
      const NodeId v = t.links()[l].dst;
      if (dist[v] == std::numeric_limits<std::uint32_t>::max()) {
        dist[v] = dist[q[h]] + 1;
        q.push_back(v);
      }
    }
  }
  return dist[b];
}

// Every route is a connected walk src -> dst of shortest length.
void expect_shortest_connected_routes(const Topology& t) {
  for (NodeId a = 0; a < t.num_npus(); ++a) {
    for (NodeId b = 0; b < t.num_npus(); ++b) {
      if (a == b) continue;
      const auto r = t.route(a, b);
      ASSERT_FALSE(r.empty());
      NodeId cur = a;
      for (LinkId l : r) {
        ASSERT_EQ(t.links()[l].src, cur) << a << "->" << b;
        cur = t.links()[l].dst;
      }
      ASSERT_EQ(cur, b);
      ASSERT_EQ(r.size(), bfs_hops(t, a, b)) << a << "->" << b;
      ASSERT_EQ(t.hops(a, b), r.size());
    }
  }
}

TEST(RailFatTree, WiringOfASmallTwoLevelFabric) {
  // 8 nodes of 2 GPUs, 4-port leaves: 2 down, 2 up, 4 leaves and 2 spines per rail.
  const Topology t = rf("railfat:8x2:leaf=4");
  EXPECT_EQ(t.name(), "railfat:8x2:leaf=4");
  EXPECT_EQ(t.num_npus(), 16u);
  EXPECT_EQ(t.num_switches(), 8u + 2u * (4 + 2));  // scale-up switches, then per rail
  EXPECT_EQ(t.links().size(), 2u * (16 + 16 + 2 * 4 * 2));
  expect_shortest_connected_routes(t);
  EXPECT_EQ(t.route(0, 1).size(), 2u);             // same node: over the scale-up switch
  EXPECT_EQ(t.route(0, 2).size(), 2u);             // node 1, same leaf of rail 0
  EXPECT_EQ(t.route(0, 4).size(), 4u);             // node 2: leaf -> spine -> leaf
  EXPECT_EQ(t.route(0, 5).size(), 6u);             // other rail: scale-up first, then rail 1
  EXPECT_EQ(t.links()[t.route(0, 5)[1]].dst, 1u);  // to GPU 1 of node 0 (PXN)
  // d-mod-k: node 0 to nodes 2 and 3 (leaf 1) goes up through both spines.
  std::set<NodeId> spines;
  for (NodeId b : {4u, 6u}) spines.insert(t.links()[t.route(0, b)[1]].dst);
  EXPECT_EQ(spines.size(), 2u);
  EXPECT_EQ(t.diameter(), 6u);
}

TEST(RailFatTree, DefaultsAreTheH100PresetsAndNonBlocking) {
  const Topology t = rf("railfat:4x8");
  // Scale-up link: NVLink4 450 GB/s per GPU per direction; NIC: 400 Gb/s; step latencies split
  // over the two NPU-side hops: 3.4 us (NVLink) and 14 us (network).
  const Link& nv = t.links()[t.link_between(0, 32)];
  EXPECT_DOUBLE_EQ(nv.bandwidth.bytes_per_s, 450e9);
  EXPECT_EQ(nv.latency, core::Time::from_ns(1700));
  EXPECT_EQ(nv.dim, 0u);
  const auto r = t.route(0, 8);  // node 0 -> node 1 on rail 0: one 64-port leaf holds all 4
  ASSERT_EQ(r.size(), 2u);
  EXPECT_DOUBLE_EQ(t.links()[r[0]].bandwidth.bytes_per_s, 50e9);
  EXPECT_EQ(t.links()[r[0]].latency + t.links()[r[1]].latency, core::Time::from_ns(14000));
  EXPECT_EQ(t.links()[r[0]].dim, 1u);
  // The dimensions: dim0 the node's 8 GPUs, dim1 the 4 GPUs of one rail.
  ASSERT_EQ(t.dimensions().size(), 2u);
  EXPECT_EQ(t.dimensions()[0].groups.size(), 4u);
  EXPECT_EQ(t.dimensions()[0].groups[1], (std::vector<NodeId>{8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(t.dimensions()[1].groups.size(), 8u);
  EXPECT_EQ(t.dimensions()[1].groups[3], (std::vector<NodeId>{3, 11, 19, 27}));
  EXPECT_EQ(t.coords(19), (std::vector<std::uint32_t>{3, 2}));
  // Non-blocking with spines: 128 nodes on 64-port leaves are 4 leaves of 32 and 32 spines.
  const Topology big = rf("railfat:128x2");
  EXPECT_EQ(big.num_switches(), 128u + 2u * (4 + 32));
  EXPECT_NE(big.summary().find("4 leaves of 32 nodes, 32 spines, 32 up-links per leaf "
                               "(oversubscription 1:1)"),
            std::string::npos)
      << big.summary();
  // The other presets give their own rates: A100, NVLink3 300 GB/s and 200 Gb/s NICs.
  const Topology a100 = rf("railfat:2x8:system=a100");
  EXPECT_DOUBLE_EQ(a100.links()[a100.link_between(0, 16)].bandwidth.bytes_per_s, 300e9);
}

TEST(RailFatTree, OptionsOversubscriptionSpinesAndRates) {
  // 64-port leaves 3:1: 48 down, 16 up; 100 nodes need 3 leaves; spines=4: 4 up-links to each.
  const Topology t = rf("railfat:100x2:oversub=3:spines=4:nic=200Gb/s:scaleup=900GB/s");
  EXPECT_EQ(t.num_switches(), 100u + 2u * (3 + 4));
  const auto r = t.route(0, 2 * 99);  // node 0 -> node 99: leaf 0 -> spine 99 mod 4 -> leaf 2
  ASSERT_EQ(r.size(), 4u);
  EXPECT_DOUBLE_EQ(t.links()[r[0]].bandwidth.bytes_per_s, 25e9);
  EXPECT_DOUBLE_EQ(t.links()[r[1]].bandwidth.bytes_per_s, 4 * 25e9);  // 4 up-links aggregated
  EXPECT_EQ(t.links()[r[1]].dst, 200u + 100 + 3 + 99 % 4);
  EXPECT_DOUBLE_EQ(t.links()[t.link_between(0, 200)].bandwidth.bytes_per_s, 900e9);
  EXPECT_NE(t.summary().find("oversubscription 3:1"), std::string::npos) << t.summary();
}

TEST(RailFatTree, TwoPlanesSplitTheNicAndCarryForwardAndBackwardTraffic) {
  const Topology t = rf("railfat:8x2:planes=2:leaf=4");
  EXPECT_EQ(t.num_switches(), 8u + 2u * 2 * (4 + 2));
  const NodeId n = 16, first_block = n + 8;  // rail 0 plane 0, then rail 0 plane 1
  // The plane of node 0's messages to nodes 1..7 (k ahead: (k - 1) mod 2; k behind: k mod 2):
  // 1 ahead 0, 2 ahead 1, 3 ahead 0, 4 ahead 1, 3 behind 1, 2 behind 0, 1 behind 1.
  const std::vector<std::uint32_t> plane = {0, 1, 0, 1, 1, 0, 1};
  for (std::uint32_t b = 1; b < 8; ++b) {
    const auto r = t.route(0, 2 * b);
    EXPECT_EQ(t.links()[r[0]].dst, first_block + 6 * plane[b - 1]) << "node " << b;
    EXPECT_DOUBLE_EQ(t.links()[r[0]].bandwidth.bytes_per_s, 25e9);  // half of 400 Gb/s
  }
  // The same rule from node 5: node 6 is 1 ahead (plane 0), node 4 one behind (plane 1).
  EXPECT_EQ(t.links()[t.route(10, 12)[0]].dst, first_block + 2);
  EXPECT_EQ(t.links()[t.route(10, 8)[0]].dst, first_block + 6 + 2);
  expect_shortest_connected_routes(t);
}

TEST(RailFatTree, RailsAreDisjointAndARailsRoutesStayOnIt) {
  const Topology t = rf("railfat:8x4:planes=2:leaf=4");
  const std::uint32_t g = 4, nodes = 8;
  std::vector<std::set<NodeId>> switches(g);
  for (std::uint32_t rail = 0; rail < g; ++rail) {
    const auto& group = t.dimensions()[1].groups[rail];
    for (NodeId a : group) {
      for (NodeId b : group) {
        if (a == b) continue;
        for (LinkId l : t.route(a, b)) {
          const Link& k = t.links()[l];
          EXPECT_EQ(k.dim, 1u);
          for (NodeId v : {k.src, k.dst}) {
            if (t.is_npu(v)) {
              EXPECT_EQ(v % g, rail) << a << "->" << b;
            } else {
              EXPECT_GE(v, t.num_npus() + nodes) << "no scale-up switch on a rail's route";
              switches[rail].insert(v);
            }
          }
        }
      }
    }
  }
  for (std::uint32_t r = 0; r < g; ++r) {
    EXPECT_EQ(switches[r].size(), 2u * (4 + 2));  // both planes' leaves and spines
    for (std::uint32_t q = r + 1; q < g; ++q) {
      for (NodeId s : switches[r]) EXPECT_EQ(switches[q].count(s), 0u);
    }
  }
}

TEST(RailFatTree, RefusalsNameTheSpecAndTheReason) {
  EXPECT_NE(error_of("railfat:4096x8")
                .find("4096 nodes need 128 leaves of 32 nodes per rail, "
                      "more than a 64-port spine reaches"),
            std::string::npos)
      << error_of("railfat:4096x8");
  EXPECT_EQ(error_of("railfat:4096x8").rfind("--topology: railfat:4096x8: ", 0), 0u);
  EXPECT_NE(error_of("railfat:4096x8:leaf=128").find("(no error)"), std::string::npos);
  // One leaf holds 16 nodes: the oversubscription has nothing to act on, and says so.
  EXPECT_NE(rf("railfat:16x8:oversub=2").summary().find("oversub and spines unused"),
            std::string::npos);
  EXPECT_NE(error_of("railfat:4x8:planes=3").find("option planes=3"), std::string::npos);
  EXPECT_NE(error_of("railfat:100x8:spines=5").find("spines=5 must divide the leaf's 32 up-links"),
            std::string::npos);
  EXPECT_NE(error_of("railfat:100x8:oversub=0.5").find("oversub must be >= 1"), std::string::npos);
  EXPECT_NE(error_of("railfat:4x8:system=tpu").find("unknown GPU system 'tpu'"), std::string::npos);
  EXPECT_NE(error_of("railfat:4x8:rails=8").find("unknown option \"rails\""), std::string::npos);
  EXPECT_NE(error_of("railfat:8").find("write railfat:NxG"), std::string::npos);
}

TEST(RailFatTree, TheIssuesFabricBuildsInSecondsWithItsCounts) {
  // railfat:2048x8:planes=2: 16,384 GPUs; per rail and plane 64 leaves of 32 nodes and 32
  // spines: 8 x 2 x 96 = 1,536 fabric switches and 2,048 scale-up switches.
  const std::clock_t start = std::clock();  // CPU time of this process: load-independent
  const Topology t = rf("railfat:2048x8:planes=2");
  EXPECT_LT(static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC, 5.0);
  EXPECT_EQ(t.num_npus(), 16384u);
  EXPECT_EQ(t.num_switches(), 2048u + 1536u);
  // Scale-up 2 x 16,384; NICs 2 x 2 x 16,384; leaf-spine 2 x 1,024 leaves x 32.
  EXPECT_EQ(t.links().size(), 32768u + 65536u + 65536u);
  const auto inv = inventory(t);
  ASSERT_EQ(inv.size(), 2u);
  EXPECT_EQ(inv[0].switches, 2048u);
  EXPECT_EQ(inv[1].switches, 1536u);
  EXPECT_DOUBLE_EQ(inv[1].per_npu.bytes_per_s, 50e9);  // both plane ports of GPU 0's NIC
  EXPECT_EQ(t.route(0, 8 * 2047).size(), 4u);          // node 0 -> node 2047 over a spine, plane 1
}

// A dim1 collective (every rail at once) on the flow backend uses only rail links, and each
// rail's ring gets its whole NIC: bidirectional ring all-gather of 3 x 1 MiB on 4 nodes of
// rail r, 0 latency: each GPU sends 2 pieces of 512 KiB each way... checked against the
// closed form below.
TEST(RailFatTree, ARailCollectiveStaysOnItsRailOnTheFlowBackend) {
  const Topology t = rf("railfat:4x2:planes=2:netlat=0us:scaleuplat=0us");
  const auto choice = collective::parse_algorithm("ring:directions=2", "t");
  for (std::uint32_t rail = 0; rail < 2; ++rail) {
    const collective::Communicator comm{t.dimensions()[1].groups[rail], "dim1"};
    const auto p = collective::build_program(choice, t, comm, collective::Collective::AllGather,
                                             core::Bytes{4 << 20}, 1);
    core::Simulation sim;
    network::FlowBackend net(sim, t, {});
    const double secs = runtime::execute(p, net, sim).time.seconds();
    // 4 MiB over 4 ranks, two rings of 2 MiB each way: each ring step moves 512 KiB per
    // direction; forward on plane 0 and backward on plane 1 (25 GB/s each): 3 steps.
    EXPECT_NEAR(secs, 3 * (512.0 * 1024) / 25e9, 1e-9);
    for (LinkId l = 0; l < t.links().size(); ++l) {
      if (net.link_stats()[l].bytes == 0) continue;
      const Link& k = t.links()[l];
      EXPECT_EQ(k.dim, 1u) << "link " << l;
      for (NodeId v : {k.src, k.dst}) {
        if (t.is_npu(v)) {
          EXPECT_EQ(v % 2, rail);
        }
      }
    }
  }
}

TEST(RailFatTree, HierarchicalAllReduceRunsFromTheCommandLine) {
  const auto r = test::collsim(
      "collective -t railfat:8x4:planes=2:leaf=4 -c all-reduce -a hierarchical -s 1MiB -b flow "
      "-q");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("railfat:8x4:planes=2:leaf=4"), std::string::npos) << r.out;
  const auto inv = test::collsim("inventory -t railfat:2048x8:planes=2");
  ASSERT_EQ(inv.status, 0) << inv.err;
  EXPECT_NE(inv.out.find("railfat:2048x8:planes=2: 16384 NPUs"), std::string::npos) << inv.out;
  EXPECT_NE(inv.out.find("NIC 50 GB/s"), std::string::npos) << inv.out;
}

// The fat tree's per-level oversubscription: fattree:KxL keeps its meaning; oversub thins the
// links above each level.
TEST(FatTreeOversub, PerLevelBandwidthsAndNames) {
  const Topology plain = rf("fattree:4x3");
  const Topology t = rf("fattree:4x3:oversub=2,1");
  EXPECT_EQ(t.name(), "fattree:4x3:oversub=2,1");
  EXPECT_EQ(t.links().size(), plain.links().size());
  const NodeId n = 64;
  for (const Link& l : t.links()) {
    const bool npu = t.is_npu(l.src) || t.is_npu(l.dst);
    const NodeId lo = std::min(l.src, l.dst);
    const bool leaf_level = !npu && lo < n + 16;  // level 0 <-> level 1
    EXPECT_DOUBLE_EQ(l.bandwidth.bytes_per_s, leaf_level ? 8e9 : 16e9);
  }
  for (const Link& l : plain.links()) EXPECT_DOUBLE_EQ(l.bandwidth.bytes_per_s, 16e9);
  const Topology all = rf("fattree:4x3:oversub=4");
  for (const Link& l : all.links()) {
    const bool npu = all.is_npu(l.src) || all.is_npu(l.dst);
    EXPECT_DOUBLE_EQ(l.bandwidth.bytes_per_s, npu ? 16e9 : 4e9);
  }
  EXPECT_NE(error_of("fattree:4x3:oversub=2,1,1").find("one value or one per level"),
            std::string::npos);
  EXPECT_NE(error_of("fattree:4x3:oversub=0.5").find(">= 1"), std::string::npos);
  EXPECT_NE(error_of("fattree:4x3:oversub=2,x").find("option oversub=x"), std::string::npos);
}

}  // namespace
}  // namespace collsim::topology

namespace collsim::topology {
namespace {

// One group per dimension may stand for all (scheduler/group_symmetry.hpp): the rails and the
// nodes each have links of their own and routes of the same shape, planes included.
TEST(RailFatTree, GroupSymmetryHolds) {
  for (const char* spec : {"railfat:8x4:planes=2:leaf=4", "railfat:16x8:leaf=8:oversub=3"}) {
    const auto s = scheduler::group_symmetry(rf(spec));
    EXPECT_TRUE(s.holds()) << spec << ": " << s.broken;
  }
}

}  // namespace
}  // namespace collsim::topology
