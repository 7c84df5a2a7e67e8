// The switch-fc-hierarchical-torus platforms (swfc:P:n:k, htorus:P:n) and the local-switch
// dimension: inventory of nodes and links, Table II links, the switch a route takes under each
// rule and path, and the errors of the compact forms, the command line and scenarios.
#include <gtest/gtest.h>

#include <string>

#include "cli_run.hpp"
#include "config/scenario.hpp"
#include "core/error.hpp"
#include "topology/builders.hpp"
#include "topology/inventory.hpp"

namespace collsim::topology {
namespace {

const core::Bandwidth kAny{1e9};
const core::Time kAnyLat{};

Topology make(const char* spec) { return from_compact(spec, kAny, kAnyLat); }

std::string input_error(const char* spec) {
  try {
    make(spec);
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SwitchFc, PlatformOfFourPackagesOfEightWithFourSwitches) {
  const Topology t = make("swfc:4:8:4");
  EXPECT_EQ(t.num_npus(), 32u);
  EXPECT_EQ(t.num_switches(), 16u);      // 4 per package
  ASSERT_EQ(t.dimensions().size(), 3u);  // local, vertical, horizontal (2 x 2 packages)
  EXPECT_EQ(t.dimensions()[0].spec.kind, DimKind::LocalSwitches);
  EXPECT_EQ(t.dimensions()[0].spec.size, 8u);
  EXPECT_EQ(t.dimensions()[1].spec.kind, DimKind::Ring);
  EXPECT_EQ(t.dimensions()[1].spec.size, 2u);
  EXPECT_EQ(t.dimensions()[2].spec.size, 2u);
  // 2 k links per NPU to its switches, one each way per ring of two packages.
  EXPECT_EQ(t.links().size(), 32u * 2 * 4 + 32 + 32);
  for (const Link& l : t.links()) {
    if (l.dim == 0) {
      EXPECT_DOUBLE_EQ(l.bandwidth.bytes_per_s, 64e9);  // 512 bits/ns
      EXPECT_EQ(l.latency, core::Time::from_ns(95));    // 90 ns + 5 ns router
    } else {
      EXPECT_DOUBLE_EQ(l.bandwidth.bytes_per_s, 32e9);  // 256 bits/ns
      EXPECT_EQ(l.latency, core::Time::from_ns(205));
    }
  }
  // Any two NPUs of a package are one switch apart; other packages by dimension order.
  EXPECT_EQ(t.hops(0, 7), 2u);
  EXPECT_EQ(t.hops(0, 8), 1u);
  EXPECT_EQ(t.hops(3, 8 + 16 + 5), 4u);
  EXPECT_EQ(t.diameter(), 4u);
}

TEST(SwitchFc, InventoryPerDimension) {
  const auto rows = inventory(make("swfc:4:8:4"));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].name, "dim0 (lsw8)");
  EXPECT_EQ(rows[0].groups, 4u);
  EXPECT_EQ(rows[0].switches, 16u);
  EXPECT_EQ(rows[0].switch_ports, 128u);  // 16 switches of 8 ports
  EXPECT_EQ(rows[0].links, 256u);
  EXPECT_DOUBLE_EQ(rows[0].per_npu.bytes_per_s, 4 * 64e9);
  EXPECT_DOUBLE_EQ(rows[0].aggregate.bytes_per_s, 256 * 64e9);
  EXPECT_EQ(rows[1].switches, 0u);
  EXPECT_EQ(rows[1].links, 32u);
  EXPECT_DOUBLE_EQ(rows[2].per_npu.bytes_per_s, 32e9);
  const auto graph = inventory(from_compact("fattree:4x2", kAny, kAnyLat));
  ASSERT_EQ(graph.size(), 1u);
  EXPECT_EQ(graph[0].name, "network");
  EXPECT_EQ(graph[0].switches, 8u);
  EXPECT_EQ(graph[0].switch_ports, 48u);  // 4 leaves of 4 + 4 ports, 4 roots of 4
}

TEST(SwitchFc, TheRuleAndThePathPickTheSwitch) {
  Topology t = make("swfc:1:8:4");
  const auto via = [&](NodeId a, NodeId b, std::uint8_t path = kAnyPath) {
    std::vector<LinkId> r;
    t.route(a, b, r, path);
    EXPECT_EQ(r.size(), 2u);
    EXPECT_EQ(t.links()[r[0]].src, a);
    EXPECT_EQ(t.links()[r[1]].dst, b);
    EXPECT_EQ(t.links()[r[0]].dst, t.links()[r[1]].src);
    return t.links()[r[0]].dst - t.num_npus();  // the switch's index in the package
  };
  // distance (default): switch (t - s - 1) mod k.
  EXPECT_EQ(via(0, 1), 0u);
  EXPECT_EQ(via(0, 3), 2u);
  EXPECT_EQ(via(0, 5), 0u);
  EXPECT_EQ(via(6, 1), 2u);  // distance 3
  EXPECT_EQ(via(0, 3, 1), 3u);
  EXPECT_EQ(via(0, 3, 2), 0u);
  // source: switch s mod k.
  t.set_local_switch_rule(LocalSwitchRule::Source);
  EXPECT_EQ(via(0, 3), 0u);
  EXPECT_EQ(via(5, 3), 1u);
  EXPECT_EQ(via(5, 3, 3), 0u);
  EXPECT_EQ(std::string(to_string(LocalSwitchRule::Source)), "source");
  EXPECT_EQ(parse_local_switch_rule("distance", "f"), LocalSwitchRule::Distance);
  try {
    parse_local_switch_rule("random", "platforms[0].local_switch");
    ADD_FAILURE();
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("platforms[0].local_switch: unknown local-switch rule "
                                         "\"random\"; valid: distance"),
              std::string::npos)
        << e.what();
  }
}

TEST(SwitchFc, HierarchicalTorusBaseline) {
  const Topology t = make("htorus:4:4");
  EXPECT_EQ(t.num_npus(), 16u);
  EXPECT_EQ(t.num_switches(), 0u);
  EXPECT_EQ(t.dimensions()[0].spec.kind, DimKind::UniRing);
  EXPECT_EQ(t.hops(0, 3), 3u);  // one way round the package
  EXPECT_EQ(t.hops(3, 0), 1u);
  EXPECT_EQ(t.links().size(), 16u + 16 + 16);
  const Topology b = make("htorus:4:4:2");
  EXPECT_EQ(b.dimensions()[0].spec.kind, DimKind::Ring);
  EXPECT_EQ(b.hops(0, 3), 1u);
  EXPECT_EQ(b.name(), "htorus:4:4:2");
  // One package: the package alone; 8 packages: a 2 x 4 torus; a prime count: one ring.
  EXPECT_EQ(make("htorus:1:8").dimensions().size(), 1u);
  const Topology eight = make("swfc:8:4:2");
  ASSERT_EQ(eight.dimensions().size(), 3u);
  EXPECT_EQ(eight.dimensions()[1].spec.size, 2u);
  EXPECT_EQ(eight.dimensions()[2].spec.size, 4u);
  EXPECT_EQ(make("swfc:3:4:2").dimensions().size(), 2u);
}

// ASTRA-sim 1.0's Garnet NI: 90 ns links from the NI to its router and back, and the source
// router's 5 ns, once per message on both platforms; other topologies have none.
TEST(SwitchFc, NetworkInterfaceLinksOncePerMessage) {
  EXPECT_EQ(make("swfc:4:8:4").ni_latency(), core::Time::from_ns(185));
  EXPECT_EQ(make("htorus:1:4").ni_latency(), core::Time::from_ns(185));
  PackageLinks none;
  none.ni_link_latency = core::Time{};
  EXPECT_EQ(switch_fc_package(1, 4, 2, none).ni_latency(), core::Time::from_ns(5));
  EXPECT_EQ(make("ring:8").ni_latency(), core::Time{});
  Topology t = make("ring:8");
  EXPECT_THROW(t.set_ni_latency(core::Time::from_ns(-1), "x"), core::InputError);
}

TEST(SwitchFc, CompactFormErrors) {
  EXPECT_NE(input_error("swfc:4:8:9")
                .find("swfc:4:8:9: k must be 1..n = 8 local switches per "
                      "package, got 9"),
            std::string::npos);
  EXPECT_NE(input_error("swfc:4:1:1").find("n must be >= 2"), std::string::npos);
  EXPECT_NE(input_error("swfc:4:8").find("write swfc:P:n:k"), std::string::npos);
  EXPECT_NE(input_error("swfc:0:8:4").find("0 in \"swfc:0:8:4\": must be >= 1"), std::string::npos);
  EXPECT_NE(input_error("swfc:4:x:4").find("bad number \"x\""), std::string::npos);
  EXPECT_NE(input_error("htorus:4:8:3").find("write htorus:P:n"), std::string::npos);
  EXPECT_NE(input_error("swfc:2048:1024:1").find("more than 1048576 NPUs"), std::string::npos);
}

TEST(SwitchFc, CommandLineAndScenarioRefuseLinkParameters) {
  const auto r = test::collsim("collective -t swfc:1:4:2 --link-bandwidth '10 GB/s' -a ring");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--link-bandwidth/--link-latency: not used by swfc:1:4:2"),
            std::string::npos)
      << r.err;
  const auto bad_rule = test::collsim("collective -t swfc:1:4:2 --local-switch random -a ring");
  EXPECT_EQ(bad_rule.status, 2);
  EXPECT_NE(bad_rule.err.find("--local-switch: unknown local-switch rule"), std::string::npos);
  try {
    config::parse_scenario(
        "name: s\nplatforms:\n  - {topology: \"swfc:1:4:2\", link_latency: 1 ns}\n"
        "jobs:\n  - {collective: all-reduce, sizes: [1 MiB], algorithms: [ring]}\n",
        "s.yaml");
    ADD_FAILURE();
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("platforms[0].link_latency: not used by swfc:1:4:2"),
              std::string::npos)
        << e.what();
  }
  const config::Scenario s = config::parse_scenario(
      "name: s\nplatforms:\n  - {topology: \"swfc:1:4:2\", local_switch: source}\n"
      "jobs:\n  - {collective: all-reduce, sizes: [1 MiB], algorithms: [ring]}\n",
      "s.yaml");
  EXPECT_EQ(s.platforms.at(0).topology.local_switch_rule(), LocalSwitchRule::Source);
}

}  // namespace
}  // namespace collsim::topology
