// The dimension-kind table (topology/dim_kind.cpp): complete and unique entries, names that
// round-trip through every parser, and traits that agree with the links product() builds and the
// routes route() takes.
#include "topology/dim_kind.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "config/scenario.hpp"
#include "core/error.hpp"
#include "topology/builders.hpp"

namespace collsim::topology {
namespace {

const core::Bandwidth kBw{25e9};
const core::Time kLat = core::Time::from_ns(100);

TEST(DimKindTable, EntriesAreCompleteAndUnique) {
  std::set<std::string> tokens;
  ASSERT_EQ(dim_kinds().size(), 6u);  // one per DimKind value
  for (std::size_t i = 0; i < dim_kinds().size(); ++i) {
    const DimKindTraits& k = dim_kinds()[i];
    EXPECT_EQ(static_cast<std::size_t>(k.kind), i) << k.name;
    EXPECT_EQ(&traits(k.kind), &k);
    EXPECT_FALSE(k.name.empty());
    EXPECT_FALSE(k.description.empty()) << k.name;
    EXPECT_FALSE(k.aggregation.empty()) << k.name;
    EXPECT_FALSE(k.source.empty()) << k.name;
    EXPECT_NE(k.natural_links_per_npu, nullptr) << k.name;
    EXPECT_NE(k.check_links_per_npu, nullptr) << k.name;
    EXPECT_NE(k.directed_bandwidth, nullptr) << k.name;
    EXPECT_NE(k.directed_links, nullptr) << k.name;
    EXPECT_NE(k.hops, nullptr) << k.name;
    EXPECT_NE(k.diameter, nullptr) << k.name;
    // A token is a name or alias of one kind only, and has no digit (hier: reads the size after).
    EXPECT_TRUE(tokens.insert(std::string(k.name)).second) << k.name;
    for (std::string_view a : k.aliases) EXPECT_TRUE(tokens.insert(std::string(a)).second) << a;
  }
  for (const std::string& t : tokens) {
    EXPECT_EQ(t.find_first_of("0123456789x"), std::string::npos) << t;
  }
  EXPECT_EQ(dim_kind_names(), "ring, uring, line, fc, sw, lsw");
  EXPECT_EQ(find_dim_kind("torus"), nullptr);
  EXPECT_EQ(find_dim_kind(""), nullptr);
}

TEST(DimKindTable, NamesRoundTripThroughEveryParser) {
  for (const DimKindTraits& k : dim_kinds()) {
    EXPECT_EQ(to_string(k.kind), k.name);
    ASSERT_NE(find_dim_kind(k.name), nullptr) << k.name;
    EXPECT_EQ(find_dim_kind(k.name)->kind, k.kind);
    for (std::string_view a : k.aliases) EXPECT_EQ(find_dim_kind(a)->kind, k.kind) << a;
    // The compact form: hier:<token>4 builds one dimension of this kind, named canonically.
    const std::string canonical = "hier:" + std::string(k.name) + "4";
    std::vector<std::string> tokens{std::string(k.name)};
    for (std::string_view a : k.aliases) tokens.emplace_back(a);
    for (const std::string& token : tokens) {
      const Topology t = from_compact("hier:" + token + "4", kBw, kLat);
      EXPECT_EQ(t.name(), canonical) << token;
      ASSERT_EQ(t.dimensions().size(), 1u);
      EXPECT_EQ(t.dimensions()[0].spec.kind, k.kind) << token;
      // A scenario's dims: list.
      const config::Scenario s = config::parse_scenario(
          "platform:\n  topology:\n    dims:\n      - {kind: " + token +
              ", size: 4, bandwidth: 25 GB/s, latency: 100 ns}\n"
              "job: {collective: all-reduce, sizes: 1MiB, algorithms: ring}\n",
          "kinds.yaml");
      EXPECT_EQ(s.platforms.at(0).topology.name(), canonical) << token;
      EXPECT_EQ(s.platforms.at(0).topology.dimensions()[0].spec.kind, k.kind) << token;
    }
  }
}

TEST(DimKindTable, UnknownKindListsTheTable) {
  try {
    config::parse_scenario(
        "platform:\n  topology:\n    dims:\n      - {kind: tree, size: 4, bandwidth: 1 GB/s, "
        "latency: 1 ns}\njob: {collective: all-reduce, sizes: 1MiB, algorithms: ring}\n",
        "k.yaml");
    FAIL() << "expected an error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "k.yaml:4: platforms[0].topology.dims[0].kind: unknown dimension kind \"tree\"; valid: "
        "ring, uring, line, fc, sw, lsw");
  }
}

// Every counting trait against the topology product() builds from one dimension of the kind.
TEST(DimKindTable, TraitsAgreeWithTheBuiltTopology) {
  for (const DimKindTraits& k : dim_kinds()) {
    for (std::uint32_t n = 2; n <= 7; ++n) {
      SCOPED_TRACE(std::string(k.name) + std::to_string(n));
      // Natural links per NPU: every directed link has the per-link bandwidth.
      const Topology t = Topology::product("t", {DimSpec{k.kind, n, kBw, kLat, 0}});
      EXPECT_EQ(t.links().size(), k.directed_links(n, n, k.natural_links_per_npu(n)));
      EXPECT_EQ(t.num_switches(), k.wiring == Wiring::Star || k.wiring == Wiring::Stars ? 1u : 0u);
      for (const Link& l : t.links()) EXPECT_EQ(l.bandwidth, kBw);
      std::uint32_t worst = 0;
      for (NodeId a = 0; a < n; ++a) {
        for (NodeId b = 0; b < n; ++b) {
          if (a == b) continue;
          EXPECT_EQ(t.route(a, b).size(), k.hops(n, a, b)) << a << "->" << b;
          worst = std::max(worst, k.hops(n, a, b));
        }
      }
      EXPECT_EQ(k.diameter(n), worst);
      // The closed walk 0, 1, ..., n-1, 0 and its reverse: one neighbour step each.
      const std::uint32_t step = k.wiring == Wiring::Star || k.wiring == Wiring::Stars ? 2 : 1;
      bool closes = true;
      for (NodeId a = 0; a < n; ++a) {
        const NodeId b = (a + 1) % n;
        closes = closes && t.hops(a, b) == step && t.hops(b, a) == step;
      }
      EXPECT_EQ(closes, n == 2 || k.closed_walk);  // at size 2 every kind closes
      EXPECT_EQ(k.dependency_cycle_from != 0, k.wraps);
      // Twice the natural links per NPU doubles every directed link, when that count is valid;
      // local switches instead get twice the switches, each link keeping its bandwidth.
      const std::uint32_t twice = 2 * k.natural_links_per_npu(n);
      ASSERT_TRUE(k.check_links_per_npu(n, twice).empty());
      const Topology d = Topology::product("d", {DimSpec{k.kind, n, kBw, kLat, twice}});
      const double per_link = k.wiring == Wiring::Stars ? 1 : 2;
      for (const Link& l : d.links())
        EXPECT_EQ(l.bandwidth.bytes_per_s, per_link * kBw.bytes_per_s);
      EXPECT_EQ(d.links().size(), k.directed_links(n, n, twice));
      if (k.wiring == Wiring::Stars) {
        EXPECT_EQ(d.num_switches(), 2u);
      }
    }
  }
}

TEST(DimKindTable, LinksPerNpuChecks) {
  EXPECT_EQ(traits(DimKind::Ring).check_links_per_npu(4, 3),
            "must be even for a ring (half go each way), got 3");
  EXPECT_EQ(traits(DimKind::FullyConnected).check_links_per_npu(8, 6),
            "must be >= size - 1 = 7 for fully connected (one per peer), got 6");
  EXPECT_TRUE(traits(DimKind::FullyConnected).check_links_per_npu(8, 14).empty());
  EXPECT_EQ(traits(DimKind::LocalSwitches).check_links_per_npu(4, 5),
            "must be <= size = 4 (at most one local switch per NPU), got 5");
  EXPECT_TRUE(traits(DimKind::LocalSwitches).check_links_per_npu(4, 4).empty());
  for (DimKind k : {DimKind::UniRing, DimKind::Line, DimKind::Switch}) {
    EXPECT_TRUE(traits(k).check_links_per_npu(8, 3).empty()) << to_string(k);
  }
}

}  // namespace
}  // namespace collsim::topology
