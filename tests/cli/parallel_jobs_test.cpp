// --jobs (issue 35) on the command line: the same bytes with --jobs 1 and --jobs 2 for
// collective, run (with a concurrent job) and train, and a failed sweep keeps what --jobs 1 keeps
// (the sweep itself: tests/jobs/sweep_test.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_run.hpp"

namespace collsim::cli {
namespace {

using test::collsim;

TEST(ParallelJobs, CollectiveGivesTheSameBytesWithOneAndTwoThreads) {
  // Unequal points (two algorithms, sizes, backends), the speedup column against the first
  // algorithm, and `-a all`'s skipped rows, in every format.
  for (const std::string format : {"csv", "table", "json"}) {
    const std::string args =
        "collective -t torus:4x4 -a ring,direct,halving-doubling -s 64KiB,1MiB,4MiB "
        "-b analytical,flow -q --format " + format;
    const auto one = collsim(args + " --jobs 1");
    const auto two = collsim(args + " --jobs 2");
    ASSERT_EQ(one.status, 0) << one.err;
    ASSERT_EQ(two.status, 0) << two.err;
    EXPECT_EQ(one.out, two.out) << format;
    EXPECT_GT(one.out.size(), 1000u);
  }
  const auto one = collsim("collective -t mesh:4x4 -a all -s 1MiB,2MiB -q --format csv --jobs 1");
  const auto three = collsim("collective -t mesh:4x4 -a all -s 1MiB,2MiB -q --format csv -j 3");
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(one.out, three.out);
}

TEST(ParallelJobs, RunAndTrainGiveTheSameBytesWithOneAndTwoThreads) {
  const auto dir = std::filesystem::temp_directory_path() / "collsim_parallel_test";
  std::filesystem::create_directories(dir);
  const auto f = dir / "mixed.yaml";
  std::ofstream(f) << "platforms:\n  - topology: torus:4x4\n    link_bandwidth: 16 GB/s\n"
                      "    link_latency: 150 ns\nbackend: [analytical, flow]\njobs:\n"
                      "  - collective: all-reduce\n    algorithms: [ring, direct]\n"
                      "    sizes: [64KiB, 1MiB]\n"
                      "  - concurrent:\n"
                      "      - {collective: all-reduce, group: \"dim:0\", algorithm: ring, "
                      "size: 1 MiB}\n"
                      "      - {collective: all-gather, group: \"dim:1\", algorithm: ring, "
                      "size: 1 MiB}\n";
  for (const std::string format : {"csv", "table"}) {
    const auto one = collsim("run '" + f.string() + "' -q --jobs 1 --format " + format);
    const auto two = collsim("run '" + f.string() + "' -q --jobs 2 --format " + format);
    ASSERT_EQ(one.status, 0) << one.err;
    EXPECT_EQ(one.out, two.out) << format;
  }
  const std::string train =
      "train -w examples/training/toy.yaml -t torus:4x4 -a ring,direct,halving-doubling "
      "--overlap none,layer -b analytical,flow -q --format csv";
  const auto one = collsim(train + " --jobs 1");
  const auto two = collsim(train + " --jobs 2");
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(one.out, two.out);
  EXPECT_GT(one.out.size(), 500u);
  std::filesystem::remove_all(dir);
}

TEST(ParallelJobs, ProgressCountsFinishedPoints) {
  const auto r = collsim("collective -t ring:8 -a ring,direct -s 1MiB --busiest-links 0 "
                         "--progress --jobs 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("[2/2 done, 0 running] ring:8 "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[0/2 done, "), std::string::npos) << r.err;
}

TEST(ParallelJobs, AFailedPointKeepsTheRowsBeforeItAsOneThreadDoes) {
  // The 64 MiB runs exceed the time bound; the 1 MiB rows are kept, whatever finished after.
  const std::string args =
      "collective -t ring:8 -a ring,direct -s 1MiB,64MiB,2MiB --max-time 1ms --format csv -q";
  const auto one = collsim(args + " --jobs 1");
  const auto two = collsim(args + " --jobs 2");
  EXPECT_EQ(one.status, 3) << one.err;
  EXPECT_EQ(two.status, 3) << two.err;
  EXPECT_EQ(one.out, two.out);
  EXPECT_NE(one.out.find(",1048576,"), std::string::npos) << one.out;
  EXPECT_EQ(one.out.find(",2097152,"), std::string::npos) << one.out;
  EXPECT_EQ(one.err, two.err);
}

}  // namespace
}  // namespace collsim::cli
