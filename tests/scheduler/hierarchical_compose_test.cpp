// The composed hierarchical collective (hierarchical_compose.hpp) through the symbolic verifier:
// the stages of every chunk, in baseline, Themis and per-dimension all-reduce orders, together
// make the collective they claim to (collective.hpp conventions), on tori and on mixed
// ring / fc / switch platforms.
#include "scheduler/hierarchical_compose.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "collective/ir/verifier.hpp"
#include "core/error.hpp"
#include "topology/builders.hpp"

namespace collsim::scheduler {
namespace {

using collective::Collective;

const core::Time kLat = core::Time::from_ns(150);

HierarchicalSpec spec(Collective c, InterDimPolicy policy, std::uint32_t chunks) {
  HierarchicalSpec s;
  s.collective = c;
  s.size = core::Bytes{1 << 20};
  s.chunks = chunks;
  s.schedule = policy;
  return s;
}

// Bandwidths that make Themis give chunks different orders: the first dimension fast.
topology::Topology mixed() {
  using topology::DimKind;
  return topology::hierarchical(
      {topology::DimSpec{DimKind::Ring, 4, core::Bandwidth{50e9}, kLat, 2},
       topology::DimSpec{DimKind::FullyConnected, 2, core::Bandwidth{10e9}, kLat, 1},
       topology::DimSpec{DimKind::Switch, 4, core::Bandwidth{40e9}, kLat, 1}});
}

TEST(HierarchicalCompose, EveryCollectiveAndScheduleVerifies) {
  const auto t = mixed();
  for (Collective c : {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather}) {
    for (InterDimPolicy p :
         {InterDimPolicy::Baseline, InterDimPolicy::Themis, InterDimPolicy::PerDimAllReduce}) {
      HierarchicalSpec s = spec(c, p, 8);
      s.dim_algorithms = {collective::parse_algorithm("ring", "t")};  // one stream per rank
      const collective::Program prog = compose_program(t, s);
      const collective::Verdict v = collective::verify(prog);
      EXPECT_TRUE(v.ok) << collective::to_string(c) << " " << to_string(p) << ": " << v.reason;
      EXPECT_EQ(prog.num_pieces, 8u * 32u * 1u);  // one-way rings: no refinement
    }
  }
}

TEST(HierarchicalCompose, ThemisOrdersDifferPerChunkAndStillVerify) {
  // The plan really mixes orders (else the test above would not test the relabelling).
  const auto t = mixed();
  HierarchicalSpec s = spec(Collective::ReduceScatter, InterDimPolicy::Themis, 8);
  s.dim_algorithms = {collective::parse_algorithm("ring", "t")};
  HierarchicalSpec p = s;
  prepare(t, p);
  const Plan plan = plan_chunks(dim_models(t, p.collective, p.dim_algorithms), p.collective, p.size,
                                p.chunks, p.schedule);
  std::set<std::vector<std::uint32_t>> orders;
  for (const auto& cp : plan.chunks) orders.insert(cp.dims);
  EXPECT_GE(orders.size(), 2u);
  EXPECT_TRUE(collective::verify(compose_program(t, s)).ok);
  // Torus 4x4 with one-way rings, Themis all-reduce in 4 chunks.
  const auto torus = topology::from_compact("torus:4x4", core::Bandwidth{16e9}, kLat);
  HierarchicalSpec ts = spec(Collective::AllReduce, InterDimPolicy::Themis, 4);
  ts.dim_algorithms = {collective::parse_algorithm("ring", "t"),
                       collective::parse_algorithm("ring", "t")};
  EXPECT_TRUE(collective::verify(compose_program(torus, ts)).ok);
}

TEST(HierarchicalCompose, AllToAllDeliversEveryItemThroughTheDimensions) {
  // Ring all-to-all on the ring dimension, direct on fc and switch (ACE Table 5), baseline and
  // Themis orders: every (source, destination) piece ends at its destination.
  const auto t = mixed();
  for (InterDimPolicy p : {InterDimPolicy::Baseline, InterDimPolicy::Themis}) {
    const collective::Program prog = compose_program(t, spec(Collective::AllToAll, p, 2));
    EXPECT_EQ(prog.num_pieces, 2u * 32 * 32);
    const collective::Verdict v = collective::verify(prog);
    EXPECT_TRUE(v.ok) << to_string(p) << ": " << v.reason;
  }
  collective::Program broken =
      compose_program(t, spec(Collective::AllToAll, InterDimPolicy::Baseline, 1));
  broken.ops[7].pop_back();
  EXPECT_FALSE(collective::verify(broken).ok);
}

TEST(HierarchicalCompose, ABrokenCompositionFails) {
  // Dropping one NPU's last op (an all-gather recv) must be caught: the check can fail.
  const auto t = mixed();
  HierarchicalSpec s = spec(Collective::AllReduce, InterDimPolicy::Themis, 2);
  s.dim_algorithms = {collective::parse_algorithm("ring", "t")};
  collective::Program prog = compose_program(t, s);
  prog.ops[5].pop_back();
  EXPECT_FALSE(collective::verify(prog).ok);
  // Table 1's defaults (ring both ways on the ring dimension, direct on fc, halving-doubling on
  // the switch) compose too.
  const auto v = collective::verify(
      compose_program(t, spec(Collective::AllReduce, InterDimPolicy::Themis, 4)));
  EXPECT_TRUE(v.ok) << v.reason;
}

}  // namespace
}  // namespace collsim::scheduler

namespace collsim::scheduler {
namespace {

// Issue 28: per-dimension overrides for any dimension, not just dim0..dim3. A 5-D and a 6-D torus
// compose and verify with the Table 1 defaults and with an override of their last dimension.
TEST(HierarchicalCompose, FiveAndSixDimensionsVerifyWithAndWithoutOverrides) {
  for (const char* shape : {"torus:2x2x2x2x2", "torus:2x2x2x2x2x2"}) {
    const auto t = topology::from_compact(shape, core::Bandwidth{16e9}, kLat);
    const std::size_t last = t.dimensions().size() - 1;
    // The choice, and the algorithm its last dimension gets (default: ring both ways, Table 1).
    const std::pair<std::string, std::string> cases[] = {
        {"hierarchical", "ring:directions=2"},
        {fmt::format("hierarchical:dim{}=ring", last), "ring"},
        {fmt::format("hierarchical:dim{}=direct:dim0=ring", last), "direct"}};
    for (const auto& c : cases) {
      HierarchicalSpec s = spec_from_choice(collective::parse_algorithm(c.first, "t"),
                                            Collective::AllReduce, core::Bytes{1 << 20}, 2);
      const collective::Verdict v = collective::verify(compose_program(t, s));
      EXPECT_TRUE(v.ok) << shape << " " << c.first << ": " << v.reason;
      prepare(t, s);
      ASSERT_EQ(s.dim_algorithms.size(), last + 1);
      EXPECT_EQ(s.dim_algorithms[last].label, c.second) << c.first;
      EXPECT_EQ(s.dim_algorithms[1].label, "ring:directions=2") << c.first;
    }
  }
}

}  // namespace
}  // namespace collsim::scheduler
