// WRHT (PPoPP'23): the model's own claims at reduced size (examples/wrht/ runs the full Fig. 2;
// numbers and the gap to the poster in docs/wrht.md): the step count of Sec. 2, its wavelength
// requirements, and the like-for-like comparisons with the optical Ring at the scales where the
// poster claims a gain. Optical ring: 64 wavelengths of 25 Gb/s, 1 us set-up, 5 ns per hop;
// GoogLeNet's gradients (6.7977 M fp32 parameters), the figure's smallest all-reduce.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "collective/algorithm.hpp"
#include "collective/algorithms/wrht.hpp"
#include "network/backend.hpp"
#include "network/optical.hpp"
#include "runtime/execute.hpp"
#include "scheduler/executor.hpp"
#include "topology/builders.hpp"

namespace collsim {
namespace {

constexpr std::uint64_t kSize = 27'190'800;   // 6.7977 M fp32 parameters
constexpr double kB = 25e9 / 8;                // one wavelength, bytes per second
constexpr double kSetup = 1e-6;                // lightpath set-up, s
constexpr double kHop = 5e-9;                  // propagation per hop, s
constexpr double kSOverB = kSize / kB;         // the whole buffer on one wavelength, s

struct OpticalRun {
  double seconds = 0;
  std::vector<std::pair<std::string, double>> metrics;
  double metric(const std::string& key) const {
    for (const auto& [k, v] : metrics) {
      if (k == key) return v;
    }
    ADD_FAILURE() << "no metric " << key;
    return 0;
  }
};

OpticalRun run(std::uint32_t n, const std::string& algo, std::uint64_t size = kSize) {
  const auto t = topology::optical_ring(n, {64, core::Bandwidth{kB}}, core::Time::from_ns(5));
  const auto p = collective::build_program(collective::parse_algorithm(algo, "a"), t,
                                           collective::Collective::AllReduce, core::Bytes{size}, 1);
  core::Simulation sim;
  auto net = network::make_backend(network::find_backend("optical", "b"), sim, t, {}, "b");
  OpticalRun r;
  r.seconds = runtime::execute(p, *net, sim).time.seconds();
  r.metrics = net->summary();
  return r;
}

// L = ceil(log_m N), counted without the plan's code.
std::uint32_t ceil_log(std::uint32_t n, std::uint32_t m) {
  std::uint32_t l = 0;
  for (std::uint64_t p = 1; p < n; p *= m) ++l;
  return l;
}

// Sec. 2: "the total number of communication steps for WRHT is 2 ceil(log_m N) or
// 2 ceil(log_m N) - 1", each moving the whole buffer on one wavelength per transfer, so the time
// is steps x (set-up + S / B) plus at most N/2 hops of propagation per step.
TEST(WrhtValidation, StepCountIsTwoCeilLogMNOrOneLess) {
  const std::pair<std::uint32_t, std::uint32_t> cases[] = {{16, 1}, {64, 2}, {256, 3}};
  for (const auto& [n, hand] : cases) {
    SCOPED_TRACE(n);
    const std::uint32_t m = collective::wrht_default_m(n, 64);
    const collective::WrhtPlan plan = collective::wrht_plan(n, m, 64);
    const std::uint32_t l = ceil_log(n, m);
    EXPECT_TRUE(plan.steps == 2 * l || plan.steps == 2 * l - 1) << "m " << m;
    EXPECT_EQ(plan.steps, hand);  // 16: one all-to-all; 64: reduce and broadcast; 256: m = 16
    const double step = kSetup + kSOverB;
    const OpticalRun r = run(n, "wrht");
    EXPECT_GE(r.seconds, plan.steps * step);
    EXPECT_LE(r.seconds, plan.steps * (step + n / 2 * kHop));
    EXPECT_EQ(r.metric("lightpath_waits"), 0);
  }
}

// Sec. 2: a group step needs floor(m/2) wavelengths (the representative's floor(m/2) members on
// each side share a waveguide). Measured per step from the lightpath log (a lightpath's step: its
// begin time over one step's time), the most lightpaths on one segment and the highest wavelength
// used. 64 nodes in one group of 64 (an all-to-all of 64 would need ceil(64^2/8) = 512 > 64, so
// reduce to the middle node and back): 32. Groups of 8 planned for 4 wavelengths (the all-to-all
// of 8 would need 8 > 4): 4 in each reduce step. The broadcast stage is not in lockstep: the top
// representative (node 36) is also its own group's, and sends that group's broadcast at once
// with the top level's (its data is ready), so one of its segments carries 4 + 3 = 7 in the third
// step time; collsim runs data dependencies, not a global step clock (docs/wrht.md "Where collsim
// differs"). The broadcast is bounded by two levels' worth.
class StepLog final : public network::LightpathObserver {
 public:
  explicit StepLog(double step_seconds) : step_(step_seconds) {}
  void on_lightpath(const network::Lightpath& lp) override {
    const auto k = static_cast<std::size_t>(lp.begin.seconds() / step_ + 0.5);
    if (k >= steps_.size()) steps_.resize(k + 1);
    Step& s = steps_[k];
    for (topology::LinkId l : *lp.arc) {
      if (l >= s.load.size()) s.load.resize(l + 1, 0);
      s.peak = std::max(s.peak, ++s.load[l]);
    }
    s.highest = std::max<std::uint32_t>(s.highest, lp.wavelength + 1u);
  }
  struct Step {
    std::vector<std::uint32_t> load;  // lightpaths on each segment in the step
    std::uint32_t peak = 0, highest = 0;
  };
  std::vector<Step> steps_;

 private:
  double step_;
};

TEST(WrhtValidation, GroupStepsUseFloorMOverTwoWavelengths) {
  // Algorithm, floor(m/2), step times seen, reduce steps.
  for (const auto& [algo, want, steps, reduce_steps] :
       {std::tuple<std::string, std::uint32_t, std::size_t, std::size_t>{"wrht:m=64", 32, 2, 1},
        {"wrht:m=8:wavelengths=4", 4, 4, 2}}) {
    SCOPED_TRACE(algo);
    const auto t = topology::optical_ring(64, {64, core::Bandwidth{kB}}, core::Time::from_ns(5));
    const auto p = collective::build_program(collective::parse_algorithm(algo, "a"), t,
                                             collective::Collective::AllReduce,
                                             core::Bytes{kSize}, 1);
    core::Simulation sim;
    network::OpticalBackend net(sim, t, {});
    StepLog log(kSetup + kSOverB);
    net.set_lightpath_observer(&log);
    runtime::execute(p, net, sim);
    ASSERT_EQ(log.steps_.size(), steps);
    for (std::size_t k = 0; k < log.steps_.size(); ++k) {
      SCOPED_TRACE(k);
      const StepLog::Step& s = log.steps_[k];
      if (k < reduce_steps) {
        EXPECT_EQ(s.peak, want);
        EXPECT_EQ(s.highest, want);
      } else {
        EXPECT_GE(s.peak, want);
        EXPECT_LE(s.peak, 2 * want - 1);
        EXPECT_LE(s.highest, 2 * want - 1);
      }
    }
  }
}

// Sec. 2 (ref. 9): the top all-to-all among m* nodes "requires ceil(m*^2 / 8) wavelengths". That
// is the load of a perfectly balanced all-to-all on the two waveguides. collsim routes every
// lightpath on its shortest arc and puts the halfway ones on the less loaded waveguide when they
// are sent, and assigns first-fit: the busiest segment carries 3-13% more lightpaths than the
// formula, and first-fit needs up to 25% more distinct wavelengths (docs/wrht.md "Where collsim
// differs"). The formula is inside both bands, at their lower edge.
TEST(WrhtValidation, TopAllToAllNeedsUpToAQuarterMoreThanRef9_ShortestArcFirstFit) {
  for (std::uint32_t n : {8u, 16u, 22u}) {
    SCOPED_TRACE(n);
    const double formula = (n * n + 7) / 8;
    ASSERT_EQ(collective::wrht_plan(n, n, 64).steps, 1u);
    const OpticalRun r = run(n, "wrht:m=" + std::to_string(n), 1'000'000);
    const double load = r.metric("peak_wavelengths_per_segment");
    const double highest = r.metric("highest_wavelength_used");
    EXPECT_GE(load, formula);
    EXPECT_LE(load, 1.15 * formula);
    EXPECT_GE(highest, formula);
    EXPECT_LE(highest, 1.3 * formula);
  }
}

// The poster's baseline as it describes it: optical Ring, one wavelength per step, against WRHT as
// specified, one wavelength per transfer. Each WRHT step moves the whole buffer S where each of
// Ring's 2(N-1) steps moves S/N, so WRHT / Ring = steps (set-up + S/B) / (2(N-1)(set-up + S/(N B)))
// in closed form: a gain only where WRHT takes one step (N = 16: 47% less time), a tie at two
// (64), a loss at three (256). The poster claims 91.86% less time on average over its scales.
TEST(WrhtValidation, LikeForLikeUnstripedGainsOnlyWithOneStep_PosterClaimsGainsAtEveryScale) {
  const std::pair<std::uint32_t, double> cases[] = {{16, 1}, {64, 2}, {256, 3}};
  for (const auto& [n, steps] : cases) {
    SCOPED_TRACE(n);
    const double ring = run(n, "ring").seconds;
    const double wrht = run(n, "wrht").seconds;
    const double closed = 2.0 * (n - 1) * (kSetup + kHop + kSOverB / n);
    EXPECT_NEAR(ring, closed, 1e-5 * closed);  // pieces of S/N round to bytes
    const double predicted = steps * (kSetup + kSOverB) / closed;
    EXPECT_GE(wrht / ring, 0.99 * predicted);
    EXPECT_LE(wrht / ring, 1.01 * predicted + 1e-3);
  }
  EXPECT_LT(run(16, "wrht").seconds, 0.55 * run(16, "ring").seconds);
}

// Like for like with the spare wavelengths: both striped over the free wavelengths of their
// lightpaths. The striped Ring's step is set-up + S/(N w B) on all w wavelengths of its segment;
// striped WRHT needs floor(m/2) or more wavelengths per step and takes m = 3 or 4 (5-11 steps of
// S/(stripes B)), plus the waits of unsynchronized stripes (up to 1.5x its wait-free time). So
// the striped Ring is 2.4-6x faster, where the poster claims WRHT the faster.
TEST(WrhtValidation, LikeForLikeStripedRingBeatsStripedWrht_PosterClaimsTheOpposite) {
  for (std::uint32_t n : {16u, 32u, 64u}) {
    SCOPED_TRACE(n);
    const double ring = run(n, "ring:stripe=1").seconds;
    const double closed = 2.0 * (n - 1) * (kSetup + kHop + kSOverB / (n * 64.0));
    EXPECT_GE(ring, closed * (1 - 1e-5));
    EXPECT_LE(ring, closed * 1.005);  // sub-ns waits where slices of S/(N w) differ by a byte
    const std::uint32_t m = collective::wrht_striped_m(n, 64);
    const collective::WrhtPlan plan = collective::wrht_plan(n, m, 64);
    const double stripes = collective::wrht_stripes(plan, 64);
    const double wait_free = plan.steps * (kSetup + kSOverB / stripes);
    const double wrht = run(n, "wrht:stripe=1").seconds;
    EXPECT_GE(wrht, wait_free);
    EXPECT_LE(wrht, 1.5 * wait_free);
    EXPECT_GT(wrht / ring, 2.4);
    EXPECT_LT(wrht / ring, 6.0);
  }
}

// The reading under which the poster's 91.86% is reached: WRHT striped over its spare wavelengths
// against the Ring on one wavelength (not like for like). Its reduction is 88-95% here, the
// poster's inside the band.
TEST(WrhtValidation, StripedWrhtAgainstPlainRingNearThePostersReduction) {
  double sum = 0;
  for (std::uint32_t n : {16u, 64u, 256u}) {
    SCOPED_TRACE(n);
    const double reduction = 1 - run(n, "wrht:stripe=1").seconds / run(n, "ring").seconds;
    EXPECT_GT(reduction, 0.85);
    EXPECT_LT(reduction, 0.96);
    sum += reduction;
  }
  EXPECT_GT(sum / 3, 0.88);
  EXPECT_LT(sum / 3, 0.94);  // poster: 0.9186 over its scales
}

}  // namespace
}  // namespace collsim
