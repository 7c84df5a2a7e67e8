// The direct algorithm's generated ops (algorithms/direct.cpp) are exactly the stored program that
// add_step builds from its transfers, for every collective, and the generator keeps memory flat.
#include <gtest/gtest.h>

#include "collective/algorithm.hpp"
#include "collective/ir/verifier.hpp"
#include "topology/builders.hpp"

namespace collsim::collective {
namespace {

// The stored construction: per phase, every (chunk, rank, distance) transfer, then add_step.
Program reference(Collective c, std::uint32_t n, std::uint32_t chunks, core::Bytes size) {
  Program p = make_program("direct", c, n, size, chunks);
  auto phase = [&](bool reduce) {
    std::vector<Transfer> step;
    for (std::uint32_t k = 0; k < chunks; ++k) {
      for (Rank r = 0; r < n; ++r) {
        for (std::uint32_t d = 1; d < n; ++d) {
          const Rank peer = (r + d) % n;
          const std::uint32_t piece = c == Collective::AllToAll ? (k * n + r) * n + peer
                                      : reduce                  ? k * n + peer
                                                                : k * n + r;
          step.push_back(Transfer{r, peer, piece, 1});
        }
      }
    }
    add_step(p, step, reduce);
  };
  if (c == Collective::AllReduce || c == Collective::ReduceScatter) phase(true);
  if (c != Collective::ReduceScatter) phase(false);
  return p;
}

TEST(DirectGenerator, GeneratesTheStoredProgram) {
  const auto t = topology::from_compact("fc:5", core::Bandwidth{1e9}, core::Time{});
  for (Collective c : {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather,
                       Collective::AllToAll}) {
    for (std::uint32_t chunks : {1u, 3u}) {
      const Program g =
          build_program(parse_algorithm("direct", "a"), t, c, core::Bytes{1 << 20}, chunks);
      ASSERT_NE(g.generator, nullptr);
      const Program s = reference(c, 5, chunks, core::Bytes{1 << 20});
      ASSERT_EQ(g.total_ops(), s.total_ops());
      for (Lane l = 0; l < 5; ++l) {
        for (std::uint32_t i = 0; i < s.num_ops(l); ++i) {
          EXPECT_EQ(to_string(g.op(l, i)), to_string(s.op(l, i))) << to_string(c) << " " << l;
        }
      }
      EXPECT_TRUE(verify(g).ok);
    }
  }
}

TEST(DirectGenerator, ProgramSizeDoesNotGrowWithTheOps) {
  // 4096 ranks: 33.5 M ops, none stored.
  const auto t = topology::from_compact("switch:4096", core::Bandwidth{1e9}, core::Time{});
  const Program p = build_program(parse_algorithm("direct", "a"), t, Collective::AllReduce,
                                  core::Bytes{1 << 20}, 1);
  EXPECT_EQ(p.total_ops(), 4ull * 4096 * 4095);
  EXPECT_TRUE(p.ops.empty());
}

}  // namespace
}  // namespace collsim::collective
