// WRHT (collective/algorithms/wrht.hpp): the step and wavelength formulas of the poster's Sec. 2
// for a table of (N, m, w) worked out by hand below, the default m, verified programs, and the
// closed-form time on the optical backend when the wavelengths suffice.
#include "runtime/execute.hpp"
#include "collective/algorithms/wrht.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "collective/algorithm.hpp"
#include "collective/ir/verifier.hpp"
#include "core/error.hpp"
#include "network/optical.hpp"
#include "scheduler/executor.hpp"
#include "topology/builders.hpp"

namespace collsim::collective {
namespace {

struct Row {
  std::uint32_t n, m, w;
  std::uint32_t levels, top, steps, group_wl, top_wl;
  bool all_to_all;
};

TEST(Wrht, PlanMatchesTheFormulas) {
  const Row rows[] = {
      // 16 = 4^2: L = 2; m* = ceil(16/4) = 4; all-to-all ceil(16/8) = 2 <= 64: 2L - 1 = 3 steps.
      {16, 4, 64, 2, 4, 3, 2, 2, true},
      // 47^1 < 1024 <= 47^2: L = 2; m* = ceil(1024/47) = 22; ceil(484/8) = 61 <= 64: 3 steps.
      {1024, 47, 64, 2, 22, 3, 23, 61, true},
      // 32^2 = 1024: L = 2; m* = 32; ceil(1024/8) = 128 > 64: one more level, 2L = 4 steps, the
      // top group of 32 needs floor(32/2) = 16.
      {1024, 32, 64, 2, 32, 4, 16, 16, false},
      // m = 2: L = 10; m* = ceil(1024/512) = 2; ceil(4/8) = 1: 19 steps.
      {1024, 2, 64, 10, 2, 19, 1, 1, true},
      // 3^4 = 81 < 100 <= 243: L = 5; m* = ceil(100/81) = 2: 9 steps.
      {100, 3, 8, 5, 2, 9, 1, 1, true},
      // m >= N: one level; 64 nodes cannot all-to-all on 64 (needs 512): 2 steps, 32 wavelengths.
      {64, 64, 64, 1, 64, 2, 0, 32, false},
      {64, 100, 64, 1, 64, 2, 0, 32, false},
      // Two nodes exchange in one step.
      {2, 2, 1, 1, 2, 1, 0, 1, true},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(::testing::Message() << "N=" << r.n << " m=" << r.m << " w=" << r.w);
    const WrhtPlan p = wrht_plan(r.n, r.m, r.w);
    EXPECT_EQ(p.levels, r.levels);
    EXPECT_EQ(p.top_nodes, r.top);
    EXPECT_EQ(p.all_to_all, r.all_to_all);
    EXPECT_EQ(p.steps, r.steps);
    EXPECT_EQ(p.group_wavelengths, r.group_wl);
    EXPECT_EQ(p.top_wavelengths, r.top_wl);
  }
  // Always 2 ceil(log_m N) or one less.
  for (std::uint32_t n = 2; n <= 300; ++n) {
    for (std::uint32_t m = 2; m <= std::min(n, 20u); ++m) {
      const auto l = static_cast<std::uint32_t>(std::ceil(std::log(n) / std::log(m) - 1e-9));
      const WrhtPlan p = wrht_plan(n, m, 16);
      EXPECT_EQ(p.levels, l) << n << " " << m;
      EXPECT_TRUE(p.steps == 2 * l || p.steps == 2 * l - 1) << n << " " << m;
    }
  }
}

TEST(Wrht, DefaultGroupSizeHasTheFewestSteps) {
  // w = 64 allows m <= 129. L = 1 would need m >= 1024; L = 2 needs m >= 32, and the top
  // all-to-all fits once m* <= 22 (ceil(22^2/8) = 61, ceil(23^2/8) = 67): m* = ceil(1024/m)
  // <= 22 from m = 47 (ceil(1024/46) = 23). So 47, 3 steps.
  EXPECT_EQ(wrht_default_m(1024, 64), 47u);
  EXPECT_EQ(wrht_plan(1024, 47, 64).steps, 3u);
  // 16 nodes, w = 4 (m <= 9): L = 2 from m = 4, m* = 4 needs 2 wavelengths: 3 steps at m = 4.
  EXPECT_EQ(wrht_default_m(16, 4), 4u);
  // 64 nodes, w = 64: one group of 64 (reduce to the middle, broadcast back) takes 2 steps.
  EXPECT_EQ(wrht_default_m(64, 64), 64u);
  // One wavelength: m <= 3; the all-to-all of 2 needs 1.
  EXPECT_EQ(wrht_default_m(64, 1), 3u);
  // 4 receivers per node: m <= 5, and an all-to-all of m* nodes needs m* - 1 <= 4. 1024 nodes:
  // m = 5 gives L = 5 (5^4 = 625 < 1024), m* = ceil(1024/625) = 2: 9 steps; m = 4 gives L = 5,
  // m* = 4: 9 steps too, and is smaller.
  EXPECT_EQ(wrht_default_m(1024, 64, 4), 4u);
  EXPECT_EQ(wrht_plan(1024, 4, 64, 4).steps, 9u);
  // 16 nodes in one all-to-all needs 15 receivers; with 14 it is reduce-and-broadcast.
  EXPECT_TRUE(wrht_plan(16, 16, 64, 15).all_to_all);
  EXPECT_FALSE(wrht_plan(16, 16, 64, 14).all_to_all);
}

TEST(Wrht, ProgramsVerify) {
  for (const char* spec : {"optical-ring:16", "optical-ring:10", "optical-ring:100", "ring:8"}) {
    const auto t = topology::from_compact(spec, core::Bandwidth{1e9}, core::Time{});
    for (const char* algo :
         {"wrht", "wrht:m=3", "wrht:m=7:wavelengths=2", "wrht:m=2", "wrht:stripe=1"}) {
      for (std::uint32_t chunks : {1u, 3u}) {
        const auto p = build_program(parse_algorithm(algo, "a"), t, Collective::AllReduce,
                                     core::Bytes{1 << 20}, chunks);
        const Verdict v = verify(p);
        EXPECT_TRUE(v.ok) << spec << " " << algo << ": " << v.reason;
      }
    }
  }
  const auto t = topology::from_compact("optical-ring:8", core::Bandwidth{1e9}, core::Time{});
  EXPECT_THROW(build_program(parse_algorithm("wrht:m=1", "a"), t, Collective::AllReduce,
                             core::Bytes{1 << 20}, 1),
               core::InputError);
  EXPECT_THROW(build_program(parse_algorithm("wrht", "a"), t, Collective::AllGather,
                             core::Bytes{1 << 20}, 1),
               core::InputError);
}

// With enough wavelengths every step is set-up + S / B plus its longest arc's propagation.
// N = 16, m = 4: groups {0..3} .. {12..15} with representatives 2, 6, 10, 14; the farthest member
// is 2 hops away; the top all-to-all's farthest pair is 8 hops apart. So 3 (1 us + 1 ms) +
// (2 + 8 + 2) x 5 ns.
TEST(Wrht, TimeOnTheOpticalRingIsStepsTimesSetupPlusSOverB) {
  const auto t = topology::optical_ring(16, {64, core::Bandwidth{1e9}}, core::Time::from_ns(5));
  const auto p = build_program(parse_algorithm("wrht:m=4", "a"), t, Collective::AllReduce,
                               core::Bytes{1'000'000}, 1);
  core::Simulation sim;
  network::OpticalBackend net(sim, t, {});
  const auto r = runtime::execute(p, net, sim);
  EXPECT_EQ(r.time.ps, 3 * (1'000'000LL + 1'000'000'000LL) + 12 * 5'000LL);
  EXPECT_EQ(r.messages, 12u + 12u + 12u);  // 12 members up, 4 x 3 all-to-all, 12 down
  // Optical Ring: 2(N-1) steps of set-up + S/(N B) + one hop.
  const auto ring = build_program(parse_algorithm("ring", "a"), t, Collective::AllReduce,
                                  core::Bytes{1'600'000}, 1);
  core::Simulation sim2;
  network::OpticalBackend net2(sim2, t, {});
  EXPECT_EQ(runtime::execute(ring, net2, sim2).time.ps,
            30 * (1'000'000LL + 100'000'000LL + 5'000LL));
}

// Striping: N = 4, m = 3 gives groups {0, 1, 2} (representative 1) and {3}, then an all-to-all
// between 1 and 3 (3 steps); every step needs one wavelength, so with w = 4 each transfer goes as
// 4 lightpaths of S/4 at once: 3 (1 us + 0.4 ms) + (1 + 2 + 1) x 5 ns for S = 1.6 MB.
TEST(Wrht, StripingSplitsEachTransferOverTheFreeWavelengths) {
  EXPECT_EQ(wrht_stripes(wrht_plan(4, 3, 4), 4), 4u);
  EXPECT_EQ(wrht_stripes(wrht_plan(1024, 47, 64), 64), 1u);  // 61 of 64 in use: no stripes
  const auto t = topology::optical_ring(4, {4, core::Bandwidth{1e9}}, core::Time::from_ns(5));
  const auto p = build_program(parse_algorithm("wrht:m=3:stripe=1", "a"), t, Collective::AllReduce,
                               core::Bytes{1'600'000}, 1);
  EXPECT_EQ(p.streams, 4u);
  EXPECT_TRUE(verify(p).ok);
  core::Simulation sim;
  network::OpticalBackend net(sim, t, {});
  EXPECT_EQ(runtime::execute(p, net, sim).time.ps, 3 * (1'000'000LL + 400'000'000LL) + 20'000);
}

}  // namespace
}  // namespace collsim::collective
