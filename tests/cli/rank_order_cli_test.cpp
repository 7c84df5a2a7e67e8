// `-g npus:...` is ranks in the order written (issue 51): ring follows it also when the list names
// every NPU, as it does when one NPU is left out.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "cli_run.hpp"

namespace collsim::test {
namespace {

// time_ns (the 9th column) of the first data row of a CSV; no field before it has a comma.
double time_ns(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  std::getline(in, line);
  std::istringstream row(line);
  std::string field;
  for (int i = 0; i < 9; ++i) std::getline(row, field, ',');
  return std::stod(field);
}

TEST(RankOrderCli, FatTreeRingFollowsAFullListAcrossTheSpines) {
  // fattree:4x2: 4 leaves of 4 NPUs. The list 0,4,8,12,1,5,... puts consecutive ranks on
  // different leaves, so every ring step crosses the spines; the topology's order (0,1,2,...)
  // keeps three of every four steps on a leaf. The times: 15.66 ms for the 15-NPU list
  // (without NPU 15), 7.88 ms for the topology order. The full list must take the rank order's
  // time: within 10% of the 15-NPU list, and far from the topology order's.
  const std::string run = "collective -t fattree:4x2 -c all-reduce -a ring -s 64MiB -b flow "
                          "--format csv -g npus:";
  const Result all = collsim(run + "0,4,8,12,1,5,9,13,2,6,10,14,3,7,11,15");
  const Result fifteen = collsim(run + "0,4,8,12,1,5,9,13,2,6,10,14,3,7,11");
  const Result topo_order = collsim(run + "0-15");
  const Result dflt = collsim(replaced(run, "-g npus:", "-g all"));
  ASSERT_EQ(all.status, 0) << all.err;
  ASSERT_EQ(fifteen.status, 0) << fifteen.err;
  ASSERT_EQ(topo_order.status, 0) << topo_order.err;
  ASSERT_EQ(dflt.status, 0) << dflt.err;
  const double t_all = time_ns(all.out), t_15 = time_ns(fifteen.out);
  EXPECT_NEAR(t_all / t_15, 1.0, 0.10) << t_all << " vs " << t_15;
  // 0-15 in order is the fat tree's own ring order, as `all` is: the same time, about half.
  EXPECT_EQ(time_ns(topo_order.out), time_ns(dflt.out));
  EXPECT_LT(time_ns(dflt.out), 0.6 * t_all);
}

}  // namespace
}  // namespace collsim::test
