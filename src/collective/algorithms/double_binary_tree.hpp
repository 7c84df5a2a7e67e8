#pragma once
// The two trees of the double binary tree all-reduce (double_binary_tree.cpp), for tests and
// tools.
#include <cstdint>
#include <vector>

namespace collsim::collective {

struct DoubleBinaryTree {
  /// parent[t][r]: rank r's parent in tree t (0 or 1); UINT32_MAX for the tree's root.
  std::vector<std::uint32_t> parent[2];
};

/// The trees for n >= 1 ranks: tree 1 in rank order, tree 2 mirrored (even n) or shifted (odd n).
DoubleBinaryTree double_binary_tree(std::uint32_t n);

}  // namespace collsim::collective
