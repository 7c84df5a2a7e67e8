// `collsim train` as a user drives it: a hand-derived iteration, the report formats, and error
// paths (exit status 2 naming the field, nothing written).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_run.hpp"

namespace {

using collsim::test::collsim;

TEST(TrainCli, ToyWorkloadIterationIsTheHandDerivedTimeline) {
  // fc:4, 16 GB/s and 150 ns links, direct all-reduce of S: 2 (150 ns + S / 64 GB/s):
  // conv1 2 MiB 65.836 us, conv2 8 MiB 262.444 us, fc 16 MiB 524.588 us. Forward 120 us; the fc
  // all-reduce runs [160, 684.588]; conv2's (issued at 300) and conv1's (at 440) queue behind it
  // and end at 947.032 and 1012.868 us; back-propagation ends at 480 us, so the tail waits
  // 532.868 us for conv1, then the updates (2 + 4 + 8 us): 1026.868 us in all.
  const auto r = collsim(
      "train -w examples/training/toy.yaml -t fc:4 -a direct -b analytical --format csv -q");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("toy,fc:4,4,analytical,direct,layer,fifo,1,total,494000.000,"
                       "852868.000,532868.000,1026868.000,120000.000,532868.000,none\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(",conv1,162000.000,65836.000,532868.000,,,,none\n"), std::string::npos)
      << r.out;
  const auto table = collsim(
      "train -w examples/training/toy.yaml -t fc:4 -a direct,ring "
      "-b analytical --overlap none,layer -q");
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(
      table.out.find("summary (per iteration; speedup over the first run of the same workload)"),
      std::string::npos);
  EXPECT_NE(table.out.find("1.027 ms  = compute 494 us + exposed communication 532.9 us"),
            std::string::npos)
      << table.out;
  const auto json = collsim(
      "train -w examples/training/toy.yaml -t fc:4 -a direct -b analytical "
      "--format json -q");
  EXPECT_NE(json.out.find("\"total_ns\": 1026868.0"), std::string::npos) << json.out;
  // One envelope, as `collective --format json`: units first, then the runs.
  EXPECT_EQ(json.out.rfind("{\n  \"units\": {", 0), 0u) << json.out;
  EXPECT_NE(json.out.find("\"runs\": ["), std::string::npos);
}

TEST(TrainCli, BadInputIsExitTwoNamingTheFieldAndWritesNothing) {
  const auto dir = std::filesystem::temp_directory_path() / "collsim_train_cli_test";
  std::filesystem::create_directories(dir);
  const auto out = dir / "out.csv";
  std::filesystem::remove(out);
  auto bad = collsim("train -w no-such-model -t fc:4 -o '" + out.string() + "'");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--workload: \"no-such-model\""), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  bad = collsim("train -w examples/training/toy.yaml -t fc:4 --overlap sometimes");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--overlap: unknown overlap \"sometimes\""), std::string::npos);
  bad = collsim("train -w examples/training/toy.yaml -t fc:4 --activity x.csv");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--activity: training runs have no activity series"), std::string::npos);
  bad = collsim("train -w examples/training/toy.yaml -t fc:4 --iterations 0");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--iterations"), std::string::npos);
  const auto yaml = dir / "bad.yaml";
  std::ofstream(yaml) << "layers:\n  - name: a\n    forward: {compute: 1 us, size: 1 MiB}\n";
  bad = collsim("train -w '" + yaml.string() + "' -t fc:4");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("bad.yaml:3: layers[0].forward: size and scope need a collective"),
            std::string::npos)
      << bad.err;
  // halving-doubling cannot run on 3 NPUs: named with the layer before anything runs.
  bad = collsim("train -w examples/training/toy.yaml -t fc:3 -a halving-doubling");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("layer conv1, weight-gradient all-reduce"), std::string::npos) << bad.err;
}

}  // namespace

namespace {

using collsim::test::collsim;

TEST(TrainCli, ScenarioTrainingJobs) {
  const auto r = collsim("run examples/training/toy-scenario.yaml -q --format csv");
  ASSERT_EQ(r.status, 0) << r.err;
  // 3 algorithms x 2 overlap policies, each 3 layers + a total line, and the header.
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1 + 6 * 4);
  EXPECT_NE(r.out.find("toy,torus:4x4,16,flow,hierarchical,layer,fifo,2,total,"),
            std::string::npos);
  // A scenario mixing a training job with a collective job is refused, naming the job.
  const auto dir = std::filesystem::temp_directory_path() / "collsim_train_cli_test";
  std::filesystem::create_directories(dir);
  const auto mixed = dir / "mixed.yaml";
  std::ofstream(mixed)
      << "platform: {topology: fc:4, link_bandwidth: 16 GB/s, link_latency: 1 us}\njobs:\n"
         "  - training: {workload: x.yaml, algorithms: [ring]}\n"
         "  - {collective: all-reduce, sizes: [1 MiB], algorithms: [ring]}\n";
  const auto bad = collsim("run '" + mixed.string() + "'");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("mixed.yaml:4: jobs[1]: a scenario's jobs are all training jobs or none"),
            std::string::npos)
      << bad.err;
}

}  // namespace

namespace {

using collsim::test::collsim;

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(TrainCli, TraceShowsComputeCollectivesAndWaits) {
  // The hand-derived toy timeline above, as slices (times in us).
  const auto trace = std::filesystem::temp_directory_path() / "collsim_train_trace.json";
  std::filesystem::remove(trace);
  const auto r = collsim(
      "train -w examples/training/toy.yaml -t fc:4 -a direct -b analytical -q "
      "--trace '" +
      trace.string() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string t = read_file(trace);
  EXPECT_NE(t.find(R"("tid":1,"name":"conv1 forward","ts":0.0,"dur":40.0)"), std::string::npos);
  EXPECT_NE(t.find(R"("tid":3,"name":"fc weight-gradient all-reduce","ts":160.0,"dur":524.588)"),
            std::string::npos)
      << t.substr(0, 2000);
  EXPECT_NE(t.find(R"("tid":2,"name":"wait for conv1 weight-gradient","ts":480.0,"dur":532.868)"),
            std::string::npos);
  EXPECT_NE(t.find(R"("tid":1,"name":"fc update","ts":1018.868,"dur":8.0)"), std::string::npos);
}

}  // namespace
