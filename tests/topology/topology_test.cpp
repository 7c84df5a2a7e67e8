// Topology layer: builders, counts, degrees, diameters, dimension groups, deterministic routes,
// ring orders, link aggregation (Themis Table 2) and input errors.
#include "topology/topology.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "topology/builders.hpp"

namespace collsim::topology {
namespace {

using core::Bandwidth;
using core::Time;

const Bandwidth kBw{25e9};  // 200 Gb/s
const Time kLat = Time::from_ns(100);

// The message of the core::InputError that `f` throws, or a test failure.
template <typename F>
std::string input_error(F f) {
  try {
    f();
  } catch (const core::InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected core::InputError";
  return "";
}

std::vector<NodeId> ids(std::initializer_list<NodeId> l) { return l; }

// A route must be a chain of links from src to dst whose length is hops(), taking dimensions in
// increasing order on products (dimension-order routing).
void expect_route_ok(const Topology& t, NodeId src, NodeId dst) {
  const std::vector<LinkId> r = t.route(src, dst);
  ASSERT_EQ(r.size(), t.hops(src, dst)) << src << "->" << dst;
  NodeId cur = src;
  std::uint32_t dim = 0;
  for (LinkId l : r) {
    const Link& link = t.links()[l];
    ASSERT_EQ(link.src, cur) << src << "->" << dst;
    if (!t.dimensions().empty()) {
      ASSERT_GE(link.dim, dim) << src << "->" << dst;
      dim = link.dim;
    }
    cur = link.dst;
  }
  EXPECT_EQ(cur, dst);
}

void expect_all_routes_ok(const Topology& t) {
  for (NodeId a = 0; a < t.num_npus(); ++a) {
    for (NodeId b = 0; b < t.num_npus(); ++b) expect_route_ok(t, a, b);
  }
}

// ring_order() is a permutation of the NPUs; if it claims to be a cycle, each consecutive pair
// (last -> first included) is 1 hop apart, or 2 hops through a switch.
void expect_ring_order_ok(const Topology& t) {
  std::vector<NodeId> sorted = t.ring_order();
  std::sort(sorted.begin(), sorted.end());
  ASSERT_EQ(sorted.size(), t.num_npus());
  for (NodeId n = 0; n < t.num_npus(); ++n) ASSERT_EQ(sorted[n], n);
  if (!t.ring_order_is_cycle()) return;
  const auto& o = t.ring_order();
  for (std::size_t i = 0; i < o.size(); ++i) {
    const NodeId a = o[i];
    const NodeId b = o[(i + 1) % o.size()];
    const std::vector<LinkId> r = t.route(a, b);
    if (r.size() == 1) continue;
    ASSERT_EQ(r.size(), 2u) << a << "->" << b;
    EXPECT_FALSE(t.is_npu(t.links()[r[0]].dst)) << a << "->" << b;
  }
}

std::size_t out_degree(const Topology& t, NodeId n) { return t.out_links(n).size(); }
std::size_t in_degree(const Topology& t, NodeId n) { return t.in_links(n).size(); }

// --- Counts, degrees, diameters ---------------------------------------------------------------

TEST(TopologyBuild, UnidirectionalRing) {
  const Topology t = ring(16, kBw, kLat, false);
  EXPECT_EQ(t.name(), "ring:16");
  EXPECT_EQ(t.num_npus(), 16u);
  EXPECT_EQ(t.num_switches(), 0u);
  EXPECT_EQ(t.links().size(), 16u);  // one +1 link per NPU
  for (NodeId n = 0; n < 16; ++n) {
    EXPECT_EQ(out_degree(t, n), 1u);
    EXPECT_EQ(in_degree(t, n), 1u);
  }
  // 1 -> 0 must go all the way round: 15 hops.
  EXPECT_EQ(t.diameter(), 15u);
  EXPECT_EQ(t.hops(0, 1), 1u);
  EXPECT_EQ(t.hops(1, 0), 15u);
  expect_all_routes_ok(t);
}

TEST(TopologyBuild, BidirectionalRing) {
  const Topology t = ring(16, kBw, kLat, true);
  EXPECT_EQ(t.name(), "bidir-ring:16");
  EXPECT_EQ(t.links().size(), 32u);  // +1 and -1 per NPU
  for (NodeId n = 0; n < 16; ++n) {
    EXPECT_EQ(out_degree(t, n), 2u);
    EXPECT_EQ(in_degree(t, n), 2u);
  }
  // Each directed link carries `bw`: links_per_npu 2 = one physical link each way.
  for (const Link& l : t.links()) EXPECT_EQ(l.bandwidth, kBw);
  EXPECT_EQ(t.diameter(), 8u);  // floor(16 / 2)
  expect_all_routes_ok(t);
}

TEST(TopologyBuild, FullyConnected) {
  const Topology t = fully_connected(8, kBw, kLat);
  EXPECT_EQ(t.name(), "fc:8");
  EXPECT_EQ(t.links().size(), 56u);  // 8 * 7 ordered pairs
  for (NodeId n = 0; n < 8; ++n) {
    EXPECT_EQ(out_degree(t, n), 7u);
    EXPECT_EQ(in_degree(t, n), 7u);
  }
  for (const Link& l : t.links()) EXPECT_EQ(l.bandwidth, kBw);  // links_per_npu 7 / 7 peers
  EXPECT_EQ(t.diameter(), 1u);
  expect_all_routes_ok(t);
}

TEST(TopologyBuild, Switch) {
  const Topology t = switch_star(1024, kBw, kLat);
  EXPECT_EQ(t.name(), "switch:1024");
  EXPECT_EQ(t.num_npus(), 1024u);
  EXPECT_EQ(t.num_switches(), 1u);
  EXPECT_EQ(t.num_nodes(), 1025u);
  EXPECT_EQ(t.links().size(), 2048u);  // one up and one down link per NPU
  EXPECT_EQ(out_degree(t, 0), 1u);
  EXPECT_EQ(in_degree(t, 0), 1u);
  EXPECT_EQ(out_degree(t, 1024), 1024u);
  EXPECT_EQ(in_degree(t, 1024), 1024u);
  EXPECT_EQ(t.diameter(), 2u);  // NPU -> switch -> NPU
  EXPECT_EQ(t.hops(3, 900), 2u);
}

TEST(TopologyBuild, Torus) {
  const Topology t = torus({8, 8}, kBw, kLat);
  EXPECT_EQ(t.name(), "torus:8x8");
  EXPECT_EQ(t.num_npus(), 64u);
  EXPECT_EQ(t.links().size(), 256u);  // 64 NPUs * 2 dims * 2 directions
  for (NodeId n = 0; n < 64; ++n) {
    EXPECT_EQ(out_degree(t, n), 4u);
    EXPECT_EQ(in_degree(t, n), 4u);
  }
  for (const Link& l : t.links()) EXPECT_EQ(l.bandwidth, kBw);
  // Per-dimension ring diameters floor(n/2) add up under dimension-order routing.
  EXPECT_EQ(t.diameter(), 8u);                                  // 4 + 4
  EXPECT_EQ(torus({4, 4}, kBw, kLat).diameter(), 4u);           // 2 + 2
  EXPECT_EQ(torus({4, 4, 4}, kBw, kLat).diameter(), 6u);        // 2 + 2 + 2
  EXPECT_EQ(torus({16, 8, 8}, kBw, kLat).diameter(), 16u);      // 8 + 4 + 4
  EXPECT_EQ(torus({4, 4, 4}, kBw, kLat).links().size(), 384u);  // 64 * 3 * 2
  expect_all_routes_ok(torus({4, 4}, kBw, kLat));
  expect_all_routes_ok(torus({3, 5}, kBw, kLat));
}

TEST(TopologyBuild, TorusWithSizeTwoDimension) {
  // A ring of size 2 has one directed link each way: 8 links in dim 0 (one per NPU), 16 in the
  // size-4 dim 1; 3 out-links per NPU.
  const Topology t = torus({2, 4}, kBw, kLat);
  EXPECT_EQ(t.links().size(), 24u);
  for (NodeId n = 0; n < 8; ++n) EXPECT_EQ(out_degree(t, n), 3u);
  EXPECT_EQ(t.diameter(), 3u);  // 1 + 2
  // Dim 0 group {0, 1}: NPU 0 adds 0 -> 1 (link 0), NPU 1 adds 1 -> 0 (link 1); both the +1
  // and the -1 neighbour use that one link.
  EXPECT_EQ(t.route(0, 1), (std::vector<LinkId>{0}));
  EXPECT_EQ(t.route(1, 0), (std::vector<LinkId>{1}));
  expect_all_routes_ok(t);
}

TEST(TopologyBuild, Mesh) {
  const Topology t = mesh({4, 4}, kBw, kLat);
  EXPECT_EQ(t.name(), "mesh:4x4");
  EXPECT_EQ(t.links().size(), 48u);  // 2 dims * 4 lines * 3 edges * 2 directions
  EXPECT_EQ(out_degree(t, 0), 2u);   // corner
  EXPECT_EQ(out_degree(t, 1), 3u);   // edge
  EXPECT_EQ(out_degree(t, 5), 4u);   // inside
  EXPECT_EQ(in_degree(t, 5), 4u);
  EXPECT_EQ(t.diameter(), 6u);  // (4-1) + (4-1), corner to corner
  EXPECT_EQ(mesh({4, 4, 4}, kBw, kLat).name(), "mesh:4x4x4");
  EXPECT_EQ(mesh({4, 4, 4}, kBw, kLat).diameter(), 9u);
  expect_all_routes_ok(t);
  expect_all_routes_ok(mesh({3, 4}, kBw, kLat));
}

TEST(TopologyBuild, Hierarchical) {
  const Topology t = hierarchical({{DimKind::Ring, 4, kBw, kLat, 0},
                                   {DimKind::FullyConnected, 8, kBw, kLat, 0},
                                   {DimKind::Switch, 32, kBw, kLat, 0}});
  EXPECT_EQ(t.name(), "hier:ring4xfc8xsw32");
  EXPECT_EQ(t.num_npus(), 1024u);
  EXPECT_EQ(t.num_switches(), 32u);  // one per group of 32 along dim 2: 1024 / 32
  // ring 1024 * 2 + fc 1024 * 7 + switch 1024 * 2
  EXPECT_EQ(t.links().size(), 2048u + 7168u + 2048u);
  EXPECT_EQ(out_degree(t, 0), 2u + 7u + 1u);
  EXPECT_EQ(out_degree(t, 1024), 32u);
  EXPECT_EQ(t.diameter(), 5u);  // 2 (ring of 4) + 1 (fc) + 2 (switch)
  ASSERT_EQ(t.dimensions().size(), 3u);
  EXPECT_EQ(t.dimensions()[2].name, "dim2");
  EXPECT_EQ(t.dimensions()[2].groups.size(), 32u);
  EXPECT_EQ(t.dimensions()[1].groups.size(), 128u);
  EXPECT_EQ(t.dimensions()[1].groups[1], ids({1, 5, 9, 13, 17, 21, 25, 29}));
}

TEST(TopologyBuild, LargeBuildsStaySmall) {
  // O(links) memory: no all-pairs tables.
  const Topology s = switch_star(4096, kBw, kLat);
  EXPECT_EQ(s.links().size(), 8192u);
  EXPECT_EQ(s.diameter(), 2u);
  const Topology t = torus({64, 64}, kBw, kLat);
  EXPECT_EQ(t.links().size(), 16384u);
  EXPECT_EQ(t.diameter(), 64u);
  EXPECT_EQ(t.hops(0, 4095), 2u);  // (63,63) is one -1 step away in each dimension
}

// --- Dimensions and coordinates -------------------------------------------------------------

TEST(TopologyDims, TorusGroupsAreRowsAndColumns) {
  const Topology t = torus({4, 4}, kBw, kLat);
  ASSERT_EQ(t.dimensions().size(), 2u);
  const Dimension& x = t.dimensions()[0];
  const Dimension& y = t.dimensions()[1];
  EXPECT_EQ(x.name, "dim0");
  EXPECT_EQ(y.name, "dim1");
  EXPECT_EQ(x.spec.kind, DimKind::Ring);
  EXPECT_EQ(x.spec.links_per_npu, 2u);
  ASSERT_EQ(x.groups.size(), 4u);
  ASSERT_EQ(y.groups.size(), 4u);
  // X rings are rows (dimension 0 varies fastest), Y rings are columns.
  EXPECT_EQ(x.groups[0], ids({0, 1, 2, 3}));
  EXPECT_EQ(x.groups[3], ids({12, 13, 14, 15}));
  EXPECT_EQ(y.groups[0], ids({0, 4, 8, 12}));
  EXPECT_EQ(y.groups[2], ids({2, 6, 10, 14}));
  for (const Link& l : t.links()) {
    // Every link joins two NPUs of one group of its dimension.
    const auto cs = t.coords(l.src);
    const auto cd = t.coords(l.dst);
    EXPECT_EQ(cs[1 - l.dim], cd[1 - l.dim]);
  }
}

TEST(TopologyDims, CoordsRoundTrip) {
  const Topology t = torus({3, 4, 5}, kBw, kLat);
  EXPECT_EQ(t.coords(0), (std::vector<std::uint32_t>{0, 0, 0}));
  // 1 + 2*3 + 4*12 = 55: mixed radix, dimension 0 fastest.
  EXPECT_EQ(t.coords(55), (std::vector<std::uint32_t>{1, 2, 4}));
  for (NodeId n = 0; n < t.num_npus(); ++n) EXPECT_EQ(t.npu_at(t.coords(n)), n);
  const std::vector<std::uint32_t> bad{3, 0, 0};
  EXPECT_THROW(t.npu_at(bad), std::out_of_range);
  EXPECT_THROW(t.coords(60), std::out_of_range);
}

// --- Routes ------------------------------------------------------------------------------------

TEST(TopologyRoute, TorusTieByParityBalancesBothDirections) {
  // Same link ids as below. A halfway tie goes +1 from an even coordinate, -1 from an odd one.
  const Topology t = torus({4, 4}, kBw, kLat);
  EXPECT_EQ(t.ring_tie(), RingTie::Parity);
  EXPECT_EQ(t.route(0, 2), (std::vector<LinkId>{0, 2}));  // 0 even: 0->1->2
  EXPECT_EQ(t.route(2, 0), (std::vector<LinkId>{4, 6}));  // 2 even: 2->3->0
  EXPECT_EQ(t.route(1, 3), (std::vector<LinkId>{3, 1}));  // 1 odd: 1->0->3 (-1 links 2n+1)
  EXPECT_EQ(t.route(3, 1), (std::vector<LinkId>{7, 5}));  // 3 odd: 3->2->1
  // (1,1) -> (3,3): both ties from odd coordinates: -1 along row 1 (5->4->7), then -1 along
  // column 3 from member 1 (7->3->15): member i's -1 link is 32 + 8c + 2i + 1.
  EXPECT_EQ(t.route(5, 15), (std::vector<LinkId>{11, 9, 59, 57}));
  // On a 4-ring the four halfway messages of a halving-doubling step (d = 2) use each of the 8
  // directed links exactly once.
  std::vector<int> uses(16, 0);
  for (NodeId a = 0; a < 4; ++a) {
    for (LinkId l : t.route(a, a ^ 2)) ++uses[l];
  }
  EXPECT_EQ(uses, (std::vector<int>{1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(parse_ring_tie("plus", "f"), RingTie::Plus);
  EXPECT_THROW(parse_ring_tie("minus", "f"), core::InputError);
}

TEST(TopologyRoute, TorusTieGoesPlusAndDimensionZeroFirst) {
  // torus 4x4 link ids: dim 0 rows are built in NPU order, each NPU adds its +1 then -1 link, so
  // NPU n's +1 link is 2n and its -1 link 2n+1. Dim 1 starts at 32, column c (NPUs c, c+4, c+8,
  // c+12) uses 32 + 8c .. 32 + 8c + 7, member i has +1 link 32 + 8c + 2i.
  Topology t = torus({4, 4}, kBw, kLat);
  t.set_ring_tie(RingTie::Plus);
  // (0,0) -> (2,2): both halves tie at distance 2 and go +1; dimension 0 first.
  EXPECT_EQ(t.route(0, 10), (std::vector<LinkId>{0, 2, 48, 50}));
  // (0,0) -> (3,0): 1 step the -1 way rather than 3 the +1 way.
  EXPECT_EQ(t.route(0, 3), (std::vector<LinkId>{1}));
  // (3,0) -> (0,0): the +1 wrap link of NPU 3.
  EXPECT_EQ(t.route(3, 0), (std::vector<LinkId>{6}));
  // (1,1) -> (3,3): +1 twice along row 1 (5->6->7), then +1 twice along column 3 (7->11->15).
  EXPECT_EQ(t.route(5, 15), (std::vector<LinkId>{10, 12, 58, 60}));
  EXPECT_TRUE(t.route(7, 7).empty());
  // The tie makes 0 -> 2 and 2 -> 0 both go +1: 0->1->2 and 2->3->0.
  EXPECT_EQ(t.route(2, 0), (std::vector<LinkId>{4, 6}));

  Topology big = torus({8, 8}, kBw, kLat);
  big.set_ring_tie(RingTie::Plus);
  std::vector<NodeId> path;
  for (LinkId l : big.route(4, 0)) path.push_back(big.links()[l].dst);
  EXPECT_EQ(path, ids({5, 6, 7, 0}));  // half way round: +1
  const auto r = big.route(0, 9);      // (0,0) -> (1,1)
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(big.links()[r[0]].dim, 0u);
  EXPECT_EQ(big.links()[r[1]].dim, 1u);
}

TEST(TopologyRoute, RouteAppendsWithoutReallocating) {
  const Topology t = torus({8, 8}, kBw, kLat);
  std::vector<LinkId> out{12345};
  out.reserve(64);
  const LinkId* data = out.data();
  t.route(0, 36, out);  // (0,0) -> (4,4): 8 hops
  t.route(36, 0, out);
  EXPECT_EQ(out.size(), 17u);
  EXPECT_EQ(out[0], 12345u);  // appends, never clears
  EXPECT_EQ(out.data(), data);
}

TEST(TopologyRoute, Mesh) {
  // mesh 4x4, each line of 4 adds per member i: +1 (i < 3) then -1 (i > 0): ids 0..5 are
  // 0->1, 1->2, 1->0, 2->3, 2->1, 3->2 for row 0; dim 1 starts at 24 with column 0.
  const Topology t = mesh({4, 4}, kBw, kLat);
  // (3,0) -> (0,3): -1 three times along row 0, then +1 three times down column 0.
  EXPECT_EQ(t.route(3, 12), (std::vector<LinkId>{5, 4, 2, 24, 25, 27}));
  EXPECT_EQ(t.hops(3, 12), 6u);
  // No wrap-around: 0 -> 3 takes 3 hops, not 1.
  EXPECT_EQ(t.hops(0, 3), 3u);
}

TEST(TopologyRoute, SwitchFcAndHierarchical) {
  // switch:4: NPU i's up link is 2i, its down link 2i+1; the switch is node 4.
  const Topology sw = switch_star(4, kBw, kLat);
  EXPECT_EQ(sw.route(1, 3), (std::vector<LinkId>{2, 7}));
  EXPECT_EQ(sw.links()[2].dst, 4u);
  // Switch endpoints route on shortest paths.
  EXPECT_EQ(sw.route(4, 2), (std::vector<LinkId>{5}));
  EXPECT_EQ(sw.route(0, 4), (std::vector<LinkId>{0}));

  // fc:4: NPU i's links go to its peers in order, from 3i: to j at 3i + j - (j > i).
  const Topology fc = fully_connected(4, kBw, kLat);
  EXPECT_EQ(fc.route(2, 0), (std::vector<LinkId>{6}));
  EXPECT_EQ(fc.route(2, 3), (std::vector<LinkId>{8}));
  EXPECT_EQ(fc.links()[8].dst, 3u);

  // hier ring4 x fc3 x sw2, 24 NPUs. Ids: ring links 0..47 (NPU n: +1 2n, -1 2n+1); fc groups
  // g = 0..7 have members g%4 + 12(g/4) + 4i, links from 48 + 6g + 2i; switch groups g = 0..11
  // have members g, g+12 and links from 96 + 4g (+2i: up, then down), switch node 24 + g.
  const Topology h = hierarchical({{DimKind::Ring, 4, kBw, kLat, 0},
                                   {DimKind::FullyConnected, 3, kBw, kLat, 0},
                                   {DimKind::Switch, 2, kBw, kLat, 0}});
  // 0 = (0,0,0) -> 23 = (3,2,1): ring -1 to NPU 3; fc from member 0 of group 3 to member 2
  // (48 + 18 + 1) reaching NPU 11; up from NPU 11 (96 + 44) and down to NPU 23 (96 + 44 + 3).
  EXPECT_EQ(h.route(0, 23), (std::vector<LinkId>{1, 67, 140, 143}));
  EXPECT_EQ(h.links()[140].dst, 35u);
  EXPECT_EQ(h.links()[143].dst, 23u);
  EXPECT_EQ(h.hops(0, 23), 4u);
  expect_all_routes_ok(h);
  expect_all_routes_ok(sw);
  expect_all_routes_ok(fc);
}

TEST(TopologyRoute, HopsSymmetricWhereExpected) {
  const std::vector<Topology> symmetric{torus({4, 4}, kBw, kLat),
                                        torus({5, 3}, kBw, kLat),
                                        mesh({3, 4}, kBw, kLat),
                                        ring(7, kBw, kLat, true),
                                        fully_connected(5, kBw, kLat),
                                        switch_star(5, kBw, kLat),
                                        from_compact("hier:ring4xline3xsw2", kBw, kLat)};
  for (const Topology& t : symmetric) {
    for (NodeId a = 0; a < t.num_npus(); ++a) {
      for (NodeId b = 0; b < t.num_npus(); ++b) {
        EXPECT_EQ(t.hops(a, b), t.hops(b, a)) << t.name() << " " << a << "," << b;
      }
    }
  }
}

TEST(TopologyRoute, BadIdsThrow) {
  const Topology t = torus({4, 4}, kBw, kLat);
  std::vector<LinkId> out;
  EXPECT_THROW(t.route(0, 16, out), std::out_of_range);
  EXPECT_THROW(t.route(16, 0, out), std::out_of_range);
  EXPECT_THROW((void)t.hops(0, 99), std::out_of_range);
  EXPECT_THROW((void)t.out_links(16), std::out_of_range);
}

// --- General graphs --------------------------------------------------------------------------

TEST(TopologyGraph, BfsRoutesBreakTiesTowardLowerLinkId) {
  // A 4-cycle 0-1-2-3-0 plus a switch 4 with 1 -> 4 -> 3 and an unconnected switch 5. Link ids
  // are chosen so that the lower id does not go to the lower node.
  const Bandwidth bw = kBw;
  const std::vector<Link> links{
      {0, 3, bw, kLat, 0},  // 0
      {3, 0, bw, kLat, 0},  // 1
      {0, 1, bw, kLat, 0},  // 2
      {1, 0, bw, kLat, 0},  // 3
      {1, 2, bw, kLat, 0},  // 4
      {2, 1, bw, kLat, 0},  // 5
      {3, 2, bw, kLat, 0},  // 6
      {2, 3, bw, kLat, 0},  // 7
      {1, 4, bw, kLat, 0},  // 8
      {4, 3, bw, kLat, 0},  // 9
  };
  const Topology g = Topology::graph("square", 4, 6, links);
  EXPECT_EQ(g.name(), "square");
  EXPECT_EQ(g.num_switches(), 2u);
  EXPECT_TRUE(g.dimensions().empty());
  EXPECT_TRUE(g.coords(2).empty());
  // 0 -> 2: via 3 (link 0) or via 1 (link 2), both 2 hops; link 0 is lower.
  EXPECT_EQ(g.route(0, 2), (std::vector<LinkId>{0, 6}));
  // 2 -> 0: via 1 (link 5) or 3 (link 7): link 5.
  EXPECT_EQ(g.route(2, 0), (std::vector<LinkId>{5, 3}));
  // 1 -> 3: three 2-hop paths (links 3, 4, 8 first): link 3, then 0 -> 3 is link 0.
  EXPECT_EQ(g.route(1, 3), (std::vector<LinkId>{3, 0}));
  EXPECT_EQ(g.route(0, 1), (std::vector<LinkId>{2}));
  EXPECT_EQ(g.route(4, 0), (std::vector<LinkId>{9, 1}));
  EXPECT_EQ(g.hops(0, 2), 2u);
  EXPECT_EQ(g.diameter(), 2u);
  // Identity order 0,1,2,3 is a cycle: each step is a direct link.
  EXPECT_EQ(g.ring_order(), ids({0, 1, 2, 3}));
  EXPECT_TRUE(g.ring_order_is_cycle());
  expect_all_routes_ok(g);
  // Only 1 links to switch 4: 2 -> 1 (link 5, lower than 2 -> 3) -> 4.
  EXPECT_EQ(g.route(2, 4), (std::vector<LinkId>{5, 8}));
  // Nothing reaches switch 5.
  EXPECT_THROW(g.route(0, 5), std::out_of_range);
  validate(g);
}

TEST(TopologyGraph, StarThroughSwitchIsACycle) {
  std::vector<Link> links;
  for (NodeId n = 0; n < 3; ++n) {
    links.push_back({n, 3, kBw, kLat, 0});
    links.push_back({3, n, kBw, kLat, 0});
  }
  const Topology g = Topology::graph("star", 3, 4, links);
  EXPECT_TRUE(g.ring_order_is_cycle());  // NPU -> switch -> NPU is one neighbour step
  EXPECT_EQ(g.diameter(), 2u);
  EXPECT_EQ(g.route(2, 0), (std::vector<LinkId>{4, 1}));
}

// --- Ring orders -----------------------------------------------------------------------------

TEST(TopologyRingOrder, Torus4x4Snake) {
  // Rows along dimension 1 (the last even one), each row a snake over dimension 0, back up
  // column 0 at the end.
  const Topology t = torus({4, 4}, kBw, kLat);
  EXPECT_EQ(t.ring_order(), ids({0, 1, 2, 3, 7, 6, 5, 9, 10, 11, 15, 14, 13, 12, 8, 4}));
  EXPECT_TRUE(t.ring_order_is_cycle());
}

TEST(TopologyRingOrder, HamiltonianWhereExpected) {
  const Bandwidth bw = kBw;
  const std::vector<Topology> cycles{
      torus({4, 4}, bw, kLat),
      torus({8, 8}, bw, kLat),
      torus({16, 8, 8}, bw, kLat),
      torus({4, 4, 4}, bw, kLat),
      torus({2, 4}, bw, kLat),
      torus({3, 3}, bw, kLat),     // all odd: a ring dimension closes the rows
      torus({3, 5, 7}, bw, kLat),  // likewise in 3D
      mesh({4, 4}, bw, kLat),
      mesh({8, 8}, bw, kLat),
      mesh({4, 4, 4}, bw, kLat),
      mesh({3, 4}, bw, kLat),
      mesh({3, 3, 2}, bw, kLat),
      mesh({2}, bw, kLat),
      ring(16, bw, kLat, false),
      ring(16, bw, kLat, true),
      ring(2, bw, kLat, true),
      fully_connected(8, bw, kLat),
      switch_star(16, bw, kLat),
      from_compact("hier:ring4xfc8xsw32", bw, kLat),
      from_compact("hier:fc3xsw5", bw, kLat),
      from_compact("hier:line3xfc3", bw, kLat),
  };
  for (const Topology& t : cycles) {
    SCOPED_TRACE(t.name());
    EXPECT_TRUE(t.ring_order_is_cycle());
    expect_ring_order_ok(t);
  }
  // Identity on single dimensions.
  EXPECT_EQ(ring(5, bw, kLat, true).ring_order(), ids({0, 1, 2, 3, 4}));
  EXPECT_EQ(switch_star(3, bw, kLat).ring_order(), ids({0, 1, 2}));
}

TEST(TopologyRingOrder, NotACycleWhereNoneExists) {
  // A 3x3 mesh is bipartite with 5 and 4 nodes in the two colours: no Hamiltonian cycle.
  const Topology m = mesh({3, 3}, kBw, kLat);
  EXPECT_FALSE(m.ring_order_is_cycle());
  expect_ring_order_ok(m);
  // The boustrophedon path still makes every step but the closing one a single hop.
  const auto& o = m.ring_order();
  for (std::size_t i = 0; i + 1 < o.size(); ++i) EXPECT_EQ(m.hops(o[i], o[i + 1]), 1u);
  // A line of 4 has no wrap-around.
  EXPECT_FALSE(mesh({4}, kBw, kLat).ring_order_is_cycle());
  expect_ring_order_ok(from_compact("hier:uring4xfc3", kBw, kLat));
}

// --- Link aggregation (Themis Table 2) -------------------------------------------------------

TEST(TopologyAggregation, ThemisFcRingSw) {
  // Themis (ISCA'22) Table 2, 3D-FC_Ring_SW: 8x16x8, BW/link (200, 200, 400) Gb/s, #Links/NPU
  // (7, 4, 1), aggregate BW/NPU (1400, 800, 400) Gb/s. 1 Gb/s = 1.25e8 B/s.
  //   FC:     7 links over 7 peers  -> 1 link per peer       = 200 Gb/s = 25e9 B/s
  //   Ring:   4 links, 2 each way   -> 2 * 200 Gb/s per way  = 50e9 B/s
  //   Switch: 1 link up (and down)  -> 400 Gb/s               = 50e9 B/s
  const Topology t =
      hierarchical({{DimKind::FullyConnected, 8, Bandwidth{25e9}, Time::from_ns(700), 7},
                    {DimKind::Ring, 16, Bandwidth{25e9}, Time::from_ns(700), 4},
                    {DimKind::Switch, 8, Bandwidth{50e9}, Time::from_ns(1700), 1}});
  EXPECT_EQ(t.name(), "hier:fc8xring16xsw8");
  EXPECT_EQ(t.num_npus(), 1024u);
  EXPECT_EQ(t.num_switches(), 128u);
  const std::vector<double> per_link{25e9, 50e9, 50e9};
  std::vector<double> out_of_npu0(3, 0.0);
  for (LinkId l : t.out_links(0)) {
    const Link& link = t.links()[l];
    EXPECT_EQ(link.bandwidth.bytes_per_s, per_link[link.dim]);
    out_of_npu0[link.dim] += link.bandwidth.bytes_per_s;
  }
  // The aggregate column: 1400, 800, 400 Gb/s.
  EXPECT_DOUBLE_EQ(out_of_npu0[0], 1400 * 1.25e8);
  EXPECT_DOUBLE_EQ(out_of_npu0[1], 800 * 1.25e8);
  EXPECT_DOUBLE_EQ(out_of_npu0[2], 400 * 1.25e8);
  EXPECT_EQ(t.links()[t.route(0, 1)[0]].latency, Time::from_ns(700));
  EXPECT_TRUE(t.ring_order_is_cycle());
}

TEST(TopologyAggregation, ThemisRingFcRingSw) {
  // Themis (ISCA'22) Table 2, 4D-Ring_FC_Ring_SW: 4x8x4x8, (1500, 200, 200, 800) Gb/s, #Links/NPU
  // (2, 7, 6, 1): the size-4 ring of dim 3 carries 3 links each way = 600 Gb/s = 75e9 B/s.
  const Topology t = hierarchical({{DimKind::Ring, 4, Bandwidth{1500 * 1.25e8}, kLat, 2},
                                   {DimKind::FullyConnected, 8, Bandwidth{25e9}, kLat, 7},
                                   {DimKind::Ring, 4, Bandwidth{25e9}, kLat, 6},
                                   {DimKind::Switch, 8, Bandwidth{100e9}, kLat, 1}});
  EXPECT_EQ(t.num_npus(), 1024u);
  for (LinkId l : t.out_links(0)) {
    const Link& link = t.links()[l];
    const double expect[] = {1500 * 1.25e8, 25e9, 75e9, 100e9};
    EXPECT_DOUBLE_EQ(link.bandwidth.bytes_per_s, expect[link.dim]);
  }
}

// --- Errors ----------------------------------------------------------------------------------

TEST(TopologyErrors, ProductSpecs) {
  EXPECT_EQ(input_error([] {
              hierarchical({{DimKind::Ring, 4, kBw, kLat, 0}, {DimKind::Line, 1, kBw, kLat, 0}});
            }),
            "dims[1].size: must be >= 2, got 1");
  EXPECT_EQ(input_error([] {
              torus({4, 4}, Bandwidth{0}, kLat);
            }),
            "dims[0].bandwidth: must be > 0, got 0 B/s");
  EXPECT_EQ(input_error([] { mesh({4}, kBw, Time::from_ps(-5)); }),
            "dims[0].latency: must be >= 0, got -5 ps");
  EXPECT_EQ(input_error([] { torus({}, kBw, kLat); }),
            "dims: must have at least one dimension, got 0");
  const std::string odd = input_error([] { hierarchical({{DimKind::Ring, 4, kBw, kLat, 3}}); });
  EXPECT_NE(odd.find("dims[0].links_per_npu: must be even"), std::string::npos) << odd;
  const std::string few = input_error([] {
    hierarchical({{DimKind::FullyConnected, 8, kBw, kLat, 6}});
  });
  EXPECT_NE(few.find("dims[0].links_per_npu: must be >= size - 1 = 7"), std::string::npos) << few;
  // fc:100000 would have 1e10 links.
  const std::string big = input_error([] { fully_connected(100000, kBw, kLat); });
  EXPECT_NE(big.find("directed links"), std::string::npos) << big;
  EXPECT_NE(input_error([] { ring(1, kBw, kLat, true); }).find("size: must be >= 2, got 1"),
            std::string::npos);
}

TEST(TopologyErrors, GraphValidation) {
  const Bandwidth bw = kBw;
  // 0 <-> 1, and 2 alone.
  const std::string disconnected = input_error([&] {
    Topology::graph("g", 3, 3, {{0, 1, bw, kLat, 0}, {1, 0, bw, kLat, 0}});
  });
  EXPECT_NE(disconnected.find("NPU 2 is not reachable from NPU 0"), std::string::npos)
      << disconnected;
  // A one-way chain 0 -> 1 -> 2: everyone is reachable from 0 but 0 from nobody.
  const std::string one_way = input_error([&] {
    Topology::graph("g", 3, 3, {{0, 1, bw, kLat, 0}, {1, 2, bw, kLat, 0}});
  });
  EXPECT_NE(one_way.find("NPU 0 is not reachable from NPU 1"), std::string::npos) << one_way;
  EXPECT_EQ(input_error([&] {
              Topology::graph("g", 2, 2, {{0, 1, bw, kLat, 0}, {1, 0, Bandwidth{0}, kLat, 0}});
            }),
            "links[1].bandwidth: must be > 0, got 0 B/s");
  EXPECT_EQ(input_error([&] {
              Topology::graph("g", 2, 3, {{0, 1, bw, kLat, 0}, {1, 3, bw, kLat, 0}});
            }),
            "links[1].dst: node 3 out of range (num_nodes 3)");
  EXPECT_EQ(input_error([&] {
              Topology::graph("g", 2, 2, {{7, 1, bw, kLat, 0}});
            }),
            "links[0].src: node 7 out of range (num_nodes 2)");
  EXPECT_EQ(input_error([&] { Topology::graph("g", 1, 1, {}); }), "num_npus: must be >= 2, got 1");
  EXPECT_EQ(input_error([&] {
              Topology::graph("g", 2, 2, {{0, 1, bw, Time::from_ps(-1), 0}, {1, 0, bw, kLat, 0}});
            }),
            "links[0].latency: must be >= 0, got -1 ps");
  // Products pass validate().
  validate(torus({4, 4}, bw, kLat));
  validate(from_compact("hier:uring3xsw4", bw, kLat));
}

// --- Compact form ----------------------------------------------------------------------------

TEST(TopologyCompact, EveryForm) {
  struct Case {
    const char* spec;
    std::uint32_t npus;
    std::uint32_t diameter;
  };
  const Case cases[] = {
      {"ring:16", 16, 15},
      {"bidir-ring:16", 16, 8},
      {"fc:8", 8, 1},
      {"switch:1024", 1024, 2},
      {"torus:8x8", 64, 8},
      {"mesh:4x4x4", 64, 9},
      {"hier:ring4xfc8xsw32", 1024, 5},
      {"hier:uring4xline3", 12, 5},
  };
  for (const Case& c : cases) {
    const Topology t = from_compact(c.spec, kBw, kLat);
    EXPECT_EQ(t.name(), c.spec);
    EXPECT_EQ(t.num_npus(), c.npus) << c.spec;
    EXPECT_EQ(t.diameter(), c.diameter) << c.spec;
    for (const Link& l : t.links()) {
      EXPECT_EQ(l.bandwidth, kBw) << c.spec;  // natural links_per_npu: every link has `bw`
      EXPECT_EQ(l.latency, kLat) << c.spec;
    }
  }
  EXPECT_EQ(from_compact("torus:4", kBw, kLat).diameter(), 2u);
}

TEST(TopologyCompact, Errors) {
  const std::string valid =
      "valid: ring:N, bidir-ring:N, fc:N, switch:N, nvswitch:N, torus:AxB[xC...], "
      "mesh:AxB[xC...], "
      "hier:<kind><size>x... (kinds ring, uring, line, fc, sw, lsw), optical-ring:N, fattree:KxL, "
      "bigraph:SxP, swfc:P:n:k, htorus:P:n[:2], railfat:NxG, dragonfly:GxAxP, file:PATH";
  EXPECT_EQ(input_error([] { from_compact("tourus:8x8", kBw, kLat); }),
            "topology: unknown kind \"tourus\"; did you mean torus?; " + valid);
  auto expect_error = [&](const char* spec, const std::string& reason) {
    const std::string e = input_error([&] { from_compact(spec, kBw, kLat, "run.topology"); });
    EXPECT_EQ(e.rfind("run.topology: ", 0), 0u) << e;  // names the field first
    EXPECT_NE(e.find(reason), std::string::npos) << spec << ": " << e;
    EXPECT_NE(e.find(valid), std::string::npos) << e;
  };
  expect_error("torus:8x", "bad size \"\" in \"torus:8x\"");
  expect_error("torus:x8", "bad size \"\" in \"torus:x8\"");
  expect_error("mesh:4xa", "bad size \"a\"");
  expect_error("ring:1", "size 1 in \"ring:1\": must be >= 2");
  expect_error("torus:8x1", "size 1 in \"torus:8x1\": must be >= 2");
  expect_error("fc:0", "size 0 in \"fc:0\": must be >= 2");
  expect_error("fc:-3", "bad size \"-3\"");
  expect_error("ring:4x4", "bad size \"4x4\"");
  expect_error("torus", "missing sizes in \"torus\"");
  expect_error("switch:", "missing sizes in \"switch:\"");
  expect_error("", "is empty");
  expect_error("torus:2048x1024", "has more than 1048576 NPUs");
  expect_error("switch:99999999999", "must be <= 1048576");
  expect_error("hier:ring4xfoo8", "unknown dimension kind \"foo\"");
  expect_error("hier:ring", "bad size \"\"");
  expect_error("hier:ring1", "size 1 in \"hier:ring1\": must be >= 2");
  expect_error("Torus:8x8", "unknown kind \"Torus\"");
  expect_error("torus:8x8 ", "bad size \"8 \"");
}

}  // namespace
}  // namespace collsim::topology
