// The optical backend (network/optical.hpp): closed-form lightpath times, wavelength reuse on
// disjoint arcs, waiting for a wavelength or a transceiver, first-fit vs best-fit, and a checker
// that no two lightpaths ever share a wavelength on a segment, run on every algorithm.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "runtime/execute.hpp"
#include "collective/algorithm.hpp"
#include "collective/ir/verifier.hpp"
#include "core/error.hpp"
#include "network/optical.hpp"
#include "recorder.hpp"
#include "scheduler/executor.hpp"
#include "topology/builders.hpp"

namespace collsim {
namespace {

using network::MessageAttributes;
using network::OpticalBackend;
using testing::Recorder;

constexpr std::int64_t kUs = 1'000'000;  // ps
constexpr std::int64_t kHop = 5'000;     // 5 ns per hop

topology::Topology ring(std::uint32_t n, std::uint32_t w) {
  return topology::optical_ring(n, {w, core::Bandwidth{1e9}}, core::Time::from_ns(5));
}

double summary(const network::Backend& b, const std::string& key) {
  for (const auto& [k, v] : b.summary()) {
    if (k == key) return v;
  }
  ADD_FAILURE() << "no summary entry " << key;
  return -1;
}

// Records every lightpath; check() proves no two share a wavelength on a segment at once.
struct Checker final : network::LightpathObserver {
  struct Use {
    core::Time begin, end;
    topology::NodeId src, dst;
  };
  void on_lightpath(const network::Lightpath& p) override {
    ++count;
    EXPECT_LE(p.requested, p.begin);
    EXPECT_LT(p.begin, p.end);
    for (topology::LinkId l : *p.arc)
      uses[{l, p.wavelength}].push_back({p.begin, p.end, p.src, p.dst});
  }
  void check() {
    for (auto& [key, list] : uses) {
      std::sort(list.begin(), list.end(),
                [](const Use& a, const Use& b) { return a.begin < b.begin; });
      for (std::size_t i = 1; i < list.size(); ++i) {
        EXPECT_LE(list[i - 1].end, list[i].begin)
            << "segment " << key.first << " wavelength " << key.second << ": " << list[i - 1].src
            << "->" << list[i - 1].dst << " and " << list[i].src << "->" << list[i].dst;
      }
    }
  }
  std::map<std::pair<topology::LinkId, std::uint16_t>, std::vector<Use>> uses;
  std::uint64_t count = 0;
};

struct Wavelengths final : network::LightpathObserver {
  void on_lightpath(const network::Lightpath& p) override { of[{p.src, p.dst}] = p.wavelength; }
  std::map<std::pair<topology::NodeId, topology::NodeId>, std::uint16_t> of;
};

TEST(OpticalBackend, OneLightpathTakesSetupPlusBytesOverBPlusPropagation) {
  const auto t = ring(8, 4);
  core::Simulation sim;
  OpticalBackend net(sim, t, {});
  Recorder rec(sim);
  net.send(0, 3, core::Bytes{1'000'000}, rec, 7);  // 3 hops clockwise
  net.send(0, 6, core::Bytes{500'000}, rec, 8);    // 2 hops counter-clockwise
  sim.run();
  // 1 us set-up + 1 MB at 1 GB/s, then 3 x 5 ns.
  EXPECT_EQ(rec.injected[7], kUs + 1000 * kUs);
  EXPECT_EQ(rec.delivered[7], kUs + 1000 * kUs + 3 * kHop);
  EXPECT_EQ(rec.delivered[8], kUs + 500 * kUs + 2 * kHop);
  EXPECT_EQ(net.link_stats()[t.route(0, 3)[1]].bytes, 1'000'000u);
  EXPECT_EQ(net.link_stats()[t.route(0, 3)[1]].busy.ps, kUs + 1000 * kUs + 3 * kHop);
  EXPECT_EQ(summary(net, "lightpaths"), 2);
  EXPECT_EQ(summary(net, "lightpath_waits"), 0);
  EXPECT_EQ(summary(net, "peak_transmitters_per_node"), 2);
}

TEST(OpticalBackend, DisjointArcsReuseAWavelengthOverlappingOnesWait) {
  const auto t = ring(8, 1);
  core::Simulation sim;
  OpticalBackend net(sim, t, {});
  Checker checker;
  net.set_lightpath_observer(&checker);
  Recorder rec(sim);
  const core::Bytes mb{1'000'000};
  net.send(0, 3, mb, rec, 1);  // segments 0-1-2-3 clockwise
  net.send(2, 5, mb, rec, 2);  // shares segment 2->3: waits for the only wavelength
  net.send(5, 7, mb, rec, 3);  // disjoint from 0->3: reuses wavelength 0 at once
  net.send(3, 0, mb, rec, 4);  // the other waveguide: wavelength 0 there is free
  sim.run();
  const std::int64_t one = kUs + 1000 * kUs;
  EXPECT_EQ(rec.delivered[1], one + 3 * kHop);
  EXPECT_EQ(rec.delivered[3], one + 2 * kHop);
  EXPECT_EQ(rec.delivered[4], one + 3 * kHop);
  EXPECT_EQ(rec.delivered[2], (one + 3 * kHop) + one + 3 * kHop);  // starts when 0->3 ends
  EXPECT_EQ(summary(net, "lightpath_waits"), 1);
  EXPECT_DOUBLE_EQ(summary(net, "lightpath_wait_max_us"), (one + 3 * kHop) / 1e6);
  EXPECT_EQ(summary(net, "highest_wavelength_used"), 1);
  checker.check();
  EXPECT_EQ(checker.count, 4u);

  // With two wavelengths nothing waits: 2->5 takes wavelength 1.
  const auto t2 = ring(8, 2);
  core::Simulation sim2;
  OpticalBackend net2(sim2, t2, {});
  Wavelengths wl;
  net2.set_lightpath_observer(&wl);
  Recorder rec2(sim2);
  net2.send(0, 3, mb, rec2, 1);
  net2.send(2, 5, mb, rec2, 2);
  sim2.run();
  EXPECT_EQ(rec2.delivered[2], one + 3 * kHop);
  EXPECT_EQ((wl.of[{0, 3}]), 0);
  EXPECT_EQ((wl.of[{2, 5}]), 1);
}

// Wavelength 0 is busy on segment 0->1 only; wavelength 1 on 0->1 and 4->5. For a lightpath on
// 2->3, first-fit takes wavelength 0; best-fit the one whose free gap around the arc is shorter:
// wavelength 1 (free 3->4 and 1->2: 2 segments) rather than 0 (free 3->4 .. 7->0 and 1->2: 6).
TEST(OpticalBackend, FirstFitAndBestFitDiffer) {
  for (auto [policy, expected] : {std::pair{network::WavelengthAssignment::FirstFit, 0},
                                  std::pair{network::WavelengthAssignment::BestFit, 1}}) {
    const auto t = ring(8, 2);
    core::Simulation sim;
    network::BackendOptions o;
    o.optical.assignment = policy;
    OpticalBackend net(sim, t, o);
    Wavelengths wl;
    net.set_lightpath_observer(&wl);
    Recorder rec(sim);
    const core::Bytes mb{1'000'000};
    net.send(0, 1, mb, rec, 1);  // wavelength 0 (all gaps equal: the lowest)
    net.send(0, 1, mb, rec, 2);  // wavelength 1 (0 is taken)
    MessageAttributes on1;
    on1.wavelength = 1;
    net.send(4, 5, mb, rec, 3, on1);  // asks for wavelength 1
    net.send(2, 3, mb, rec, 4);
    sim.run();
    EXPECT_EQ((wl.of[{4, 5}]), 1);
    EXPECT_EQ((wl.of[{2, 3}]), expected) << static_cast<int>(policy);
  }
}

TEST(OpticalBackend, TransceiversLimitConcurrentLightpaths) {
  const auto t = ring(8, 4);
  core::Simulation sim;
  network::BackendOptions o;
  o.optical.transmitters = 1;
  o.optical.receivers = 1;
  OpticalBackend net(sim, t, o);
  Recorder rec(sim);
  const core::Bytes mb{1'000'000};
  const std::int64_t one = kUs + 1000 * kUs + kHop;
  net.send(0, 1, mb, rec, 1);
  net.send(0, 7, mb, rec, 2);  // node 0's only transmitter is busy
  net.send(2, 1, mb, rec, 3);  // node 1's only receiver is busy
  sim.run();
  EXPECT_EQ(rec.delivered[1], one);
  // Both retried when 0->1 ends; each starts then.
  EXPECT_EQ(rec.delivered[2], 2 * one);
  EXPECT_EQ(rec.delivered[3], 2 * one);
  EXPECT_EQ(summary(net, "peak_transmitters_per_node"), 1);
  EXPECT_EQ(summary(net, "lightpath_waits"), 2);
}

TEST(OpticalBackend, RefusesTopologiesWithoutWavelengths) {
  for (const char* spec : {"torus:4x4", "bidir-ring:8"}) {
    const auto t = topology::from_compact(spec, core::Bandwidth{1e9}, core::Time{});
    core::Simulation sim;
    try {
      OpticalBackend net(sim, t, {});
      FAIL() << spec;
    } catch (const core::InputError& e) {
      EXPECT_EQ(std::string(e.what()),
                std::string("backend: the optical backend needs an optical ring topology "
                            "(optical-ring:N), got ") +
                    spec);
    }
  }
  const auto t = ring(8, 2);
  core::Simulation sim;
  OpticalBackend net(sim, t, {});
  Recorder rec(sim);
  MessageAttributes bad;
  bad.wavelength = 2;
  EXPECT_THROW(net.send(0, 1, core::Bytes{1}, rec, 1, bad), std::invalid_argument);
}

// Every algorithm and collective on a 16-node ring with 4 wavelengths (direct needs more and
// waits): all finish, and no wavelength is ever shared on a segment.
TEST(OpticalBackend, NoAlgorithmEverSharesAWavelengthOnASegment) {
  const auto t = ring(16, 4);
  int runs = 0;
  for (const collective::AlgorithmInfo& info : collective::algorithms()) {
    if (info.staged) continue;
    if (!collective::refusal(info, t).empty()) continue;  // e.g. ring-2d off grids
    for (collective::Collective c : info.collectives) {
      const auto choice = collective::make_choice(info, {}, info.name, "test");
      const auto p = collective::build_program(choice, t, c, core::Bytes{1 << 16}, 2);
      core::Simulation sim;
      OpticalBackend net(sim, t, {});
      Checker checker;
      net.set_lightpath_observer(&checker);
      ASSERT_NO_THROW(runtime::execute(p, net, sim)) << info.name;
      checker.check();
      EXPECT_GT(checker.count, 0u);
      ++runs;
    }
  }
  EXPECT_GE(runs, 10);
}

}  // namespace
}  // namespace collsim
