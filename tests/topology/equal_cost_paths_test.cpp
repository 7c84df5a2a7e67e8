// Equal-cost shortest paths (topology/equal_cost_paths.hpp) and link failures
// (Topology::fail_links, topology/link_failures.hpp), counted by hand on small fat trees and
// BiGraphs.
#include "topology/equal_cost_paths.hpp"

#include <gtest/gtest.h>

#include <set>

#include "core/error.hpp"
#include "topology/builders.hpp"
#include "topology/link_failures.hpp"

namespace collsim::topology {
namespace {

const core::Bandwidth kBw{1e9};

// fattree:4x2: NPUs 0..15, leaves 16..19 (NPU i on leaf 16 + i/4), spines 20..23.
Topology ft42() { return fat_tree(4, 2, kBw, core::Time{}); }

TEST(EqualCostPaths, FatTreeHasOnePathPerSpineBetweenLeaves) {
  const Topology t = ft42();
  EqualCostPaths p(t);
  EXPECT_EQ(p.count(0, 1), 1u);  // same leaf: up and down
  EXPECT_EQ(p.count(0, 4), 4u);  // k^1 = 4: one through each spine
  EXPECT_EQ(p.count(15, 0), 4u);
  std::set<NodeId> spines;
  for (std::uint64_t i = 0; i < 4; ++i) {
    std::vector<LinkId> r;
    p.append(0, 4, i, r);
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(t.links()[r[0]].src, 0u);
    EXPECT_EQ(t.links()[r[1]].src, 16u);  // NPU 0's leaf
    EXPECT_EQ(t.links()[r[3]].dst, 4u);
    for (std::size_t h = 1; h < r.size(); ++h) EXPECT_EQ(t.links()[r[h]].src, t.links()[r[h - 1]].dst);
    spines.insert(t.links()[r[1]].dst);
  }
  EXPECT_EQ(spines, (std::set<NodeId>{20, 21, 22, 23}));
  // Indices wrap round: path 5 is path 1.
  std::vector<LinkId> a, b;
  p.append(0, 4, 1, a);
  p.append(0, 4, 5, b);
  EXPECT_EQ(a, b);
}

TEST(EqualCostPaths, ThreeLevelFatTreeHasKToTheLevelPaths) {
  // fattree:4x3: NPUs whose nearest common ancestors are at level 1 have 4 paths, at level 2
  // (different level-1 groups) 4^2 = 16.
  const Topology t = fat_tree(4, 3, kBw, core::Time{});
  EqualCostPaths p(t);
  EXPECT_EQ(p.count(0, 3), 1u);
  EXPECT_EQ(p.count(0, 4), 4u);
  EXPECT_EQ(p.count(0, 16), 16u);
  std::set<std::vector<LinkId>> distinct;
  for (std::uint64_t i = 0; i < 16; ++i) {
    std::vector<LinkId> r;
    p.append(0, 16, i, r);
    EXPECT_EQ(r.size(), 6u);
    distinct.insert(r);
  }
  EXPECT_EQ(distinct.size(), 16u);
}

TEST(EqualCostPaths, BiGraphSameLayerGoesThroughAnyOtherLayerSwitch) {
  // bigraph:8x4: upper switches 32..35, lower 36..39; NPUs 0..15 on the upper ones.
  const Topology t = bigraph(8, 4, kBw, core::Time{});
  EqualCostPaths p(t);
  EXPECT_EQ(p.count(0, 4), 4u);   // upper to upper: through any of the 4 lower switches
  EXPECT_EQ(p.count(0, 16), 1u);  // upper to lower: their direct link
}

TEST(EqualCostPaths, PathZeroIsTheGeneralGraphRoute) {
  // Ties toward the lower link id, hop by hop: the graph's own route without a routing rule.
  const Topology ft = ft42();
  const Topology plain = Topology::graph("plain", ft.num_npus(), ft.num_nodes(), ft.links());
  EqualCostPaths p(plain);
  for (NodeId d = 1; d < 16; ++d) {
    std::vector<LinkId> r;
    p.append(0, d, 0, r);
    EXPECT_EQ(r, plain.route(0, d)) << d;
  }
}

TEST(LinkFailures, FailedUpLinkIsAvoidedAndItsPathsDropOut) {
  Topology t = ft42();
  const std::vector<LinkId> before = t.route(0, 4);  // d-mod-k: up to spine 4 mod 4 = 0
  ASSERT_EQ(t.links()[before[1]].dst, 20u);
  apply_failed_links(t, "sw0-sw4", "--fail-links");  // leaf 16 <-> spine 20, both directions
  EXPECT_EQ(t.failed_links().size(), 2u);
  const std::vector<LinkId> after = t.route(0, 4);
  ASSERT_EQ(after.size(), 4u);  // still a shortest path
  for (LinkId l : after) EXPECT_FALSE(t.link_failed(l));
  EXPECT_NE(t.links()[after[1]].dst, 20u);
  // Routes the failure does not touch keep the rule's choice (d-mod-k to spine 1 for NPU 5).
  EXPECT_EQ(t.links()[t.route(0, 5)[1]].dst, 21u);
  EqualCostPaths p(t);
  EXPECT_EQ(p.count(0, 4), 3u);
  EXPECT_EQ(p.count(4, 0), 3u);  // down 20 -> 16 failed too
  EXPECT_EQ(p.count(4, 8), 4u);  // leaves 17 and 18 are untouched
}

TEST(LinkFailures, OneDirectionOnly) {
  Topology t = ft42();
  apply_failed_links(t, "sw0>sw4", "f");
  EqualCostPaths p(t);
  EXPECT_EQ(p.count(0, 4), 3u);
  EXPECT_EQ(p.count(4, 0), 4u);
}

TEST(LinkFailures, BadInputIsRefusedNamingTheField) {
  Topology t = ft42();
  auto refused = [&](const char* text, const char* says) {
    try {
      apply_failed_links(t, text, "--fail-links");
      ADD_FAILURE() << text << " accepted";
    } catch (const core::InputError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("--fail-links"), std::string::npos) << msg;
      EXPECT_NE(msg.find(says), std::string::npos) << msg;
    }
  };
  refused("sw0-sw1", "no link between sw0 and sw1");
  refused("sw0-sw8", "out of range");
  refused("npu16-sw0", "out of range");
  refused("sw0", "is not a link");
  refused("x-sw0", "is not a node");
  refused("npu0-sw0", "can no longer reach");  // NPU 0's only link
  // All four up-links of leaf 0 cut it off.
  refused("sw0>sw4,sw0>sw5,sw0>sw6,sw0>sw7", "can no longer reach");
  Topology t44 = topology::torus({4, 4}, kBw, core::Time{});
  EXPECT_THROW(apply_failed_links(t44, "0-1", "f"), core::InputError);
}

}  // namespace
}  // namespace collsim::topology

namespace collsim::topology {
namespace {

TEST(EqualCostPaths, NoPathThroughAThirdNpuWhereOnlySwitchesForward) {
  // NPUs 0, 1, 2; switches 3..6. From 0 to 2 two paths of 4 hops: 0-3-1-4-2 crosses NPU 1,
  // 0-5-6-4-2 only switches. An imported graph (SimAI's routing: GPUs never forward) has one.
  std::vector<Link> links;
  for (const auto& [a, b] : {std::pair<NodeId, NodeId>{0, 3}, {1, 3}, {1, 4}, {2, 4}, {0, 5},
                            {5, 6}, {6, 4}}) {
    links.push_back(Link{a, b, kBw, core::Time{}, 0});
    links.push_back(Link{b, a, kBw, core::Time{}, 0});
  }
  Topology t = Topology::graph("transit", 3, 7, links);
  EXPECT_EQ(EqualCostPaths(t).count(0, 2), 2u);  // NPUs forward unless told otherwise
  t.set_switches_only_forward(true);
  EqualCostPaths p(t);
  ASSERT_EQ(p.count(0, 2), 1u);
  for (std::uint64_t i = 0; i < 3; ++i) {
    std::vector<LinkId> r;
    p.append(0, 2, i, r);
    ASSERT_EQ(r.size(), 4u);
    for (LinkId l : r) EXPECT_NE(t.links()[l].dst, 1u) << "crossed NPU 1";
  }
}

}  // namespace
}  // namespace collsim::topology
