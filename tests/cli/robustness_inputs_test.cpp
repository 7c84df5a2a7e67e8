// Issue 36 (robustness), bad input of every kind ends in exit 2 and one line naming the option or
// key and the reason: never a signal, an "internal error" or an empty table with exit 0.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "chakra_writer.hpp"
#include "cli_run.hpp"
#include "config/astra_config.hpp"
#include "io/yaml_reader.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "workload/astra_text.hpp"
#include "workload/formats/chakra.hpp"

namespace collsim {
namespace {

using test::collsim;
using test::Result;

std::filesystem::path scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "collsim_robustness_inputs_test";
  std::filesystem::create_directories(dir);
  return dir / name;
}

std::filesystem::path write(const std::string& name, const std::string& text) {
  const auto p = scratch(name);
  std::ofstream(p) << text;
  return p;
}

// Exit 2 with one "collsim: error:" line containing every one of `words`, and no internal error.
void expect_refused(const Result& r, std::initializer_list<std::string> words) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("collsim: error: "), std::string::npos) << r.err;
  for (const std::string& w : words)
    EXPECT_NE(r.err.find(w), std::string::npos) << w << "\n" << r.err;
}

const char* kPlatform =
    "platforms: [{topology: ring:4, link_bandwidth: 16 GB/s, link_latency: 150 ns}]\n";

Result run_scenario(const std::string& name, const std::string& yaml) {
  return collsim("run '" + write(name, yaml).string() + "' -q");
}

// Item 1: empty lists in a scenario.
TEST(RobustnessInputs, EmptyJobListIsAnErrorNotACrash) {
  expect_refused(run_scenario("jobs.yaml", std::string(kPlatform) + "jobs: []\n"),
                 {"jobs.yaml:", "jobs: empty list; give at least one job"});
  expect_refused(run_scenario("job.yaml", std::string(kPlatform) + "job: []\n"),
                 {"job: empty list; give at least one job"});
}

TEST(RobustnessInputs, EmptyPlatformsSizesAndAlgorithmsAreErrors) {
  const std::string job = "jobs: [{collective: all-reduce, sizes: [1MiB], algorithms: [ring]}]\n";
  expect_refused(run_scenario("p.yaml", "platforms: []\n" + job),
                 {"platforms: empty list; give at least one platform"});
  expect_refused(
      run_scenario("s.yaml",
                   std::string(kPlatform) +
                       "jobs: [{collective: all-reduce, sizes: [], algorithms: [ring]}]\n"),
      {"jobs[0].sizes: empty list; give at least one size"});
  expect_refused(
      run_scenario("a.yaml",
                   std::string(kPlatform) +
                       "jobs: [{collective: all-reduce, sizes: [1MiB], algorithms: []}]\n"),
      {"jobs[0].algorithms: empty list; give at least one algorithm"});
  expect_refused(
      run_scenario("t.yaml", std::string(kPlatform) + "jobs: [{training: {workload: resnet50, "
                                                      "algorithms: []}}]\n"),
      {"jobs[0].training.algorithms: empty list"});
  expect_refused(
      run_scenario("o.yaml", std::string(kPlatform) + "jobs: [{training: {workload: resnet50, "
                                                      "algorithms: [ring], overlap: []}}]\n"),
      {"jobs[0].training.overlap: empty list"});
}

TEST(RobustnessInputs, AllAlgorithmsSkippedIsAnErrorSayingWhy) {
  const Result r =
      collsim("collective -t switch:100000 -c all-to-all -a all -s 1KiB -b analytical -q");
  expect_refused(r, {"--algorithms: all: no algorithm can run all-to-all on switch:100000",
                     "skipped ring: chunks:", "direct:"});
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// Item 2: times beyond the simulation horizon.
TEST(RobustnessInputs, TimeArithmeticPastTheHorizonThrowsInsteadOfWrapping) {
  EXPECT_THROW(core::Time::max() + core::Time::from_ps(1), core::InputError);
  EXPECT_THROW(core::Time::from_ps(INT64_MIN) - core::Time::from_ps(1), core::InputError);
  EXPECT_THROW(core::Time::from_ps(core::kHorizonPs) * 2, core::InputError);
  EXPECT_THROW(core::Time::from_ns(INT64_MAX / 100), core::InputError);
  EXPECT_EQ((core::Time::from_ps(core::kHorizonPs - 1) + core::Time::from_ps(core::kHorizonPs)).ps,
            INT64_MAX);
  EXPECT_THROW(core::time_from_user(1e300, 1e3, "latency"), core::InputError);
  EXPECT_THROW(core::time_from_user(-1, 1e3, "latency"), core::InputError);
  EXPECT_EQ(core::time_from_user(1.5, 1e3, "latency").ps, 1500);
}

TEST(RobustnessInputs, HugeLatencySizeOrTinyBandwidthIsBeyondTheHorizon) {
  expect_refused(collsim("collective -t hier:sw2 -a ring -c all-gather -s 1KiB -b analytical "
                         "--link-latency '9223372036854775807 ps'"),
                 {"--link-latency", "beyond the simulation horizon"});
  expect_refused(collsim("collective -t switch:8 -a ring -c all-gather -s 1048576TiB -q"),
                 {"sizes: 1048576 TiB on switch:8", "beyond the simulation horizon"});
  expect_refused(collsim("collective -t switch:8 -a ring -s 1KiB --link-bandwidth '0.000001 B/s'"),
                 {"sizes: 1 KiB", "1e-06 B/s", "beyond the simulation horizon"});
  expect_refused(collsim("collective -t optical-ring:8 -a ring -s 1KiB -b optical "
                         "--wavelength-bandwidth '0.000001 B/s'"),
                 {"sizes: 1 KiB", "beyond the simulation horizon"});
  // Half the horizon per hop, 3 hops: the latencies alone pass it.
  expect_refused(
      collsim("collective -t ring:4 -a ring -s 1KiB --link-latency '2305843009213693952 ps'"),
      {"link latency", "beyond the simulation horizon"});
}

TEST(RobustnessInputs, WorkloadTimesBeyondTheHorizonAreRefusedWhereRead) {
  // 10^19 cycles at 1 GHz: 10^22 ps.
  try {
    workload::parse_astra_text(
        "DATA\n1\nl -1 10000000000000000000 NONE 0 0 NONE 0 0 ALLREDUCE 64 0\n", "w.txt", {4});
    ADD_FAILURE() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("beyond the simulation horizon"), std::string::npos)
        << e.what();
  }
  namespace ck = workload::chakra;
  const auto path = scratch("huge.0.et").string();
  ck::write(path, {ck::node(1, ck::pb::COMP_NODE, 18'000'000'000'000'000'000ULL)});
  try {
    ck::read_et(path);
    ADD_FAILURE() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("duration_micros 18000000000000000000 is beyond"),
              std::string::npos)
        << e.what();
  }
}

TEST(RobustnessInputs, ComputeTimesBeyondTheHorizonNameTheComputeModel) {
  // Before: the double -> int64 conversion wrapped, "negative forward compute time".
  expect_refused(collsim("train -w resnet50 -t ring:4 -a ring -q --compute roofline:peak=1e-10"),
                 {"--compute roofline: a layer takes", "beyond the simulation horizon"});
  expect_refused(
      collsim("train -w resnet50 -t ring:4 -a ring -q --compute \"systolic:clock=0.000001 Hz\""),
      {"--compute systolic: a layer takes", "beyond the simulation horizon"});
}

// Item 3: malformed ASTRA-sim inputs name the file and key.
void expect_network_error(const std::string& name, const std::string& text,
                          std::initializer_list<std::string> words) {
  const auto p = write(name, text);
  try {
    config::read_astra_network(p.string(), false);
    ADD_FAILURE() << name << ": no error";
  } catch (const core::InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(p.string()), std::string::npos) << m;
    for (const std::string& w : words) EXPECT_NE(m.find(w), std::string::npos) << w << "\n" << m;
  }
}

TEST(RobustnessInputs, AstraNetworkYamlWithWrongTypesNamesTheKey) {
  expect_network_error(
      "map.yml", "topology: {}\nnpus_count: [4]\nbandwidth: [50]\nlatency: [500]\n", {"topology"});
  expect_network_error("list.yml",
                       "topology: [[Ring]]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [500]\n",
                       {"topology"});
  expect_network_error(
      "lat.yml", "topology: [Ring]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [ 1.0e+300 ]\n",
      {"latency", "beyond the simulation horizon"});
  expect_network_error("bw.yml",
                       "topology: [Ring]\nnpus_count: [4]\nbandwidth: [1e400]\nlatency: [5]\n",
                       {"bandwidth"});
  expect_network_error("key.yml", "? [a]\n: 1\n", {"key.yml"});
}

TEST(RobustnessInputs, AstraNetworkJsonWithWrongTypesNamesTheKey) {
  const std::string rest =
      "\"topologies-per-dim\": [\"Ring\"], \"units-count\": [4], \"links-count\": [2], "
      "\"link-latency\": [500], \"link-bandwidth\": [25]";
  for (const std::string v : {"0", "[]", "true", "{}"}) {
    expect_network_error("name.json", "{\"topology-name\": " + v + ", " + rest + "}",
                         {"topology-name", "must be a string"});
  }
  expect_network_error(
      "big.json", "{\"topology-name\": \"Hierarchical\", " + rest + ", \"nic-latency\": [1e999]}",
      {"not valid JSON"});
  expect_network_error("units.json",
                       "{\"topologies-per-dim\": [\"Ring\"], \"units-count\": [1e30], "
                       "\"links-count\": [2], \"link-latency\": [500], \"link-bandwidth\": [25]}",
                       {"units-count"});
  expect_network_error("lat.json",
                       "{\"topologies-per-dim\": [\"Ring\"], \"units-count\": [4], "
                       "\"links-count\": [2], \"link-latency\": [1e300], \"link-bandwidth\": [25]}",
                       {"link-latency", "beyond the simulation horizon"});
}

TEST(RobustnessInputs, AstraSystemValueTooLargeNamesTheKey) {
  const auto txt =
      write("sys.txt", "all-reduce-implementation: ring\nendpoint-delay: 18446744073709551616\n");
  try {
    config::read_astra_system(txt.string(), 1);
    ADD_FAILURE() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("sys.txt:2: endpoint-delay: 18446744073709551616 is too "
                                         "large"),
              std::string::npos)
        << e.what();
  }
  const auto json = write("sys.json",
                          "{\"all-reduce-implementation\": [\"ring\"], "
                          "\"endpoint-delay\": 9223372036854775807}");
  try {
    config::read_astra_system(json.string(), 1);
    ADD_FAILURE() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("endpoint-delay"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("horizon"), std::string::npos) << e.what();
  }
  const auto splits = write("splits.json",
                            "{\"all-reduce-implementation\": [\"ring\"], "
                            "\"preferred-dataset-splits\": 4294967296}");
  EXPECT_THROW(config::read_astra_system(splits.string(), 1), core::InputError);
}

// Item 4: the verifier covers every schedule `collective` runs.
TEST(RobustnessInputs, VerifyCoversHierarchicalAllGatherWithPackageDoubling) {
  for (const std::string t : {"swfc:2:4:2", "hier:lsw4xring2"}) {
    const Result c = collsim("collective -t " + t + " -a hierarchical -c all-gather -s 1MiB -q");
    EXPECT_EQ(c.status, 0) << c.err;
    const Result v = collsim("verify -t " + t + " -a hierarchical -c all-gather");
    EXPECT_EQ(v.status, 0) << t << ": " << v.err << v.out;
    EXPECT_NE(v.out.find("ok: hierarchical all-gather on " + t), std::string::npos) << v.out;
  }
}

// Item 11: messages name what the user wrote.
TEST(RobustnessInputs, MessagesNameTheOptionAndTheReason) {
  expect_refused(collsim("inventory -t fattree:2x64"),
                 {"fattree:2x64: k^levels = 2^64 NPUs is too large; at most 1048576 NPUs"});
  const Result fc = collsim("inventory -t fc:11586");
  expect_refused(fc, {"fc:11586: 11586 NPUs need more than 134217728 directed links"});
  EXPECT_EQ(fc.err.find("dims:"), std::string::npos) << fc.err;
  expect_refused(collsim("collective -t torus:4x4 -a hierarchical -s 1MiB -q --activity '" +
                         scratch("act.csv").string() + "' --activity-window '1 ps'"),
                 {"--activity-window: 1 ps is too small", "use a window of at least"});
  const Result t = collsim("train -w resnet50 -t ring:8 -a ring --max-time 1us -q");
  EXPECT_EQ(t.status, 3) << t.err;
  EXPECT_NE(t.err.find("time bound of 1 us (--max-time"), std::string::npos) << t.err;
  const Result chunks = collsim("collective -t switch:8 --chunks 4294967296");
  expect_refused(chunks, {"--chunks: \"4294967296\" is not a whole number from 0 to 4294967295"});
  EXPECT_EQ(chunks.err.find("Could not convert"), std::string::npos) << chunks.err;
  const Result twice = collsim("collective -t switch:8 -s 1KiB -s 2KiB");
  expect_refused(twice, {"--sizes: given 2 values; give it once"});
  EXPECT_EQ(twice.err.find("At Most"), std::string::npos) << twice.err;
}

TEST(RobustnessInputs, NestedReadersDoNotNameTheFileTwice) {
  io::YamlReader r("dup.yaml");
  const YAML::Node n = YAML::Load("a: 1\nb: 2\n");
  try {
    r.with_line(n["b"], [&]() -> int { r.fail(n["b"], "b", "bad"); });
    ADD_FAILURE();
  } catch (const core::InputError& e) {
    EXPECT_EQ(std::string(e.what()), "dup.yaml:2: b: bad");
  }
  // The same through the command line: a list where one value belongs, read inside with_line.
  const Result cli = run_scenario(
      "dup.yaml",
      "platforms: [{topology: ring:4, link_bandwidth: [16 GB/s], link_latency: 150 ns}]\n"
      "jobs: [{collective: all-reduce, sizes: [1KiB], algorithms: [ring]}]\n");
  expect_refused(cli, {"dup.yaml:1: platforms[0].link_bandwidth: must be a single value"});
  EXPECT_EQ(cli.err.find("dup.yaml:1: " + scratch("dup.yaml").string()), std::string::npos)
      << cli.err;
}

}  // namespace
}  // namespace collsim
