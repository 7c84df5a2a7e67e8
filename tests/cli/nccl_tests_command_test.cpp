// `collsim nccl-tests X_perf` and `collsim validate nccl` from the command line (docs/nccl.md).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "cli_run.hpp"
#include "real_inputs.hpp"

namespace collsim::test {
namespace {

int data_rows(const std::string& out) {
  std::istringstream in(out);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) n += !line.empty() && line[0] != '#';
  return n;
}

TEST(NcclTestsCommand, EveryBinaryOnFourH100sPrintsEverySizeInSeconds) {
  for (const char* bin : {"all_reduce_perf", "all_gather_perf", "reduce_scatter_perf",
                          "alltoall_perf", "sendrecv_perf"}) {
    const double t0 = children_cpu_seconds();  // CPU time: load-independent
    const auto r = collsim(std::string("nccl-tests ") + bin +
                           " --system h100 -g 4 -b 32M -e 16G -f 2");
    const double s = children_cpu_seconds() - t0;
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(data_rows(r.out), 10) << bin;
    EXPECT_NE(r.out.find("# Collective test starting: " + std::string(bin)), std::string::npos);
    EXPECT_LT(s, 5.0) << bin;
  }
}

TEST(NcclTestsCommand, PresetsAndMultiNodeShapesRun) {
  for (const char* args : {"--system h100 --nodes 10 -g 8 -e 16G", "--system a100 -g 8 -e 8G",
                           "--system h200 -g 8 -e 8G", "--system gb200 -g 4 -e 8G",
                           "--system a100 --nodes 4 -g 8 -e 8G",
                           "--system h100 -g 8 -e 8G --protocol LL128"}) {
    const auto r = collsim(std::string("nccl-tests all_reduce_perf -b 32M -f 2 ") + args);
    ASSERT_EQ(r.status, 0) << args << ": " << r.err;
    EXPECT_GE(data_rows(r.out), 9) << args;
  }
}

TEST(NcclTestsCommand, ScenarioPlatformFileAsTheSystem) {
  // examples/nvswitch-ib-10x8.yaml: 450 GB/s NVSwitch, 400 Gb/s NICs; no NVLS key, so the ring.
  const auto file = collsim(
      "nccl-tests all_reduce_perf --system examples/nvswitch-ib-10x8.yaml --nodes 10 -g 8 "
      "-b 4G -e 4G");
  ASSERT_EQ(file.status, 0) << file.err;
  const auto preset =
      collsim("nccl-tests all_reduce_perf --system h100 --nodes 10 -g 8 -b 4G -e 4G");
  ASSERT_EQ(preset.status, 0) << preset.err;
  // Same bandwidths, so the same bandwidth-bound time to within the latency terms (2 us vs
  // 14 us per network step over 18 steps).
  const auto time_of = [](const std::string& out) {
    std::istringstream in(out);
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty() && line[0] != '#') {
        std::istringstream f(line);
        std::string c;
        for (int i = 0; i < 6; ++i) f >> c;
        return std::stod(c);
      }
    }
    return 0.0;
  };
  const double a = time_of(file.out), b = time_of(preset.out);
  EXPECT_GT(a, 0.98 * b);
  EXPECT_LT(a, b);
  EXPECT_NE(file.out.find("ring/Simple"), std::string::npos);
  const auto bad = collsim("nccl-tests all_reduce_perf --system examples/default.yaml");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("not a switch"), std::string::npos) << bad.err;
}

TEST(NcclTestsCommand, BadInputIsRefusedWithTheOptionNamed) {
  auto r = collsim("nccl-tests allreduce_perf");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("all_reduce_perf"), std::string::npos) << r.err;
  r = collsim("nccl-tests all_reduce_perf --system h100 -g 9");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("-g"), std::string::npos) << r.err;
  r = collsim("nccl-tests all_reduce_perf -b 3.5M");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("-b"), std::string::npos) << r.err;
  r = collsim("nccl-tests all_reduce_perf --system a100 --algorithm nvls");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("in-network reduction"), std::string::npos) << r.err;
  r = collsim("validate nccl /nonexistent.log");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("cannot read"), std::string::npos) << r.err;
}

TEST(NcclTestsCommand, ValidatePrintsPerRowErrorForTheH100Log) {
  const auto dir = real_inputs("COLLSIM_NCCL_TESTS", "nccl-tests");
  if (dir.empty()) GTEST_SKIP() << no_real_inputs("COLLSIM_NCCL_TESTS", "nccl-tests");
  const auto r = collsim("validate nccl '" + (dir / "h100-sxm-8gpu-nccl-2.29.2.log").string() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(data_rows(r.out), 50);
  EXPECT_NE(r.out.find("# all_reduce_perf: 10 rows, geomean |error|"), std::string::npos);
  EXPECT_NE(r.out.find(" nvls/Simple "), std::string::npos);
}

}  // namespace
}  // namespace collsim::test
