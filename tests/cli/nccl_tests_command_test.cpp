// `collsim nccl-tests X_perf` and `collsim validate nccl` from the command line (docs/nccl.md).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
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

TEST(NcclTestsCommand, EveryBinaryOnFourH100sPrintsEverySize) {
  for (const char* bin : {"all_reduce_perf", "all_gather_perf", "reduce_scatter_perf",
                          "alltoall_perf", "sendrecv_perf"}) {
    const auto r =
        collsim(std::string("nccl-tests ") + bin + " --system h100 -g 4 -b 32M -e 16G -f 2");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(data_rows(r.out), 10) << bin;
    EXPECT_NE(r.out.find("# Collective test starting: " + std::string(bin)), std::string::npos);
  }
  // No -f: nccl-tests' default step, -i 1M (step: 1048576(bytes)): 1M, 2M, 3M, 4M.
  const auto r = collsim("nccl-tests all_gather_perf --system h100 -b 1M -e 4M");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(data_rows(r.out), 4);
  EXPECT_NE(r.out.find("step: 1048576(bytes)"), std::string::npos);
  EXPECT_NE(r.out.find("     3145728         98304"), std::string::npos) << r.out;
}

// `collsim validate nccl` reads collsim's own nccl-tests output as a log (sizes, ranks, nodes,
// device) and finds every row at 0.0%: the emulated output is a log like nccl-tests'.
TEST(NcclTestsCommand, ValidateReadsItsOwnOutputBackRowForRow) {
  const std::filesystem::path log =
      std::filesystem::temp_directory_path() / "collsim-nccl-roundtrip.log";
  for (const char* args : {"all_reduce_perf --system h100 --nodes 2 -g 4 -b 1K -e 64M -f 8",
                           "alltoall_perf --system a100 -g 8 -b 1000 -e 5000 -i 1000 -d int8"}) {
    const auto r = collsim(std::string("nccl-tests ") + args);
    ASSERT_EQ(r.status, 0) << r.err;
    {
      std::ofstream f(log);
      f << r.out;
    }
    const auto v = collsim("validate nccl '" + log.string() + "'");
    ASSERT_EQ(v.status, 0) << v.err;
    EXPECT_EQ(data_rows(v.out), data_rows(r.out)) << args;
    // Per test: "# X_perf: N rows, geomean |error| 0.0%, worst +0.0% at ..." (the printed times'
    // last digit may leave -0.0%).
    const auto at = v.out.find("geomean |error| 0.0%, worst ");
    ASSERT_NE(at, std::string::npos) << v.out;
    const double worst = std::stod(v.out.substr(at + 28, 6));
    EXPECT_LT(std::abs(worst), 0.05) << v.out;
  }
  std::filesystem::remove(log);
}

TEST(NcclTestsCommand, PresetsAndMultiNodeShapesRun) {
  for (const char* args :
       {"--system h100 --nodes 10 -g 8 -e 16G", "--system a100 -g 8 -e 8G",
        "--system h200 -g 8 -e 8G", "--system gb200 -g 4 -e 8G",
        "--system a100 --nodes 4 -g 8 -e 8G", "--system h100 -g 8 -e 8G --protocol LL128"}) {
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
  const auto preset = collsim(
      "nccl-tests all_reduce_perf --system h100 --nodes 10 -g 8 -b 4G -e 4G --algorithm ring");
  ASSERT_EQ(preset.status, 0) << preset.err;
  // The file's 450 GB/s read as NCCL reads a Hopper node (x 20.6/25) and 400 Gb/s NICs: the
  // preset's bandwidths, so the same ring time but for the file's 2 us network device latency,
  // which NCCL's tuner adds to each of the 18 network steps (twice for Simple: 72 us of 22 ms).
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
  EXPECT_GT(a, b);
  EXPECT_LT(a, 1.01 * b);
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
  r = collsim("nccl-tests all_reduce_perf -b 3.5X");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("-b"), std::string::npos) << r.err;
  r = collsim("nccl-tests all_reduce_perf -b 1K -e 2K -i 0");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("-i"), std::string::npos) << r.err;
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
  const auto r =
      collsim("validate nccl '" + (dir / "h100-sxm-8gpu-nccl-2.29.2.log").string() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(data_rows(r.out), 50);
  EXPECT_NE(r.out.find("# all_reduce_perf: 10 rows, geomean |error|"), std::string::npos);
  EXPECT_NE(r.out.find(" nvls/Simple "), std::string::npos);
  // Options of `validate nccl` itself are accepted (they were once refused as unknown).
  const auto a = collsim("validate nccl --system h100 '" +
                         (dir / "h100-sxm-8gpu-nccl-2.29.2.log").string() + "'");
  EXPECT_EQ(a.status, 0) << a.err;
}

// `validate nccl LOG --fit` fits η and α on the log (tools/nccl_fit.py calls it) and gives the
// calibration the model ships with (collective/nccl/model.hpp).
TEST(NcclTestsCommand, FitOnTheH100LogGivesTheShippedCalibration) {
  const auto dir = real_inputs("COLLSIM_NCCL_TESTS", "nccl-tests");
  if (dir.empty()) GTEST_SKIP() << no_real_inputs("COLLSIM_NCCL_TESTS", "nccl-tests");
  const auto r =
      collsim("validate nccl '" + (dir / "h100-sxm-8gpu-nccl-2.29.2.log").string() + "' --fit");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("efficiency 0.949  overhead 9.0 us"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("over 50 rows"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace collsim::test
