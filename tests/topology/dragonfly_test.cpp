// The dragonfly form (topology/dragonfly.hpp): its wiring (Kim et al. ISCA'08, consecutive global
// arrangement), minimal and Valiant routes, dragonfly+ groups, options and refusals, and the
// command line (inventory, verify, a flow run).
#include "topology/dragonfly.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "collective/algorithm.hpp"
#include "collective/ir/verifier.hpp"
#include "core/error.hpp"
#include "topology/builders.hpp"
#include "topology/inventory.hpp"

namespace collsim::topology {
namespace {

const core::Bandwidth kBw{16e9};
const core::Time kLat = core::Time::from_ns(100);

DragonflySpec spec(std::uint32_t g, std::uint32_t a, std::uint32_t p) {
  DragonflySpec s;
  s.groups = g;
  s.routers = a;
  s.terminals = p;
  s.terminal_bandwidth = s.local_bandwidth = s.global_bandwidth = kBw;
  s.terminal_latency = s.local_latency = s.global_latency = kLat;
  return s;
}

// Group of a switch node (router or spine) of `s`.
std::uint32_t group_of(const DragonflySpec& s, NodeId node) {
  const NodeId routers = dragonfly_router(s, 0, 0);
  const NodeId spines = dragonfly_spine(s, 0, 0);
  const std::uint32_t per = s.leaf_spine ? (s.spines == 0 ? s.routers : s.spines) : 0;
  if (s.leaf_spine && node >= spines) return (node - spines) / per;
  return (node - routers) / s.routers;
}

// The links of a route: contiguous from src to dst; the number that join two groups.
std::uint32_t global_hops(const Topology& t, const DragonflySpec& s, NodeId src, NodeId dst,
                          const std::vector<LinkId>& route) {
  EXPECT_FALSE(route.empty());
  NodeId at = src;
  std::uint32_t global = 0;
  for (LinkId l : route) {
    const Link& k = t.links()[l];
    EXPECT_EQ(k.src, at) << src << "->" << dst;
    at = k.dst;
    if (!t.is_npu(k.src) && !t.is_npu(k.dst) && group_of(s, k.src) != group_of(s, k.dst)) {
      ++global;
    }
  }
  EXPECT_EQ(at, dst);
  return global;
}

TEST(Dragonfly, NineByFourByTwoIsKimsBalancedShape) {
  // a = 4 routers, p = 2 NPUs, h = 2 global links per router, g = a h + 1 = 9 groups (Kim et
  // al. Sec. 3.1's balanced a = 2p = 2h): 72 NPUs, 36 routers; directed links: 144 NPU links,
  // 9 x 4 x 3 = 108 local, 9 x 8 = 72 global (one per group pair, each way).
  const Topology t = from_compact("dragonfly:9x4x2", kBw, kLat);
  EXPECT_EQ(t.name(), "dragonfly:9x4x2");
  EXPECT_EQ(t.num_npus(), 72u);
  EXPECT_EQ(t.num_switches(), 36u);
  EXPECT_EQ(t.links().size(), 144u + 108u + 72u);
  const DragonflySpec s = spec(9, 4, 2);
  // Every router: 2 NPUs, 3 local peers, exactly h = 2 global links.
  for (std::uint32_t g = 0; g < 9; ++g) {
    for (std::uint32_t r = 0; r < 4; ++r) {
      std::uint32_t npus = 0, local = 0, global = 0;
      for (LinkId l : t.out_links(dragonfly_router(s, g, r))) {
        const NodeId d = t.links()[l].dst;
        if (t.is_npu(d)) {
          ++npus;
        } else if (group_of(s, d) == g) {
          ++local;
        } else {
          ++global;
        }
      }
      EXPECT_EQ(npus, 2u);
      EXPECT_EQ(local, 3u);
      EXPECT_EQ(global, 2u) << g << "," << r;
    }
  }
  // Consecutive arrangement: group 0's ports 0..7 go to groups 1..8, two per router; group 3's
  // port for group 0 is its port 0 (router 0), for group 5 its port 4 (router 2).
  EXPECT_EQ(dragonfly_port_owner(s, 0, 1, 0), 0u);
  EXPECT_EQ(dragonfly_port_owner(s, 0, 3, 0), 1u);
  EXPECT_EQ(dragonfly_port_owner(s, 0, 8, 0), 3u);
  EXPECT_EQ(dragonfly_port_owner(s, 3, 0, 0), 0u);
  EXPECT_EQ(dragonfly_port_owner(s, 3, 5, 0), 2u);
  // Group 0's port 2 (for group 3, on router 1) meets group 3's port 0 (for group 0, router 0).
  EXPECT_NO_THROW(t.link_between(dragonfly_router(s, 0, 1), dragonfly_router(s, 3, 0)));
  EXPECT_THROW(t.link_between(dragonfly_router(s, 0, 1), dragonfly_router(s, 3, 1)),
               std::out_of_range);
  // inventory: one row for the network, every switch port counted.
  const auto inv = inventory(t);
  ASSERT_EQ(inv.size(), 1u);
  EXPECT_EQ(inv[0].switches, 36u);
  EXPECT_EQ(inv[0].switch_ports, 36u * (2 + 3 + 2));
}

TEST(Dragonfly, MinimalRoutesAreLocalGlobalLocalAtMost) {
  const Topology t = from_compact("dragonfly:9x4x2", kBw, kLat);
  const DragonflySpec s = spec(9, 4, 2);
  std::map<std::size_t, int> lengths;
  for (NodeId a = 0; a < 72; ++a) {
    for (NodeId b = 0; b < 72; ++b) {
      if (a == b) continue;
      const auto r = t.route(a, b);
      const std::uint32_t ga = a / 8, gb = b / 8;
      EXPECT_EQ(global_hops(t, s, a, b, r), ga == gb ? 0u : 1u);
      if (a / 2 == b / 2) {
        EXPECT_EQ(r.size(), 2u);  // NPU -> router -> NPU
      } else if (ga == gb) {
        EXPECT_EQ(r.size(), 3u);  // one local hop
      } else {
        EXPECT_GE(r.size(), 3u);
        EXPECT_LE(r.size(), 5u);  // NPU, l, g, l, NPU
      }
      ++lengths[r.size()];
    }
  }
  // Hand count for one source NPU on router r of group g: 1 NPU on its router (2 links), 6 on
  // the group's other routers (3). Of the 8 other groups, 2 leave from r itself (h = 2); each
  // group's link lands on one of the destination group's 4 routers, the home of 2 of its 8 NPUs.
  // So of the 64 NPUs elsewhere: 2 groups x 2 NPUs with no local hop (3 links), 6 x 6 with both
  // (5 links), the other 24 with one (4 links). Times 72 sources:
  EXPECT_EQ(lengths[2], 72 * 1);
  EXPECT_EQ(lengths[3], 72 * (6 + 4));
  EXPECT_EQ(lengths[4], 72 * 24);
  EXPECT_EQ(lengths[5], 72 * 36);
  int total = 0;
  for (const auto& kv : lengths) total += kv.second;
  EXPECT_EQ(total, 72 * 71);
}

TEST(Dragonfly, ValiantCrossesTwoGlobalLinksThroughAThirdGroup) {
  const Topology t = from_compact("dragonfly:9x4x2:routing=valiant", kBw, kLat);
  EXPECT_EQ(t.name(), "dragonfly:9x4x2:routing=valiant");
  DragonflySpec s = spec(9, 4, 2);
  s.valiant = true;
  std::map<std::uint32_t, int> middle;
  for (NodeId a = 0; a < 72; ++a) {
    for (NodeId b = 0; b < 72; ++b) {
      if (a == b) continue;
      const auto r = t.route(a, b);
      const std::uint32_t ga = a / 8, gb = b / 8;
      if (ga == gb) {
        EXPECT_EQ(global_hops(t, s, a, b, r), 0u);
        EXPECT_LE(r.size(), 3u);
        continue;
      }
      EXPECT_EQ(global_hops(t, s, a, b, r), 2u);
      EXPECT_GE(r.size(), 4u);
      EXPECT_LE(r.size(), 7u);  // NPU, l, g, l, g, l, NPU
      const std::uint32_t gi = dragonfly_valiant_group(s, a, b);
      EXPECT_NE(gi, ga);
      EXPECT_NE(gi, gb);
      // The first global link lands in the intermediate group.
      bool seen = false;
      for (LinkId l : r) {
        const Link& k = t.links()[l];
        if (!t.is_npu(k.src) && !t.is_npu(k.dst) && group_of(s, k.src) != group_of(s, k.dst)) {
          EXPECT_EQ(group_of(s, k.dst), seen ? gb : gi);
          if (seen) break;
          seen = true;
        }
      }
      ++middle[gi];
      EXPECT_EQ(t.route(a, b), r);  // deterministic
    }
  }
  // 72 x 64 inter-group pairs spread over 9 groups: each carries 512 on average; a hash keeps
  // every group within 20% of that.
  ASSERT_EQ(middle.size(), 9u);
  for (const auto& kv : middle) {
    EXPECT_GT(kv.second, 410) << kv.first;
    EXPECT_LT(kv.second, 615) << kv.first;
  }
  // Another seed picks other intermediate groups for some pairs, and is reproducible too.
  const Topology t7 = from_compact("dragonfly:9x4x2:routing=valiant:seed=7", kBw, kLat);
  int differ = 0;
  for (NodeId b = 8; b < 72; ++b) differ += t7.route(0, b) != t.route(0, b) ? 1 : 0;
  EXPECT_GT(differ, 10);
  EXPECT_EQ(t7.route(0, 40), from_compact("dragonfly:9x4x2:routing=valiant:seed=7", kBw, kLat)
                                 .route(0, 40));
}

TEST(Dragonfly, TwoGroupsValiantFallsBackToMinimal) {
  const Topology v = from_compact("dragonfly:2x2x2:routing=valiant", kBw, kLat);
  const Topology m = from_compact("dragonfly:2x2x2", kBw, kLat);
  for (NodeId a = 0; a < 8; ++a) {
    for (NodeId b = 0; b < 8; ++b) EXPECT_EQ(v.route(a, b), m.route(a, b));
  }
}

TEST(Dragonfly, MoreGlobalLinksAndOwnLinkFigures) {
  // 5 groups, 2 links per pair: 8 ports per group over 4 routers, h = 2; every pair of groups
  // joined by 2 x 100 Gb/s. Local links at 400 Gb/s, 50 ns; global at 100 Gb/s, 500 ns.
  const Topology t = from_compact(
      "dragonfly:5x4x2:global=2:local_bandwidth=400Gb/s:local_latency=50ns:"
      "global_bandwidth=100Gb/s:global_latency=500ns",
      kBw, kLat);
  // The name gives the link figures in collsim's canonical units.
  EXPECT_EQ(t.name(),
            "dragonfly:5x4x2:global=2:local_bandwidth=50GB/s:local_latency=50ns:"
            "global_bandwidth=12.5GB/s:global_latency=500ns");
  DragonflySpec s = spec(5, 4, 2);
  s.global = 2;
  std::map<std::pair<std::uint32_t, std::uint32_t>, double> between;
  double local = 0;
  for (const Link& l : t.links()) {
    if (t.is_npu(l.src) || t.is_npu(l.dst)) {
      EXPECT_EQ(l.bandwidth.bytes_per_s, 16e9);
      EXPECT_EQ(l.latency, kLat);
      continue;
    }
    const std::uint32_t a = group_of(s, l.src), b = group_of(s, l.dst);
    if (a == b) {
      EXPECT_EQ(l.bandwidth.bytes_per_s, 50e9);
      EXPECT_EQ(l.latency, core::Time::from_ns(50));
      local += 1;
    } else {
      EXPECT_EQ(l.latency, core::Time::from_ns(500));
      between[{a, b}] += l.bandwidth.bytes_per_s;
    }
  }
  EXPECT_EQ(local, 5 * 4 * 3);
  ASSERT_EQ(between.size(), 20u);
  for (const auto& kv : between) EXPECT_EQ(kv.second, 2 * 12.5e9);
  // With h = c = 2 both copies of a pair sit on one router pair (group 0's ports 0 and 1, for
  // group 1, on router 0; group 1's ports 0 and 1, for group 0, on its router 0): one merged
  // link of twice the bandwidth, as the sums above show.
  EXPECT_EQ(dragonfly_port_owner(s, 0, 1, 0), 0u);
  EXPECT_EQ(dragonfly_port_owner(s, 0, 1, 1), 0u);
  EXPECT_EQ(dragonfly_port_owner(s, 0, 2, 0), 1u);
  EXPECT_EQ(dragonfly_port_owner(s, 1, 0, 1), 0u);
  // 4x2x2:global=3: 9 ports per group on 2 routers, h = 5; group 0's ports 3, 4, 5 for group 2
  // sit on routers 0, 0, 1, so the pair has two router-to-router links (2 and 1 copies), and
  // routes from group 0 to group 2 use both.
  DragonflySpec s3 = spec(4, 2, 2);
  s3.global = 3;
  EXPECT_EQ(dragonfly_port_owner(s3, 0, 2, 0), 0u);
  EXPECT_EQ(dragonfly_port_owner(s3, 0, 2, 2), 1u);
  const Topology t3 = from_compact("dragonfly:4x2x2:global=3", kBw, kLat);
  std::set<LinkId> used;
  for (NodeId a = 0; a < 4; ++a) {
    for (NodeId b = 8; b < 12; ++b) {
      for (LinkId l : t3.route(a, b)) {
        const Link& k = t3.links()[l];
        if (!t3.is_npu(k.src) && !t3.is_npu(k.dst) && group_of(s3, k.src) != group_of(s3, k.dst)) {
          used.insert(l);
        }
      }
    }
  }
  ASSERT_EQ(used.size(), 2u);
  double bw = 0;
  for (LinkId l : used) bw += t3.links()[l].bandwidth.bytes_per_s;
  EXPECT_EQ(bw, 3 * 16e9);
}

TEST(Dragonfly, LeafSpineGroupsAreDragonflyPlus) {
  // dragonfly+ 5x4x2: per group 4 leaves (2 NPUs each) and 4 spines, every leaf on every spine;
  // 4 global ports per group, one per spine.
  const Topology t = from_compact("dragonfly:5x4x2:group=leafspine", kBw, kLat);
  EXPECT_EQ(t.name(), "dragonfly:5x4x2:group=leafspine");
  EXPECT_EQ(t.num_npus(), 40u);
  EXPECT_EQ(t.num_switches(), 40u);
  EXPECT_EQ(t.links().size(), 80u + 5 * 4 * 4 * 2 + 5 * 4);
  DragonflySpec s = spec(5, 4, 2);
  s.leaf_spine = true;
  for (NodeId a = 0; a < 40; ++a) {
    for (NodeId b = 0; b < 40; ++b) {
      if (a == b) continue;
      const auto r = t.route(a, b);
      const std::uint32_t hops = global_hops(t, s, a, b, r);
      if (a / 2 == b / 2) {
        EXPECT_EQ(r.size(), 2u);
      } else if (a / 8 == b / 8) {
        EXPECT_EQ(r.size(), 4u);  // NPU, leaf, spine, leaf, NPU
        EXPECT_EQ(hops, 0u);
      } else {
        EXPECT_EQ(r.size(), 5u);  // NPU, leaf, spine, (global) spine, leaf, NPU
        EXPECT_EQ(hops, 1u);
      }
    }
  }
  // Leaves hold no global link; spines hold one each.
  for (LinkId l : t.out_links(dragonfly_router(s, 2, 1))) {
    const NodeId d = t.links()[l].dst;
    if (!t.is_npu(d)) {
      EXPECT_EQ(group_of(s, d), 2u);
    }
  }
  const Topology v = from_compact("dragonfly:5x4x2:group=leafspine:routing=valiant:spines=2",
                                  kBw, kLat);
  EXPECT_EQ(v.name(), "dragonfly:5x4x2:group=leafspine:spines=2:routing=valiant");
  s.valiant = true;
  s.spines = 2;
  for (NodeId b = 8; b < 40; ++b) {
    const auto r = v.route(0, b);
    EXPECT_EQ(global_hops(v, s, 0, b, r), 2u);
    EXPECT_LE(r.size(), 8u);  // NPU leaf spine (g) spine leaf spine (g) spine leaf NPU
  }
}

TEST(Dragonfly, BadFormsAreRefusedByName) {
  const auto refused = [](const std::string& text, const std::string& want) {
    try {
      from_compact(text, kBw, kLat, "--topology");
      ADD_FAILURE() << text << " was accepted";
    } catch (const core::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  };
  refused("dragonfly:9x4", "dragonfly:GxAxP");
  refused("dragonfly:9x4x2:routing=ugal", "minimal, valiant");
  refused("dragonfly:9x4x2:planes=2", "unknown option \"planes\"");
  refused("dragonfly:9x4x2:seed=3", "only with routing=valiant");
  refused("dragonfly:9x4x2:spines=3", "only with group=leafspine");
  refused("dragonfly:9x4x2:global=0", "option global=0");
  refused("dragonfly:9x4x2:global_bandwidth=10", "global_bandwidth");
  refused("dragonfly:1024x1024x1024", "more than 1048576 NPUs");
}

TEST(Dragonfly, CollectivesRunAndVerifyOnIt) {
  const Topology t = from_compact("dragonfly:9x4x2", kBw, kLat);
  for (const char* name : {"ring", "direct"}) {
    const auto& info = collective::find_algorithm(name, "t");
    for (collective::Collective c :
         {collective::Collective::AllReduce, collective::Collective::AllToAll}) {
      if (std::find(info.collectives.begin(), info.collectives.end(), c) ==
          info.collectives.end()) {
        continue;
      }
      const auto choice = collective::make_choice(info, {}, name, "t");
      const auto p = collective::build_program(choice, t, c, core::Bytes{1 << 20}, 1);
      EXPECT_TRUE(collective::verify(p).ok) << name;
    }
  }
}

TEST(DragonflyCli, InventoryVerifyAndAFlowAllToAll) {
  using test::collsim;
  const auto inv = collsim("inventory -t dragonfly:9x4x2");
  ASSERT_EQ(inv.status, 0) << inv.err;
  EXPECT_NE(inv.out.find("dragonfly:9x4x2: 72 NPUs, 36 switches, 324 directed links"),
            std::string::npos)
      << inv.out;
  const auto ver = collsim("verify -t dragonfly:9x4x2:routing=valiant -c all-to-all -a direct");
  ASSERT_EQ(ver.status, 0) << ver.err;
  EXPECT_NE(ver.out.find("ok: direct all-to-all"), std::string::npos) << ver.out;
  const auto run = collsim(
      "collective -t dragonfly:9x4x2 -c all-to-all -a direct -s 1MiB -b flow --format csv");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("dragonfly:9x4x2,72,flow,all-to-all,direct"), std::string::npos)
      << run.out;
  const auto bad = collsim("inventory -t dragonfly:9x4x2:routing=adaptive");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("routing=adaptive"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace collsim::topology
