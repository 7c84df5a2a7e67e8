// The topology registry (topology/forms.hpp): complete and unique entries, every form's example
// builds and names itself, and from_compact() lists exactly the registered syntaxes.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/error.hpp"
#include "topology/builders.hpp"
#include "topology/forms.hpp"

namespace collsim::topology {
namespace {

const core::Bandwidth kBw{16e9};
const core::Time kLat = core::Time::from_ns(150);

TEST(TopologyForms, EntriesAreCompleteAndUnique) {
  std::set<std::string_view> names;
  ASSERT_GE(topology_forms().size(), 12u);  // the seed forms; new forms add to it
  for (const TopologyForm& f : topology_forms()) {
    SCOPED_TRACE(std::string(f.name));
    EXPECT_TRUE(names.insert(f.name).second);
    EXPECT_EQ(f.syntax.rfind(std::string(f.name) + ":", 0), 0u);
    EXPECT_EQ(f.example.rfind(std::string(f.name) + ":", 0), 0u);
    EXPECT_FALSE(f.description.empty());
    EXPECT_FALSE(f.source.empty());
    EXPECT_NE(f.build, nullptr);
    EXPECT_EQ(find_topology_form(f.name), &f);
    // The example builds through from_compact and keeps its name (names round-trip); a file
    // form's example is a path from the source tree (graph_import_test.cpp reads it).
    if (f.args == FormArgs::Path) continue;
    const Topology t = from_compact(f.example, kBw, kLat);
    EXPECT_EQ(t.name(), f.example);
    validate(t);
  }
  EXPECT_EQ(find_topology_form("tourus"), nullptr);
}

TEST(TopologyForms, BuildsFromParsedArguments) {
  CompactArgs ta;
  ta.sizes = {4, 2};
  const Topology t = find_topology_form("torus")->build(ta, kBw, kLat);
  EXPECT_EQ(t.name(), "torus:4x2");
  EXPECT_EQ(t.num_npus(), 8u);
  CompactArgs ha;
  ha.sizes = {4, 3};
  ha.kinds = {DimKind::UniRing, DimKind::FullyConnected};
  const Topology h = find_topology_form("hier")->build(ha, kBw, kLat);
  EXPECT_EQ(h.name(), "hier:uring4xfc3");
  EXPECT_EQ(h.dimensions()[1].spec.kind, DimKind::FullyConnected);
}

TEST(TopologyForms, ErrorsListEveryRegisteredSyntax) {
  EXPECT_EQ(
      topology_syntaxes(),
      "ring:N, bidir-ring:N, fc:N, switch:N, nvswitch:N, torus:AxB[xC...], mesh:AxB[xC...], "
      "hier:<kind><size>x... (kinds ring, uring, line, fc, sw, lsw), optical-ring:N, fattree:KxL, "
      "bigraph:SxP, swfc:P:n:k, htorus:P:n[:2], railfat:NxG, dragonfly:GxAxP, file:PATH");
  try {
    from_compact("tree:8", kBw, kLat, "--topology");
    FAIL() << "expected an error";
  } catch (const core::InputError& e) {
    const std::string msg = e.what();
    for (const TopologyForm& f : topology_forms()) {
      EXPECT_NE(msg.find(f.syntax), std::string::npos) << f.syntax << ": " << msg;
    }
  }
}

// The optical ring: a bidirectional ring whose links carry every wavelength of a waveguide.
TEST(TopologyForms, OpticalRingCarriesItsWavelengths) {
  const Topology d = from_compact("optical-ring:8", kBw, core::Time::from_ns(5));
  ASSERT_NE(d.optical(), nullptr);
  EXPECT_EQ(d.optical()->wavelengths, 64u);
  EXPECT_DOUBLE_EQ(d.optical()->wavelength_bandwidth.bytes_per_s, 25e9 / 8);
  // 64 x 25 Gb/s = 200 GB/s per direction, whatever --link-bandwidth says.
  EXPECT_EQ(d.links().size(), 16u);
  EXPECT_DOUBLE_EQ(d.links()[0].bandwidth.bytes_per_s, 200e9);
  EXPECT_EQ(d.links()[0].latency, core::Time::from_ns(5));
  EXPECT_EQ(d.hops(0, 4), 4u);
  EXPECT_EQ(d.hops(0, 7), 1u);

  const Topology t = from_compact("optical-ring:16", kBw, kLat, "--topology",
                                  topology::OpticalSpec{4, core::Bandwidth{1e9}});
  EXPECT_EQ(t.optical()->wavelengths, 4u);
  EXPECT_DOUBLE_EQ(t.links()[0].bandwidth.bytes_per_s, 4e9);
  EXPECT_EQ(from_compact("torus:4x4", kBw, kLat).optical(), nullptr);
}

TEST(TopologyForms, WavelengthsOnlyForOpticalForms) {
  try {
    from_compact("torus:4x4", kBw, kLat, "--topology", topology::OpticalSpec{}, "--wavelengths");
    FAIL() << "expected an error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--wavelengths: only optical topologies (optical-ring:N) have wavelengths, not "
              "\"torus:4x4\"");
  }
  try {
    from_compact("optical-ring:8", kBw, kLat, "--topology", topology::OpticalSpec{0, kBw});
    FAIL() << "expected an error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(std::string(e.what()), "wavelengths: must be 1..4096, got 0");
  }
}

}  // namespace
}  // namespace collsim::topology

namespace collsim::topology {
namespace {

// Every route of a switched network is a path of links from source to destination, as short as
// the graph allows.
void expect_shortest_routes(const Topology& t) {
  for (NodeId a = 0; a < t.num_npus(); ++a) {
    for (NodeId b = 0; b < t.num_npus(); ++b) {
      if (a == b) continue;
      const auto r = t.route(a, b);
      ASSERT_FALSE(r.empty());
      EXPECT_EQ(t.links()[r.front()].src, a);
      EXPECT_EQ(t.links()[r.back()].dst, b);
      for (std::size_t i = 1; i < r.size(); ++i) {
        EXPECT_EQ(t.links()[r[i - 1]].dst, t.links()[r[i]].src);
      }
      EXPECT_EQ(r.size(), t.hops(a, b)) << t.name() << " " << a << "->" << b;
    }
  }
}

TEST(TopologyForms, FatTreeWiringAndNcaRouting) {
  const core::Bandwidth bw{16e9};
  const Topology t = from_compact("fattree:8x2", bw, kLat);
  EXPECT_EQ(t.num_npus(), 64u);
  EXPECT_EQ(t.num_switches(), 16u);             // 8 leaves, 8 spines
  EXPECT_EQ(t.links().size(), 2u * (64 + 64));  // NPU links, every leaf to every spine
  expect_shortest_routes(t);
  // d-mod-k: NPU 0 to the 8 NPUs of leaf 1 goes up through 8 different spines.
  std::set<NodeId> spines;
  for (NodeId b = 8; b < 16; ++b) spines.insert(t.links()[t.route(0, b)[1]].dst);
  EXPECT_EQ(spines.size(), 8u);
  EXPECT_EQ(t.route(0, 1).size(), 2u);  // same leaf
  const Topology three = from_compact("fattree:4x3", bw, kLat);
  EXPECT_EQ(three.num_npus(), 64u);
  EXPECT_EQ(three.num_switches(), 48u);
  EXPECT_EQ(three.diameter(), 6u);
  expect_shortest_routes(three);
}

TEST(TopologyForms, BiGraphWiringAndRouting) {
  const Topology t = from_compact("bigraph:4x8", core::Bandwidth{16e9}, kLat);
  EXPECT_EQ(t.num_npus(), 32u);
  EXPECT_EQ(t.num_switches(), 4u);
  EXPECT_EQ(t.links().size(), 2u * (32 + 4));
  // Inter-layer links carry 8 / 2 = 4 NPU links' bandwidth.
  EXPECT_DOUBLE_EQ(t.links()[t.link_between(32, 34)].bandwidth.bytes_per_s, 64e9);
  expect_shortest_routes(t);
  EXPECT_EQ(t.route(0, 8).size(), 4u);   // upper switch 0 -> lower -> upper switch 1
  EXPECT_EQ(t.route(0, 16).size(), 3u);  // upper switch 0 -> lower switch 2
  EXPECT_THROW(from_compact("bigraph:3x8", core::Bandwidth{16e9}, kLat), core::InputError);
}

TEST(TopologyForms, NpuLinksOfTheirOwnOnSwitchedNetworks) {
  Topology t = from_compact("fattree:4x2", core::Bandwidth{16e9}, kLat);
  t.set_npu_links(core::Bandwidth{32e9}, core::Time::from_ns(10), "npu_link_bandwidth");
  std::size_t npu_links = 0;
  for (const Link& l : t.links()) {
    const bool npu = t.is_npu(l.src) || t.is_npu(l.dst);
    npu_links += npu;
    EXPECT_DOUBLE_EQ(l.bandwidth.bytes_per_s, npu ? 32e9 : 16e9);
    EXPECT_EQ(l.latency, npu ? core::Time::from_ns(10) : kLat);
  }
  EXPECT_EQ(npu_links, 2u * 16);
  // Only the latency: bandwidths stay.
  Topology b = from_compact("bigraph:4x8", core::Bandwidth{16e9}, kLat);
  b.set_npu_links(std::nullopt, core::Time::from_ns(20), "npu_link_latency");
  EXPECT_DOUBLE_EQ(b.links()[b.link_between(0, 32)].bandwidth.bytes_per_s, 16e9);
  EXPECT_EQ(b.links()[b.link_between(0, 32)].latency, core::Time::from_ns(20));
  EXPECT_EQ(b.links()[b.link_between(32, 34)].latency, kLat);
  Topology torus = from_compact("torus:4x4", core::Bandwidth{16e9}, kLat);
  try {
    torus.set_npu_links(core::Bandwidth{1e9}, std::nullopt, "platforms[0].npu_link_bandwidth");
    ADD_FAILURE() << "a torus has no NPU-to-switch links";
  } catch (const core::InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "platforms[0].npu_link_bandwidth: torus:4x4 has no switches (every link joins two "
              "NPUs); use the link bandwidth and latency");
  }
}

}  // namespace
}  // namespace collsim::topology
