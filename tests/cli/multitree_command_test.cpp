// `collsim multitree` tables stay readable on large networks: every NPU's tree and schedule table
// up to 64 NPUs, one NPU's beyond (N^2 lines otherwise: 120 MB at 1024 NPUs), --npu to choose it.
#include <gtest/gtest.h>

#include <algorithm>

#include "cli_run.hpp"

namespace collsim::test {
namespace {

TEST(MultiTreeCommand, LargeNetworksShowOneNpuUnlessAsked) {
  const auto small = collsim("multitree -t torus:4x4");
  ASSERT_EQ(small.status, 0) << small.err;
  EXPECT_NE(small.out.find("  NPU 15\n"), std::string::npos);
  EXPECT_EQ(small.out.find("--npu K shows"), std::string::npos);
  // 128 NPUs: NPU 0's tree (one line) and schedule table (128 Reduce + its Gather lines).
  const auto big = collsim("multitree -t bidir-ring:128");
  ASSERT_EQ(big.status, 0) << big.err;
  EXPECT_NE(big.out.find("(128 NPUs: NPU 0's tree and schedule table only; --npu K shows"),
            std::string::npos)
      << big.out.substr(0, 400);
  EXPECT_NE(big.out.find("  tree   0:"), std::string::npos);
  EXPECT_EQ(big.out.find("  tree   1:"), std::string::npos);
  EXPECT_EQ(big.out.find("  NPU 1\n"), std::string::npos);
  EXPECT_LT(std::count(big.out.begin(), big.out.end(), '\n'), 300);
  const auto one = collsim("multitree -t bidir-ring:128 --npu 127");
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_NE(one.out.find("  tree 127:"), std::string::npos);
  EXPECT_NE(one.out.find("  NPU 127\n"), std::string::npos);
  const auto bad = collsim("multitree -t ring:8 --npu 8");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--npu: 8 is not an NPU of ring:8 (0..7)"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace collsim::test
