// The striped optical Ring (`ring:stripe=1`, collective/algorithms/ring.cpp): every transfer split
// over the w wavelengths of its one-hop lightpath, one program stream per slice; its closed-form
// time on the optical backend, verified programs, its errors, and "all" listing it (and
// `wrht:stripe=1`) as rows of their own on an optical ring only.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "collective/algorithm.hpp"
#include "collective/ir/verifier.hpp"
#include "core/error.hpp"
#include "jobs/collective_sweep.hpp"
#include "network/optical.hpp"
#include "runtime/execute.hpp"
#include "topology/builders.hpp"

namespace collsim::collective {
namespace {

core::Time run(const topology::Topology& t, const std::string& algo, std::uint64_t bytes,
               std::uint32_t chunks = 1) {
  const auto p =
      build_program(parse_algorithm(algo, "a"), t, Collective::AllReduce, core::Bytes{bytes}, chunks);
  core::Simulation sim;
  network::OpticalBackend net(sim, t, {});
  return runtime::execute(p, net, sim).time;
}

// N = 4, w = 4, B = 1 GB/s, 5 ns per hop, S = 1.6 MB: 2(N-1) = 6 steps; striped, each step sends
// S/(N w) = 100 kB on each of 4 wavelengths at once: 6 (1 us + 100 us + 5 ns). Unstriped, one
// lightpath of S/N = 400 kB: 6 (1 us + 400 us + 5 ns).
TEST(RingStripe, TimeIsStepsTimesSetupPlusSliceOverB) {
  const auto t = topology::optical_ring(4, {4, core::Bandwidth{1e9}}, core::Time::from_ns(5));
  EXPECT_EQ(run(t, "ring:stripe=1", 1'600'000).ps, 6 * (1'000'000LL + 100'000'000LL + 5'000LL));
  EXPECT_EQ(run(t, "ring", 1'600'000).ps, 6 * (1'000'000LL + 400'000'000LL + 5'000LL));
  // Both directions: each way round gets w lanes of half a chunk each (S/(2 N w) per lightpath).
  EXPECT_EQ(run(t, "ring:stripe=1:directions=2", 1'600'000).ps,
            6 * (1'000'000LL + 50'000'000LL + 5'000LL));
}

TEST(RingStripe, ProgramsVerifyWithOneStreamPerWavelength) {
  const auto t = topology::optical_ring(6, {3, core::Bandwidth{1e9}}, core::Time{});
  for (const char* algo : {"ring:stripe=1", "ring:stripe=1:directions=2"}) {
    for (Collective c : {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather}) {
      for (std::uint32_t chunks : {1u, 2u}) {
        const auto p = build_program(parse_algorithm(algo, "a"), t, c, core::Bytes{1 << 20}, chunks);
        EXPECT_EQ(p.streams, 3u);
        const Verdict v = verify(p);
        EXPECT_TRUE(v.ok) << algo << " " << to_string(c) << " " << chunks << ": " << v.reason;
      }
    }
  }
}

TEST(RingStripe, NeedsWavelengthsAndARingCollective) {
  const auto torus = topology::from_compact("torus:4x4", core::Bandwidth{1e9}, core::Time{});
  try {
    build_program(parse_algorithm("ring:stripe=1", "a"), torus, Collective::AllReduce,
                  core::Bytes{1 << 20}, 1);
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("ring:stripe=1 splits transfers over the wavelengths"),
              std::string::npos)
        << e.what();
  }
  const auto opt = topology::optical_ring(8, {4, core::Bandwidth{1e9}}, core::Time{});
  EXPECT_THROW(build_program(parse_algorithm("ring:stripe=1", "a"), opt, Collective::AllToAll,
                             core::Bytes{1 << 20}, 1),
               core::InputError);
}

bool has(const std::vector<AlgorithmChoice>& v, const std::string& label) {
  return std::any_of(v.begin(), v.end(), [&](const AlgorithmChoice& c) { return c.label == label; });
}

TEST(RingStripe, AllListsTheStripedRowsOnOpticalRingsOnly) {
  const auto opt = topology::optical_ring(16, {64, core::Bandwidth{3.125e9}}, core::Time{});
  std::vector<std::string> skipped;
  const auto chosen = jobs::expand_all_algorithms(opt, Collective::AllReduce, 1, &skipped);
  std::vector<std::string> labels;
  for (const auto& c : chosen) labels.push_back(c.label);
  // Each variant right after its plain row.
  const auto at = [&](const std::string& l) {
    return std::find(labels.begin(), labels.end(), l) - labels.begin();
  };
  ASSERT_TRUE(has(chosen, "ring:stripe=1") && has(chosen, "wrht:stripe=1"));
  EXPECT_EQ(at("ring:stripe=1"), at("ring") + 1);
  EXPECT_EQ(at("wrht:stripe=1"), at("wrht") + 1);
  const auto torus = topology::from_compact("torus:4x4", core::Bandwidth{1e9}, core::Time{});
  const auto elec = jobs::expand_all_algorithms(torus, Collective::AllReduce, 1, &skipped);
  EXPECT_TRUE(has(elec, "ring"));
  EXPECT_FALSE(has(elec, "ring:stripe=1"));
  EXPECT_FALSE(has(elec, "wrht:stripe=1"));
  // All-to-all on the optical ring: the striped ring cannot run it and says why.
  skipped.clear();
  const auto a2a = jobs::expand_all_algorithms(opt, Collective::AllToAll, 1, &skipped);
  EXPECT_TRUE(has(a2a, "ring"));
  EXPECT_FALSE(has(a2a, "ring:stripe=1"));
  EXPECT_TRUE(std::any_of(skipped.begin(), skipped.end(), [](const std::string& s) {
    return s.rfind("ring:stripe=1: ", 0) == 0;
  }));
}

}  // namespace
}  // namespace collsim::collective
