// 2D-Ring (collective/algorithms/ring_2d.cpp): with directions=2 and orders=2, the MultiTree
// authors' form, four chain flows per NPU keep all four links of a torus NPU busy.
#include <gtest/gtest.h>

#include "collective/algorithm.hpp"
#include "collective/ir/verifier.hpp"
#include "core/engine.hpp"
#include "network/flow.hpp"
#include "runtime/execute.hpp"
#include "topology/builders.hpp"

namespace collsim::collective {
namespace {

double seconds(const topology::Topology& t, const char* algo, std::uint64_t bytes) {
  const auto p =
      build_program(parse_algorithm(algo, "a"), t, Collective::AllReduce, core::Bytes{bytes}, 1);
  core::Simulation sim;
  network::FlowBackend net(sim, t, {});
  return runtime::execute(p, net, sim).time.seconds();
}

TEST(Ring2d, FourChainFlowsVerifyAndUseEveryLink) {
  for (const char* spec : {"torus:4x4", "torus:4x6", "mesh:3x4"}) {
    const auto t = topology::from_compact(spec, core::Bandwidth{16e9}, core::Time::from_ns(150));
    for (const char* algo : {"ring-2d:directions=2", "ring-2d:orders=1:directions=2"}) {
      for (std::uint32_t chunks : {1u, 3u}) {
        const auto p = build_program(parse_algorithm(algo, "a"), t, Collective::AllReduce,
                                     core::Bytes{1 << 20}, chunks);
        const Verdict v = verify(p);
        EXPECT_TRUE(v.ok) << spec << " " << algo << ": " << v.reason;
      }
    }
  }
  // 8x8 torus, 64 MiB: each direction of a link carries (7/32 + 7/32 + 14/256) S = 126/256 S,
  // half what the one-way form puts on its links (both orders), so it takes half the time;
  // 126/256 x 64 MiB / 16 GB/s = 2.064 ms plus the steps' latency.
  const auto t =
      topology::from_compact("torus:8x8", core::Bandwidth{16e9}, core::Time::from_ns(150));
  const double four = seconds(t, "ring-2d:directions=2", 64ull << 20);
  const double two = seconds(t, "ring-2d", 64ull << 20);
  EXPECT_NEAR(two / four, 2.0, 0.02);
  EXPECT_GT(four, 126.0 / 256 * (64ull << 20) / 16e9);
  EXPECT_LT(four, 1.01 * 126.0 / 256 * (64ull << 20) / 16e9);
}

}  // namespace
}  // namespace collsim::collective
