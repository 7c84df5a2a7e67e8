// Work guards of the commands that run no collective (issue 51): multitree, inventory,
// nccl-tests and plot estimate their work first and refuse past --max-messages / --max-memory
// with exit 2 and the estimate; the flow backend's work per route link is estimated before a run
// and its max-min solver is bounded while it runs. Costs bounded by CPU time, never wall-clock.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_run.hpp"

namespace collsim::test {
namespace {

void expect_refused(const std::string& args, const std::string& says, double cpu = 1.0) {
  const double t0 = children_cpu_seconds();
  const Result r = collsim(args);
  const double used = children_cpu_seconds() - t0;
  EXPECT_EQ(r.status, 2) << args << ": " << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << args << ": " << r.err;
  EXPECT_TRUE(r.out.empty()) << args;
  EXPECT_LT(used, cpu) << args;
}

TEST(WorkGuardsCli, MultitreeEstimatesFirst) {
  // 262,144 NPUs on 65,536 switches: 2.1e9 links between the layers, refused before building.
  expect_refused("multitree --topology bigraph:65536x4", "2148007936 directed links");
  // 32x32 torus: 2 x 1024 x 1023 = 2.1e6 tree edges.
  expect_refused("multitree --topology torus:32x32 --max-messages 1e6",
                 "about 2.1e+06 tree edges, over the limit of 1e+06 (--max-messages");
  expect_refused("multitree --topology torus:8x8 --max-memory 1MiB", "(--max-memory)");
  const Result ok = collsim("multitree --topology torus:4x4 --max-messages 480 --check");
  EXPECT_EQ(ok.status, 0) << ok.err;  // 2 x 16 x 15 = 480 edges: at the limit
  EXPECT_EQ(collsim("multitree --topology torus:4x4 --max-messages 479 --check").status, 2);
}

TEST(WorkGuardsCli, MultitreeOnAThousandNpuRingFinishesInCpuSeconds) {
  // The fuzz timeout: the trees of bidir-ring:1024 took 2.1e9 parent checks; a tree's
  // surrounded members are skipped now (the same trees).
  const double t0 = children_cpu_seconds();
  const Result r = collsim("multitree --topology bidir-ring:1024 --npu 8");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("bidir-ring:1024 (1024 NPUs), mode reference, kary 5: T = 512"),
            std::string::npos)
      << r.out.substr(0, 300);
  EXPECT_LT(children_cpu_seconds() - t0, 5.0);
}

TEST(WorkGuardsCli, InventoryNcclTestsAndPlotRefusePastTheirLimits) {
  // fc:64: 64 x 63 directed links.
  expect_refused("inventory -t fc:64 --max-messages 4000", "about 4032 directed links");
  expect_refused("inventory -t fc:64 --max-memory 1MiB", "(--max-memory)");
  EXPECT_EQ(collsim("inventory -t fc:64 --max-messages 4032").status, 0);
  // -i 1 from 1 B to 16 GiB: 17,179,869,184 rows.
  expect_refused("nccl-tests all_reduce_perf -b 1 -e 16G -i 1 -f 0", "about 1.72e+10 rows");
  // 1 MiB to 1 GiB by x2: 11 rows.
  expect_refused("nccl-tests all_reduce_perf -b 1M -e 1G -f 2 --max-messages 10",
                 "about 11 rows, over the limit of 10");
  EXPECT_EQ(collsim("nccl-tests all_reduce_perf -b 1M -e 1G -f 2 --max-messages 11").status, 0);
  const auto dir = std::filesystem::temp_directory_path() / "collsim_work_guards";
  std::filesystem::create_directories(dir);
  const std::string csv = (dir / "r.csv").string(), png = (dir / "r.png").string();
  {
    std::ofstream f(csv);
    f << "backend,algorithm,size_bytes,algbw_GBps\n";
    for (int i = 0; i < 100; ++i) f << "flow,ring," << 1024 * (i + 1) << ",1.0\n";
  }
  expect_refused("plot " + csv + " -o " + png + " --max-messages 100",
                 "about 101 lines of input, over the limit of 100");
  expect_refused("plot " + csv + " -o " + png + " --max-memory 100MiB", "(--max-memory)");
  EXPECT_FALSE(std::filesystem::exists(png));
  std::filesystem::remove_all(dir);
}

TEST(WorkGuardsCli, FlowBackendCountsRouteLinksBeforeARun) {
  // Direct on ring:1024: 2.1e6 messages of 512 links on average; the flow backend's work is per
  // route link (1.07e9), over the default 5e8: refused at once with the estimate.
  expect_refused("collective -t ring:1024 -c all-reduce -a direct -s 1B",
                 "about 1.07e+09 route links on the flow backend", 3.0);
  // The same job on ring:64 is 8064 messages of 32 links: refused by a limit between them.
  expect_refused("collective -t ring:64 -c all-reduce -a direct -s 1KiB --max-messages 1e5",
                 "route links on the flow backend");
  EXPECT_EQ(collsim("collective -t ring:64 -c all-reduce -a direct -s 1KiB --max-messages 1e5 "
                    "-b analytical")
                .status,
            0);
}

TEST(WorkGuardsCli, FlowSolverStopsAtItsWorkBound) {
  // The double binary tree's few messages on a long ring share long routes: every rate change
  // is a global recomputation. At --max-messages 1.1e6 it passes the estimate (8160 messages,
  // 1.05e6 route links), but its solver work passes the bound that limit sets (20 flow-link
  // visits per message: 2.2e7) long before the run ends: exit 2, naming the solver. (At 1e7 it
  // finishes, in about 2 s of CPU.)
  expect_refused("collective -t ring:256 -c all-reduce -a double-binary-tree -s 1MiB "
                 "--max-messages 1.1e6",
                 "max-min solver passed its work bound", 5.0);
}

}  // namespace
}  // namespace collsim::test
