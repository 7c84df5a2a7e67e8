// The collective sweep's choices before anything runs: what `-a all` picks, skips and warns
// about, and the checks that refuse a job up front.
#include "jobs/collective_sweep.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "topology/builders.hpp"

namespace collsim::jobs {
namespace {

using collective::Collective;

const core::Bandwidth kBw{16e9};
const core::Time kLat = core::Time::from_ns(150);

bool has(const std::vector<collective::AlgorithmChoice>& a, const std::string& name) {
  return std::any_of(a.begin(), a.end(), [&](const auto& c) { return c.info->name == name; });
}

TEST(CollectiveSweep, AllWarnsOnlyPastTheQuadraticThresholdOnMultiHopNetworks) {
  // direct: every rank talks to every other. 17x17: 289 x 288 = 83,232 rank pairs, under the
  // 100,000 threshold; 18x18: 324 x 323 = 104,652, over it.
  std::vector<std::string> skipped, warnings;
  const auto small = topology::from_compact("torus:17x17", kBw, kLat);
  EXPECT_TRUE(has(expand_all_algorithms(small, Collective::AllReduce, 1, &skipped, "all",
                                        &warnings),
                  "direct"));
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  const auto big = topology::from_compact("torus:18x18", kBw, kLat);
  expand_all_algorithms(big, Collective::AllReduce, 1, &skipped, "all", &warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind("direct: 324 ranks each talk to 323 peers (104652 rank pairs) over "
                              "up to 18 hops on torus:18x18",
                              0),
            0u)
      << warnings[0];
}

TEST(CollectiveSweep, AllSkipsWhatCannotRunAndSaysWhy) {
  // halving-doubling needs a power-of-two rank count; on 6 NPUs it is skipped with the reason.
  std::vector<std::string> skipped;
  const auto t = topology::from_compact("ring:6", kBw, kLat);
  const auto chosen = expand_all_algorithms(t, Collective::AllReduce, 1, &skipped);
  EXPECT_TRUE(has(chosen, "ring"));
  EXPECT_FALSE(has(chosen, "halving-doubling"));
  const auto it = std::find_if(skipped.begin(), skipped.end(), [](const std::string& s) {
    return s.rfind("halving-doubling: ", 0) == 0;
  });
  ASSERT_NE(it, skipped.end());
  EXPECT_NE(it->find("power-of-two"), std::string::npos) << *it;
}

TEST(CollectiveSweep, HierarchicalOnAGroupIsRefusedBeforeRunning) {
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  CollectiveJob job;
  job.sizes = {core::Bytes{1 << 20}};
  job.algorithms = {collective::parse_algorithm("hierarchical", "a")};
  job.group = "dim:0";
  EXPECT_THROW(check_job(t, job), core::InputError);
  job.group = "all";
  EXPECT_NO_THROW(check_job(t, job));
}

}  // namespace
}  // namespace collsim::jobs
