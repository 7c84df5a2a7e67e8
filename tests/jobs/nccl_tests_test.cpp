// nccl-tests emulated (jobs/nccl_tests.hpp) and the calibration checked against the one measured
// log: 8 x H100 SXM, NCCL 2.29.2, nccl-tests 2.17.8, 32 MiB to 16 GiB (docs/nccl.md).
#include "jobs/nccl_tests.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"
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
  // nccl-tests reads a double and truncates number x unit (parsesize).
  EXPECT_EQ(parse_nccl_size("1.5K", "-b"), 1536u);
  EXPECT_EQ(parse_nccl_size("3.5M", "-b"), 3670016u);
  EXPECT_EQ(parse_nccl_size("0.1K", "-b"), 102u);
  EXPECT_THROW(parse_nccl_size("3.5X", "-b"), core::InputError);
  EXPECT_THROW(parse_nccl_size("M", "-b"), core::InputError);
  EXPECT_THROW(parse_nccl_size("", "-b"), core::InputError);
  EXPECT_THROW(parse_nccl_size("1.2.3", "-b"), core::InputError);
  EXPECT_THROW(parse_nccl_size("99999999999999999999", "-e"), core::InputError);
}

// The sizes and counts one binary prints for one command line.
std::vector<std::pair<std::uint64_t, std::uint64_t>> sizes(nccl::Op op, const char* type,
                                                           std::uint64_t b, std::uint64_t e,
                                                           std::uint64_t f, std::uint64_t i,
                                                           std::uint32_t gpus = 8,
                                                           std::uint32_t nodes = 1) {
  const nccl::Context ctx{topology::find_gpu_system("h100", "--system"), {gpus, nodes}, {}};
  NcclTestsOptions opt;
  opt.op = op;
  opt.type = type;
  opt.min_bytes = b;
  opt.max_bytes = e;
  opt.factor = f;
  opt.increment = i;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for (const NcclTestsRow& r : run_nccl_tests(opt, ctx)) out.emplace_back(r.bytes, r.count);
  return out;
}
using Sizes = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

// nccl-tests' own arithmetic (src/common.cu TimeTest and setupArgs, the binaries'
// *GetCollByteCount): size from -b, then x -f while -f > 1, else + -i (default 1M, -f 1);
// all-gather, reduce-scatter and alltoall round count / ranks down to whole 16-byte lines and
// print that per-rank count with the whole buffer; all-reduce and sendrecv every element.
TEST(NcclTests, SizesRowForRowAsNcclTestsForEveryBinary) {
  using nccl::Op;
  // Default step: -i 1M when no -f is given.
  EXPECT_EQ(sizes(Op::AllReduce, "float", 1 << 20, 4 << 20, 1, 1 << 20),
            (Sizes{{1048576, 262144}, {2097152, 524288}, {3145728, 786432}, {4194304, 1048576}}));
  // -f 3 from 1K: 1024, 3072, 9216 (the next, 27648, is above -e 10K).
  EXPECT_EQ(sizes(Op::AllReduce, "float", 1024, 10240, 3, 1 << 20),
            (Sizes{{1024, 256}, {3072, 768}, {9216, 2304}}));
  // all-gather, float, 8 ranks: 1000 B = 250 floats, 31 per rank, down to 28 (4-float lines).
  EXPECT_EQ(sizes(Op::AllGather, "float", 1000, 1000, 2, 0), (Sizes{{896, 28}}));
  // reduce-scatter, double, 8 ranks, -i 100: 12, 25, 37 doubles -> 1, 3, 4 per rank -> 0, 2, 4.
  EXPECT_EQ(sizes(Op::ReduceScatter, "double", 100, 300, 1, 100),
            (Sizes{{0, 0}, {128, 2}, {256, 4}}));
  // alltoall, int8, 16 ranks on 2 nodes: 1000 B -> 62 per peer -> 48 (16-byte lines); 1 KiB: 64.
  EXPECT_EQ(sizes(Op::AllToAll, "int8", 1000, 1024, 1, 24, 8, 2), (Sizes{{768, 48}, {1024, 64}}));
  // sendrecv, half: every element, odd byte dropped: 1001 B -> 500 halves.
  EXPECT_EQ(sizes(Op::SendRecv, "half", 1001, 1001, 2, 0), (Sizes{{1000, 500}}));
  // The measured log's own rows: all-gather of doubles on 8 ranks from 32 MiB by -f 2.
  const Sizes ag = sizes(Op::AllGather, "double", 32 << 20, 16ull << 30, 2, 0);
  ASSERT_EQ(ag.size(), 10u);
  EXPECT_EQ(ag.front(), (std::pair<std::uint64_t, std::uint64_t>{33554432, 524288}));
  EXPECT_EQ(ag.back(), (std::pair<std::uint64_t, std::uint64_t>{17179869184, 268435456}));
  // A step of 0 bytes never reaches -e: refused, naming -i.
  EXPECT_THROW(sizes(Op::AllReduce, "float", 1024, 2048, 1, 0), core::InputError);
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
    // nccl-tests' widths: 12-wide size and count, then the type in 8 and "    N/A" after busbw.
    EXPECT_EQ(line.substr(0, 12), "    33554432");
    EXPECT_NE(line.find("    N/A  "), std::string::npos) << line;
  }
  EXPECT_EQ(data, 1);
  // The log reader reads what the printer wrote: sizes, ranks, nodes and the preset's device.
  const auto runs = read_nccl_log(out.str(), "printed");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].bytes, std::vector<std::uint64_t>{33554432u});
  EXPECT_EQ(runs[0].ranks, 8u);
  EXPECT_EQ(runs[0].nodes, 1u);
  EXPECT_EQ(system_for_device(runs[0].device), "h100");
  EXPECT_NE(out.str().find("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : "),
            std::string::npos);
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
    read_nccl_log(
        "# Collective test starting: all_gather_perf\n 1048576 x float none -1 abc 1 "
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

// With NCCL's tuner latencies (tuner.hpp) in place of the old fitted fixed time, two rows at
// 32 MiB land on opposite sides of 10%: NVLS's tuner latency, 25 us, is below what the log
// implies for it (about 50 us), the Simple ring's, 32.2 us, above what reduce-scatter implies
// (about 25 us); one α cannot serve both (docs/nccl.md "Calibration"). Every other row is within
// 10%, every collective's geomean within the 5% goal.
TEST(NcclCalibration, H100LogWithinTenPercentFrom32MiBKnownDeviationNvlsAndRingAt32MiB) {
  const auto dir = test::real_inputs("COLLSIM_NCCL_TESTS", "nccl-tests");
  if (dir.empty()) GTEST_SKIP() << test::no_real_inputs("COLLSIM_NCCL_TESTS", "nccl-tests");
  const auto errors = h100_errors(dir);
  ASSERT_EQ(errors.size(), 5u);
  for (const auto& [binary, rows] : errors) {
    EXPECT_EQ(rows.size(), 10u) << binary;
    double log_sum = 0;
    for (const auto& [bytes, err] : rows) {
      const bool named =
          bytes == (32u << 20) && (binary == "all_reduce_perf" || binary == "reduce_scatter_perf");
      if (named) {
        EXPECT_GT(std::abs(err), 0.10) << binary;  // the deviation, on its side
        EXPECT_LT(std::abs(err), 0.13) << binary;
        EXPECT_EQ(err < 0, binary == "all_reduce_perf");
      } else {
        EXPECT_LT(std::abs(err), 0.10) << binary << " " << bytes << " B: " << err;
      }
      log_sum += std::abs(std::log1p(err));
    }
    const double geo = std::expm1(log_sum / static_cast<double>(rows.size()));
    EXPECT_LT(geo, 0.051) << binary;  // goal 5%: all-reduce 5.0%, the others 1.4-3.8%
    EXPECT_GT(geo, 0.005) << binary;  // a perfect fit of 50 rows with 2 parameters: suspicious
  }
  // The sendrecv rows at 32-128 MiB, 48-72% fast before NCCL's channel rule was in the time,
  // are within 3% with it (4, 4 and 8 channels of one NVLink each).
  for (const auto& [bytes, err] : errors.at("sendrecv_perf")) {
    if (bytes <= (128u << 20)) {
      EXPECT_LT(std::abs(err), 0.03) << bytes;
    }
  }
}

}  // namespace
}  // namespace collsim::jobs
