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
  ASSERT_EQ(topology_forms().size(), 8u);
  for (const TopologyForm& f : topology_forms()) {
    SCOPED_TRACE(std::string(f.name));
    EXPECT_TRUE(names.insert(f.name).second);
    EXPECT_EQ(f.syntax.rfind(std::string(f.name) + ":", 0), 0u);
    EXPECT_EQ(f.example.rfind(std::string(f.name) + ":", 0), 0u);
    EXPECT_FALSE(f.description.empty());
    EXPECT_FALSE(f.source.empty());
    EXPECT_NE(f.build, nullptr);
    EXPECT_EQ(find_topology_form(f.name), &f);
    // The example builds through from_compact and keeps its name (names round-trip).
    const Topology t = from_compact(f.example, kBw, kLat);
    EXPECT_EQ(t.name(), f.example);
    validate(t);
  }
  EXPECT_EQ(find_topology_form("tourus"), nullptr);
}

TEST(TopologyForms, BuildsFromParsedArguments) {
  const Topology t = find_topology_form("torus")->build({{4, 2}, {}, {}}, kBw, kLat);
  EXPECT_EQ(t.name(), "torus:4x2");
  EXPECT_EQ(t.num_npus(), 8u);
  const Topology h = find_topology_form("hier")->build(
      {{4, 3}, {DimKind::UniRing, DimKind::FullyConnected}, {}}, kBw, kLat);
  EXPECT_EQ(h.name(), "hier:uring4xfc3");
  EXPECT_EQ(h.dimensions()[1].spec.kind, DimKind::FullyConnected);
}

TEST(TopologyForms, ErrorsListEveryRegisteredSyntax) {
  EXPECT_EQ(topology_syntaxes(),
            "ring:N, bidir-ring:N, fc:N, switch:N, torus:AxB[xC...], mesh:AxB[xC...], "
            "hier:<kind><size>x... (kinds ring, uring, line, fc, sw), optical-ring:N");
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
