// Scenario files: what the YAML reader lets through silently must be an error naming the file,
// line and key path.
#include "test_paths.hpp"
#include "config/scenario.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "core/error.hpp"

namespace collsim::config {
namespace {

// The message of the InputError that parsing `yaml` (as "s.yaml") throws, or "" if none.
std::string error_of(const std::string& yaml) {
  try {
    parse_scenario(yaml, "s.yaml");
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "";
}

const std::string kJobs =
    "jobs:\n"
    "  - {collective: all-reduce, sizes: 1MiB, algorithms: ring}\n";

// Every scenario under examples/ (the paper reproductions of `make reproduce` included) loads:
// its platforms build and its workload files are found.
TEST(ScenarioExamples, EveryExampleLoads) {
  int n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(
           std::filesystem::path(COLLSIM_SOURCE_DIR) / "examples")) {
    if (e.path().extension() != ".yaml") continue;
    std::ifstream in(e.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("\njobs:") == std::string::npos) continue;  // a workload file (training/toy)
    EXPECT_NO_THROW(load_scenario(e.path().string())) << e.path();
    ++n;
  }
  EXPECT_GE(n, 30);
}

TEST(ScenarioDuplicateKeys, InAPlatform) {
  // yaml-cpp would keep 16 GB/s and drop 32 GB/s without a word.
  EXPECT_EQ(error_of("platforms:\n"
                     "  - topology: ring:4\n"
                     "    link_bandwidth: 16 GB/s\n"
                     "    link_latency: 1 ns\n"
                     "    link_bandwidth: 32 GB/s\n" +
                     kJobs),
            "s.yaml:5: platforms[0].link_bandwidth: duplicate key (first given on line 3)");
}

TEST(ScenarioDuplicateKeys, AtTheTopAndInFlowMapsAndDimensions) {
  const std::string platform =
      "platform: {topology: ring:4, link_bandwidth: 16 GB/s, "
      "link_latency: 1 ns}\n";
  EXPECT_EQ(error_of("name: a\n" + platform + "name: b\n" + kJobs),
            "s.yaml:3: name: duplicate key (first given on line 1)");
  EXPECT_EQ(error_of(platform +
                     "jobs:\n"
                     "  - {collective: all-reduce, sizes: 1MiB, algorithms: ring}\n"
                     "  - {collective: all-reduce, sizes: 1MiB, sizes: 2MiB, algorithms: ring}\n"),
            "s.yaml:4: jobs[1].sizes: duplicate key (first given on line 4)");
  EXPECT_EQ(error_of("platform:\n"
                     "  topology:\n"
                     "    dims:\n"
                     "      - {kind: ring, size: 4, bandwidth: 1 GB/s, latency: 1 ns}\n"
                     "      - {kind: fc, size: 2, bandwidth: 1 GB/s, latency: 1 ns,\n"
                     "         kind: sw}\n" +
                     kJobs),
            "s.yaml:6: platform.topology.dims[1].kind: duplicate key (first given on line 5)");
}

TEST(ScenarioDuplicateKeys, SameKeyInDifferentMapsIsFine) {
  const Scenario s = parse_scenario(
      "platforms:\n"
      "  - {name: a, topology: ring:4, link_bandwidth: 16 GB/s, link_latency: 1 ns}\n"
      "  - {name: b, topology: ring:8, link_bandwidth: 16 GB/s, link_latency: 1 ns}\n" +
          kJobs,
      "s.yaml");
  ASSERT_EQ(s.platforms.size(), 2u);
  EXPECT_EQ(s.platforms[1].name, "b");
  EXPECT_EQ(s.platforms[1].topology.num_npus(), 8u);
}

TEST(ScenarioDuplicateKeys, KeysMustBePlainNames) {
  EXPECT_EQ(error_of("? [a, b]\n: 1\n"), "s.yaml:1: top level: a key must be a plain name");
}

TEST(ScenarioPlatformNames, TwoPlatformsCannotShareAName) {
  // Result rows are told apart by platform name; two "a" rows would be indistinguishable.
  EXPECT_EQ(
      error_of("platforms:\n"
               "  - {name: a, topology: ring:4, link_bandwidth: 16 GB/s, link_latency: 1 ns}\n"
               "  - {name: b, topology: ring:4, link_bandwidth: 32 GB/s, link_latency: 1 ns}\n"
               "  - {name: a, topology: ring:8, link_bandwidth: 16 GB/s, link_latency: 1 ns}\n" +
               kJobs),
      "s.yaml:4: platforms[2].name: \"a\" is already the name of platforms[0]; give each "
      "platform its own name");
}

TEST(ScenarioPlatformNames, DefaultNamesCountToo) {
  // Without `name:` a platform is named after its topology.
  EXPECT_EQ(error_of("platforms:\n"
                     "  - {topology: torus:4x4, link_bandwidth: 16 GB/s, link_latency: 1 ns}\n"
                     "  - {topology: torus:4x4, link_bandwidth: 32 GB/s, link_latency: 1 ns}\n" +
                     kJobs),
            "s.yaml:3: platforms[1].name: \"torus:4x4\" (the topology, by default) is already the "
            "name of platforms[0]; give each platform its own name");
  // An explicit name may equal another platform's default one: still a clash.
  EXPECT_EQ(
      error_of(
          "platforms:\n"
          "  - {topology: ring:4, link_bandwidth: 16 GB/s, link_latency: 1 ns}\n"
          "  - {name: ring:4, topology: ring:8, link_bandwidth: 1 GB/s, link_latency: 1 ns}\n" +
          kJobs),
      "s.yaml:3: platforms[1].name: \"ring:4\" is already the name of platforms[0]; give "
      "each platform its own name");
}

}  // namespace
}  // namespace collsim::config

namespace collsim::config {
namespace {

TEST(ScenarioOptical, WavelengthsBelongToOpticalRings) {
  const Scenario s = parse_scenario(
      "platform: {topology: optical-ring:8, wavelengths: 4, wavelength_bandwidth: 10 Gb/s, "
      "link_latency: 5 ns}\n" +
          kJobs,
      "s.yaml");
  ASSERT_NE(s.platforms.at(0).topology.optical(), nullptr);
  EXPECT_EQ(s.platforms[0].topology.optical()->wavelengths, 4u);
  EXPECT_DOUBLE_EQ(s.platforms[0].topology.links()[0].bandwidth.bytes_per_s, 4 * 10e9 / 8);
  EXPECT_EQ(error_of("platform: {topology: optical-ring:8, link_bandwidth: 16 GB/s, "
                     "link_latency: 5 ns}\n" +
                     kJobs),
            "s.yaml:1: platforms[0].link_bandwidth: not used by optical rings: their links carry "
            "wavelengths x wavelength_bandwidth");
  EXPECT_EQ(error_of("platform: {topology: ring:8, link_bandwidth: 16 GB/s, link_latency: 5 ns, "
                     "wavelengths: 4}\n" +
                     kJobs),
            "s.yaml:1: platforms[0].wavelengths: only optical topologies (optical-ring:N) have "
            "wavelengths, not \"ring:8\"");
}

TEST(ScenarioPlatform, NpuLinksOnSwitchedNetworksOnly) {
  const Scenario s = parse_scenario(
      "platforms:\n"
      "  - {topology: fattree:4x2, link_bandwidth: 16 GB/s, link_latency: 150 ns,\n"
      "     npu_link_bandwidth: 32 GB/s, npu_link_latency: 10 ns}\n" +
          kJobs,
      "s.yaml");
  const auto& t = s.platforms.at(0).topology;
  EXPECT_DOUBLE_EQ(t.links()[t.link_between(0, 16)].bandwidth.bytes_per_s, 32e9);
  EXPECT_EQ(t.links()[t.link_between(0, 16)].latency, core::Time::from_ns(10));
  EXPECT_EQ(error_of("platforms:\n"
                     "  - topology: torus:4x4\n"
                     "    link_bandwidth: 16 GB/s\n"
                     "    link_latency: 150 ns\n"
                     "    npu_link_latency: 10 ns\n" +
                     kJobs),
            "s.yaml:5: platforms[0].npu_link_latency: torus:4x4 has no switches (every link "
            "joins two NPUs); use the link bandwidth and latency");
}

}  // namespace
}  // namespace collsim::config
