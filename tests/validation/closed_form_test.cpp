// Closed-form alpha-beta costs on the analytical backend (relative error < 1e-9).
// alpha = link latency (per hop), B = link bandwidth, S = collective size, N = ranks.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/execute.hpp"
#include "collective/algorithm.hpp"
#include "core/engine.hpp"
#include "network/analytical.hpp"
#include "scheduler/executor.hpp"
#include "topology/builders.hpp"

namespace collsim {
namespace {

using collective::Collective;

const double kB = 16e9;        // 16 GB/s (MultiTree Table III)
const double kAlpha = 150e-9;  // 150 ns
const core::Bandwidth kBw{kB};
const core::Time kLat = core::Time::from_ns(150);

double simulate(const topology::Topology& t, const std::string& algo, Collective c,
                std::uint64_t size, std::uint32_t chunks = 1) {
  const auto p = collective::build_program(collective::parse_algorithm(algo, "t"), t, c,
                                           core::Bytes{size}, chunks);
  core::Simulation sim;
  network::AnalyticalBackend net(sim, t);
  return runtime::execute(p, net, sim).time.seconds();
}

// Serialization is rounded up to the picosecond per message; allow that on top of 1e-9.
void expect_close(double got, double want, int messages_on_path) {
  EXPECT_NEAR(got, want, want * 1e-9 + messages_on_path * 1e-12)
      << "got " << got << " want " << want;
}

TEST(ClosedForm, RingAllReduceOnRing) {
  // T = 2(N-1)(alpha + S/(N B)).
  for (std::uint32_t n : {2u, 3u, 8u, 16u, 17u}) {
    const auto t = topology::ring(n, kBw, kLat, false);
    for (std::uint64_t base : {32768ull, 1ull << 20, 64ull << 20, 102228128ull}) {
      const std::uint64_t s = base / n * n;  // whole S/N slices, so every step moves S/N bytes
      const double want = 2.0 * (n - 1) * (kAlpha + double(s) / (n * kB));
      expect_close(simulate(t, "ring", Collective::AllReduce, s), want, 2 * n);
      // Reduce-scatter and all-gather are each one half: (N-1)(alpha + S/(N B)).
      expect_close(simulate(t, "ring", Collective::ReduceScatter, s), want / 2, n);
      expect_close(simulate(t, "ring", Collective::AllGather, s), want / 2, n);
    }
  }
}

TEST(ClosedForm, BidirectionalRingHalvesTheBandwidthTerm) {
  // Both directions carry S/2: T = 2(N-1)(alpha + S/(2 N B)).
  const std::uint32_t n = 8;
  const auto t = topology::ring(n, kBw, kLat, true);
  const std::uint64_t s = 64ull << 20;
  expect_close(simulate(t, "ring:directions=2", Collective::AllReduce, s),
               2.0 * (n - 1) * (kAlpha + double(s) / (2 * n * kB)), 2 * n);
}

TEST(ClosedForm, HalvingDoublingOnFullyConnected) {
  // T = 2 log2(N) alpha + 2 (N-1)/N S/B.
  for (std::uint32_t n : {2u, 4u, 8u, 16u, 64u}) {
    const auto t = topology::fully_connected(n, kBw, kLat);
    const double lg = std::log2(n);
    for (std::uint64_t s : {32768ull, 64ull << 20}) {
      const double want = 2 * lg * kAlpha + 2.0 * (n - 1) / n * double(s) / kB;
      expect_close(simulate(t, "halving-doubling", Collective::AllReduce, s), want, 2 * n);
      expect_close(simulate(t, "halving-doubling", Collective::ReduceScatter, s), want / 2, n);
      expect_close(simulate(t, "halving-doubling", Collective::AllGather, s), want / 2, n);
    }
  }
}

TEST(ClosedForm, DirectOnFullyConnected) {
  // Every peer link in parallel: reduce-scatter alpha + S/(N B); all-reduce twice that.
  for (std::uint32_t n : {2u, 5u, 8u, 17u, 64u}) {
    const auto t = topology::fully_connected(n, kBw, kLat);
    const std::uint64_t s = n * (4ull << 20);  // a multiple of N: every slice is S/N bytes
    const double half = kAlpha + double(s) / (n * kB);
    expect_close(simulate(t, "direct", Collective::AllReduce, s), 2 * half, 4);
    expect_close(simulate(t, "direct", Collective::ReduceScatter, s), half, 2);
    expect_close(simulate(t, "direct", Collective::AllGather, s), half, 2);
    // All-to-all: each rank sends S/N to each peer over its own link.
    expect_close(simulate(t, "direct", Collective::AllToAll, s), half, 2);
  }
}

TEST(ClosedForm, RecursiveDoublingOnFullyConnected) {
  // All-reduce: log2(N) (alpha + S/B).
  const std::uint32_t n = 16;
  const auto t = topology::fully_connected(n, kBw, kLat);
  const std::uint64_t s = 1 << 20;
  expect_close(simulate(t, "recursive-doubling", Collective::AllReduce, s),
               4 * (kAlpha + double(s) / kB), 8);
}

TEST(ClosedForm, SwitchCostsTwoHops) {
  // Direct on a switch, analytical (no contention): each message crosses NPU->switch->NPU,
  // 2 alpha + (S/N)/B per phase.
  const std::uint32_t n = 8;
  const auto t = topology::switch_star(n, core::Bandwidth{300e9}, kLat);
  const std::uint64_t s = 64ull << 20;
  expect_close(simulate(t, "direct", Collective::AllReduce, s),
               2 * (2 * kAlpha + double(s) / n / 300e9), 4);
}

TEST(ClosedForm, ChunksPipelineOnTheRing) {
  // C chunks on a ring, b = S/(N C B) per chunk message. A rank sends chunk c of step s when the
  // channel is free (chunk c-1 serialized) and chunk c of step s-1 has arrived:
  //   T(s,c) = max(T(s,c-1) + b, T(s-1,c) + alpha + b), and the last delivery ends the run.
  // Latency-bound ((C-1) b < alpha):   T = 2(N-1)(alpha + b) + (C-1) b.
  // Bandwidth-bound ((C-1) b >= alpha): T = 2(N-1) C b + alpha  (links never idle).
  const std::uint32_t n = 8, c = 4;
  const auto t = topology::ring(n, kBw, kLat, false);
  const std::uint64_t small = 16 << 10;  // b = 32 ns, (C-1) b = 96 ns < 150 ns
  const double bs = double(small) / (n * c * kB);
  expect_close(simulate(t, "ring", Collective::AllReduce, small, c),
               2.0 * (n - 1) * (kAlpha + bs) + (c - 1) * bs, 2 * n * c);
  const std::uint64_t large = 64ull << 20;
  const double bl = double(large) / (n * c * kB);
  expect_close(simulate(t, "ring", Collective::AllReduce, large, c),
               2.0 * (n - 1) * c * bl + kAlpha, 2 * n * c);
}

TEST(ClosedForm, RingOnTorusUsesOneHopSteps) {
  // The snake order makes every ring step one 16 GB/s hop: same as a 64-NPU ring.
  const auto t = topology::torus({8, 8}, kBw, kLat);
  const std::uint64_t s = 64ull << 20;
  expect_close(simulate(t, "ring", Collective::AllReduce, s),
               2.0 * 63 * (kAlpha + double(s) / (64 * kB)), 128);
}

}  // namespace
}  // namespace collsim
