// The double binary tree baseline: the two trees' shapes, and its time where it has a closed form.
#include "runtime/execute.hpp"
#include "collective/algorithms/double_binary_tree.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "collective/algorithm.hpp"
#include "core/engine.hpp"
#include "network/analytical.hpp"
#include "scheduler/executor.hpp"
#include "topology/builders.hpp"

namespace collsim::collective {
namespace {

constexpr std::uint32_t kRoot = UINT32_MAX;

std::uint32_t depth(const std::vector<std::uint32_t>& parent, std::uint32_t r) {
  std::uint32_t d = 0;
  for (; parent[r] != kRoot; r = parent[r]) {
    ++d;
    if (d > parent.size()) return kRoot;  // a cycle
  }
  return d;
}

TEST(DoubleBinaryTree, TwoComplementarySpanningBinaryTrees) {
  for (std::uint32_t n = 2; n <= 40; ++n) {
    const DoubleBinaryTree t = double_binary_tree(n);
    std::vector<std::uint32_t> children[2] = {std::vector<std::uint32_t>(n),
                                              std::vector<std::uint32_t>(n)};
    for (int k = 0; k < 2; ++k) {
      EXPECT_EQ(std::count(t.parent[k].begin(), t.parent[k].end(), kRoot), 1) << n;
      for (std::uint32_t r = 0; r < n; ++r) {
        ASSERT_NE(depth(t.parent[k], r), kRoot) << "tree " << k << " n " << n;
        if (t.parent[k][r] != kRoot) ++children[k][t.parent[k][r]];
      }
      for (std::uint32_t r = 0; r < n; ++r) EXPECT_LE(children[k][r], 2u) << n;
    }
    // Rank order: tree 1's root is rank 0, its leaves the odd ranks.
    EXPECT_EQ(t.parent[0][0], kRoot);
    std::uint32_t leaf_in_both = 0;
    for (std::uint32_t r = 0; r < n; ++r) {
      if (r % 2 == 1) {
        EXPECT_EQ(children[0][r], 0u) << r;
      }
      leaf_in_both += children[0][r] == 0 && children[1][r] == 0;
    }
    // Even n (mirrored): no rank is a leaf of both trees; odd n (shifted): at most one.
    EXPECT_LE(leaf_in_both, n % 2) << n;
  }
  // N = 8, tree 1: 0 <- 4; 4 <- 2, 6; 2 <- 1, 3; 6 <- 5, 7.
  EXPECT_EQ(double_binary_tree(8).parent[0],
            (std::vector<std::uint32_t>{kRoot, 2, 4, 2, 0, 6, 4, 6}));
  // Tree 2 mirrored: rank r sits where rank 7 - r sits in tree 1.
  EXPECT_EQ(double_binary_tree(8).parent[1],
            (std::vector<std::uint32_t>{1, 3, 1, 7, 5, 3, 5, kRoot}));
}

TEST(DoubleBinaryTree, OneSegmentOnFullyConnectedTakesTwiceTheDepth) {
  // Analytical backend, one link per NPU pair: every tree edge costs alpha + (S/2)/B and each
  // level waits for the one below, so T = 2 D (alpha + S / (2B)), D the deeper tree's depth
  // (N = 8 and 16: 3 and 4).
  const core::Bandwidth bw{16e9};
  const core::Time lat = core::Time::from_ns(150);
  for (const auto& [n, d] : {std::pair{2u, 1u}, std::pair{8u, 3u}, std::pair{16u, 4u}}) {
    const auto topo = topology::from_compact(fmt::format("fc:{}", n), bw, lat);
    const std::uint64_t s = std::uint64_t{n} * 2 * 65536;
    const auto p = build_program(parse_algorithm("double-binary-tree:segments=1", "t"), topo,
                                 Collective::AllReduce, core::Bytes{s}, 1);
    core::Simulation sim;
    network::AnalyticalBackend net(sim, topo);
    const double want = 2.0 * d * (150e-9 + double(s) / 2 / 16e9);
    EXPECT_NEAR(runtime::execute(p, net, sim).time.seconds(), want, want * 1e-9) << n;
  }
}

}  // namespace
}  // namespace collsim::collective
