// Training runs have the work guard of `collsim collective` (issue 36 item 5): the estimate of
// every collective of every iteration is checked against --max-messages / --max-memory before
// anything runs (exit 2 with the estimate and the option), for `train` and training jobs in
// `run`; and a long run shows its simulated time on the progress line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_run.hpp"
#include "refusal.hpp"

namespace {

using collsim::test::collsim;

using collsim::test::expect_refused;

TEST(WorkGuard, TrainingRunsPastTheLimitsAreRefused) {
  // ResNet-50's 161 collectives of 2 N (N - 1) ring messages on 65536 NPUs: 4.6e11.
  expect_refused("train -w resnet50 -t ring:65536 -a ring",
                 "resnet50 on ring:65536: ring: about 4.64e+11 messages, over the limit of 5e+08 "
                 "(--max-messages");
  expect_refused("train -w transformer-1t -t ring:65536 -a ring", "(--max-messages");
  // The limits are options of `train` too.
  expect_refused("train -w resnet50 -t ring:16 -a ring --max-messages 1000",
                 "over the limit of 1000 (--max-messages");
  // Packets on the packet backend.
  expect_refused("train -w resnet50 -t ring:64 -a ring -b packet --max-messages 1000000",
                 "packets on the packet backend");
}

TEST(WorkGuard, TrainingJobsInAScenarioAreRefused) {
  const auto dir = std::filesystem::temp_directory_path() / "collsim_work_guard";
  std::filesystem::create_directories(dir);
  const auto f = dir / "train.yaml";
  std::ofstream(f) << "platforms:\n  - topology: ring:65536\n    link_bandwidth: 16 GB/s\n"
                      "    link_latency: 150 ns\njobs:\n  - training:\n"
                      "      workload: resnet50\n      algorithms: [ring]\n";
  expect_refused("run " + f.string(), "about 4.64e+11 messages");
}

TEST(WorkGuard, ProgressLineShowsSimulatedTime) {
  // A run long enough to tick (about a second, several million events): set-up is named, then
  // the simulated time.
  const auto r = collsim("train -w resnet50 -t torus:16x16 -a ring --progress --no-layers");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("resnet50 on torus:16x16: ring: setting up"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" simulated"), std::string::npos) << r.err;
}

}  // namespace
