// --jobs (issue 35): points on threads come back in input order, costliest first, and a failed or
// interrupted sweep keeps what --jobs 1 keeps (cli/parallel_points.hpp); the command line gives
// the same bytes with --jobs 1 and --jobs 2 for collective, run (with a concurrent job) and train.
#include "cli/parallel_points.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cli_run.hpp"
#include "core/error.hpp"

namespace collsim::cli {
namespace {

using test::collsim;

TEST(ParallelPoints, DeliversEveryPointInInputOrderOnTheCallingThread) {
  const std::size_t n = 40;
  std::vector<int> value(n, -1);
  std::vector<std::size_t> order;
  const auto caller = std::this_thread::get_id();
  PointsOptions po;
  po.jobs = 4;
  run_points(
      n, po,
      [&](std::size_t i, const PointStop& stop) {
        stop.check(i);
        std::this_thread::sleep_for(std::chrono::microseconds((n - i) * 50));
        value[i] = static_cast<int>(i * i);
      },
      [&](std::size_t i) {
        EXPECT_EQ(std::this_thread::get_id(), caller);
        EXPECT_EQ(value[i], static_cast<int>(i * i));
        order.push_back(i);
      });
  ASSERT_EQ(order.size(), n);
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(order[i], i);
}

TEST(ParallelPoints, CostliestPointsStartFirst) {
  // The start order: by cost, ties in input order; no costs: input order.
  EXPECT_EQ(start_order(5, {1, 5, 3, 5, 0}), (std::vector<std::size_t>{1, 3, 2, 0, 4}));
  EXPECT_EQ(start_order(3, {}), (std::vector<std::size_t>{0, 1, 2}));
  // Whatever the threads' timing, every point runs exactly once.
  std::vector<std::atomic<int>> runs(50);
  PointsOptions po;
  po.jobs = 3;
  for (std::size_t i = 0; i < runs.size(); ++i) po.cost.push_back(static_cast<double>(i % 7));
  std::size_t delivered = 0;
  run_points(
      runs.size(), po, [&](std::size_t i, const PointStop&) { ++runs[i]; },
      [&](std::size_t) { ++delivered; });
  EXPECT_EQ(delivered, runs.size());
  for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
}

TEST(ParallelPoints, AFailureKeepsThePointsBeforeItAndRethrowsIts) {
  // Point 3 fails at once; the slower points before it still finish and are delivered, none
  // after it is, and point 3's error is the one thrown: what --jobs 1 shows.
  for (unsigned jobs : {1u, 2u, 3u}) {
    std::vector<std::size_t> delivered;
    PointsOptions po;
    po.jobs = jobs;
    try {
      run_points(
          8, po,
          [&](std::size_t i, const PointStop& stop) {
            if (i == 3) throw core::SimulationError("point 3 failed");
            if (i == 5) throw core::SimulationError("point 5 failed");
            for (int k = 0; k < 20; ++k) {
              std::this_thread::sleep_for(std::chrono::milliseconds(1));
              stop.check(i);
            }
          },
          [&](std::size_t i) { delivered.push_back(i); });
      ADD_FAILURE() << "no exception with --jobs " << jobs;
    } catch (const core::SimulationError& e) {
      EXPECT_STREQ(e.what(), "point 3 failed") << jobs;
    }
    EXPECT_EQ(delivered, (std::vector<std::size_t>{0, 1, 2})) << jobs;
  }
}

TEST(ParallelPoints, AnInterruptKeepsEveryFinishedPointInInputOrder) {
  // Points 0 and 2 finish; point 1, once both have, is interrupted: 0 and 2 are delivered, in
  // order, then the interrupt is rethrown; point 3, still running, stops at its next check.
  std::vector<std::size_t> delivered;
  std::atomic<int> finished{0};
  PointsOptions po;
  po.jobs = 4;
  EXPECT_THROW(run_points(
                   4, po,
                   [&](std::size_t i, const PointStop& stop) {
                     if (i == 1) {
                       while (finished < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                       throw core::Interrupted("interrupted (test)");
                     }
                     if (i == 3) {
                       for (int k = 0; k < 100000; ++k) {
                         std::this_thread::sleep_for(std::chrono::milliseconds(1));
                         stop.check(i);
                       }
                       ADD_FAILURE() << "point 3 was not stopped";
                     }
                     ++finished;  // points 0 and 2: no check left, so they finish
                   },
                   [&](std::size_t i) { delivered.push_back(i); }),
               core::Interrupted);
  EXPECT_EQ(delivered, (std::vector<std::size_t>{0, 2}));
}

TEST(ParallelPoints, JobsZeroIsTheCoresAndTooManyIsRefused) {
  EXPECT_EQ(resolve_jobs(0), default_jobs());
  EXPECT_GE(default_jobs(), 1u);
  EXPECT_EQ(resolve_jobs(3), 3u);
  EXPECT_THROW(resolve_jobs(100000), core::InputError);
}

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
