// MultiTree (ISCA'21) Fig. 9 trends at reduced size on the flow backend (examples/multitree/ runs
// the full sweep; docs/multitree.md has the numbers and the gaps): Table III links, 16 GB/s and
// 150 ns.
#include <gtest/gtest.h>

#include <string>

#include "collective/algorithm.hpp"
#include "network/flow.hpp"
#include "scheduler/executor.hpp"
#include "topology/builders.hpp"

namespace collsim {
namespace {

double time_of(const topology::Topology& t, const std::string& algo, std::uint64_t bytes) {
  const auto p =
      collective::build_program(collective::parse_algorithm(algo, "a"), t,
                                collective::Collective::AllReduce, core::Bytes{bytes}, 1);
  core::Simulation sim;
  network::FlowBackend net(sim, t, {});
  return scheduler::execute(p, net, sim).time.seconds();
}

topology::Topology net(const char* spec) {
  return topology::from_compact(spec, core::Bandwidth{16e9}, core::Time::from_ns(150));
}

// Torus and mesh: MultiTree ahead of every other algorithm at every size.
TEST(MultiTreeValidation, AheadOfEveryAlgorithmOnTorusAndMesh) {
  for (const char* spec : {"torus:4x4", "mesh:4x4", "torus:8x8"}) {
    const auto t = net(spec);
    for (std::uint64_t bytes : {32ull << 10, 1ull << 20, 16ull << 20}) {
      const double mt = time_of(t, "multitree", bytes);
      for (const char* other : {"ring", "ring-2d", "direct", "halving-doubling"}) {
        EXPECT_LT(mt, time_of(t, other, bytes)) << spec << " " << other << " " << bytes;
      }
    }
  }
  // Large sizes on the 8x8 torus: every NPU's four links at work, over 3.5x Ring (a ring uses one).
  const auto t = net("torus:8x8");
  EXPECT_GT(time_of(t, "ring", 16 << 20) / time_of(t, "multitree", 16 << 20), 3.5);
}

// Fat tree and BiGraph: ahead of Ring at small sizes, within a few percent at large ones.
TEST(MultiTreeValidation, SwitchedNetworksAheadSmallEvenLarge) {
  for (const char* spec : {"fattree:4x2", "bigraph:4x8"}) {
    const auto t = net(spec);
    EXPECT_LT(time_of(t, "multitree", 32 << 10), 0.5 * time_of(t, "ring", 32 << 10)) << spec;
    const double ratio = time_of(t, "multitree", 16 << 20) / time_of(t, "ring", 16 << 20);
    EXPECT_GT(ratio, 0.95) << spec;
    EXPECT_LT(ratio, 1.05) << spec;
  }
}

}  // namespace
}  // namespace collsim
