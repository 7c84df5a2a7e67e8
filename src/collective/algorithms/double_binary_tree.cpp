// Double binary tree all-reduce (Sanders et al. 2009, as NCCL runs it; a baseline of MultiTree
// (ISCA'21) Sec. V): the data is split in two halves, each reduced up one binary tree to its
// root and broadcast back down, pipelined in segments. Tree 1 places rank r at in-order position
// r (the rank order, oblivious of the topology): position p's parent clears p's lowest set bit b
// and sets 2b (or only clears b when that is past the end), so the odd positions are the leaves
// and position 0 is the root, whose one child is the largest power of two below N. Tree 2 is
// tree 1 mirrored (rank r at position N - 1 - r) for even N and shifted by one for odd N, so a
// leaf of one tree is an inner node of the other and every rank sends about as much as any other.
//
// The halves run on two streams (program.hpp), so one tree never waits for the other. A stream
// sends every segment up before it forwards any down: segments pipeline through the tree's
// levels in both phases. (Interleaving the broadcast of segment k - L with the reduction of
// segment k was measured on the flow backend at 64 MiB on a 4x4 torus: 10-40% slower for every
// lag L tried, as the two phases then share the links.) Op.step is 2k + 1 for tree 1 and
// 2k + 2 for tree 2 (even and odd steps), earlier segments first.
#include "collective/algorithms/double_binary_tree.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "collective/algorithm.hpp"
#include "core/error.hpp"

namespace collsim::collective {
namespace {

constexpr std::uint32_t kNone = UINT32_MAX;

// Parent position of in-order position p of an n-node tree rooted at position 0.
std::uint32_t parent_position(std::uint32_t p, std::uint32_t n) {
  if (p == 0) return kNone;
  const std::uint32_t bit = p & (~p + 1);
  const std::uint32_t up = (p ^ bit) | (bit << 1);
  return up < n ? up : p ^ bit;
}

}  // namespace

DoubleBinaryTree double_binary_tree(std::uint32_t n) {
  DoubleBinaryTree t;
  t.parent[0].assign(n, kNone);
  t.parent[1].assign(n, kNone);
  // Position of rank r in tree 2, and its inverse.
  const auto pos2 = [n](std::uint32_t r) { return n % 2 == 0 ? n - 1 - r : (r + n - 1) % n; };
  const auto rank2 = [n](std::uint32_t p) { return n % 2 == 0 ? n - 1 - p : (p + 1) % n; };
  for (std::uint32_t r = 0; r < n; ++r) {
    t.parent[0][r] = parent_position(r, n);
    const std::uint32_t up = parent_position(pos2(r), n);
    t.parent[1][r] = up == kNone ? kNone : rank2(up);
  }
  return t;
}

namespace {

Program build(const BuildRequest& req) {
  const std::uint32_t n = req.ranks();
  if (n < 2) throw core::InputError("algorithm double-binary-tree: needs at least 2 ranks");
  const auto segments = static_cast<std::uint32_t>(req.params.at("segments"));
  const std::uint32_t K = req.chunks * segments;
  Program p = make_program("double-binary-tree", req.collective, n, req.size, K);
  p.streams = 2;
  p.ops.assign(std::size_t{n} * 2, {});
  const DoubleBinaryTree trees = double_binary_tree(n);
  const std::uint32_t half[2] = {(n + 1) / 2, n / 2};  // pieces of a segment on each tree
  for (std::uint32_t t = 0; t < 2; ++t) {
    if (half[t] == 0) continue;
    std::vector<std::vector<Rank>> children(n);
    for (Rank r = 0; r < n; ++r) {
      if (trees.parent[t][r] != kNone) children[trees.parent[t][r]].push_back(r);
    }
    for (Rank r = 0; r < n; ++r) {
      auto& lane = p.ops[p.lane(r, t)];
      const Rank up = trees.parent[t][r];
      const auto first = [&](std::uint32_t k) { return k * n + (t == 0 ? 0 : half[0]); };
      const auto step = [&](std::uint32_t k) {
        return static_cast<std::uint16_t>(std::min<std::uint32_t>(2 * k + t + 1, UINT16_MAX));
      };
      const auto reduce = [&](std::uint32_t k) {
        for (Rank c : children[r]) {
          lane.push_back(Op{Op::Kind::RecvReduce, c, first(k), half[t], false, step(k)});
        }
        if (up != kNone) lane.push_back(Op{Op::Kind::Send, up, first(k), half[t], true, step(k)});
      };
      const auto broadcast = [&](std::uint32_t k) {
        if (up != kNone) lane.push_back(Op{Op::Kind::Recv, up, first(k), half[t], false, step(k)});
        for (Rank c : children[r]) {
          lane.push_back(Op{Op::Kind::Send, c, first(k), half[t], false, step(k)});
        }
      };
      for (std::uint32_t k = 0; k < K; ++k) reduce(k);
      for (std::uint32_t k = 0; k < K; ++k) broadcast(k);
    }
  }
  return p;
}

// Two trees of N - 1 edges, each edge twice (reduce, broadcast) per segment, stored.
ProgramSize size(const BuildRequest& req) {
  const std::uint64_t n = req.ranks();
  const auto segments = static_cast<std::uint64_t>(req.params.at("segments"));
  const std::uint64_t sends = 4 * (n - 1) * segments;
  return {sends, 2 * sends};
}

}  // namespace

AlgorithmInfo double_binary_tree_info() {
  AlgorithmInfo a{
      "double-binary-tree",
      "double binary tree (NCCL-style): half the data reduced up and broadcast down each of two "
      "complementary binary trees over the rank order, pipelined in segments",
      "Sanders et al. 2009; NCCL; MultiTree (ISCA'21) Sec. V baseline",
      {Collective::AllReduce},
      {count_param("segments", 8, 1, 4096,
                   "pipeline segments per chunk (each a message on each tree edge)")},
      &build};
  a.size = &size;
  return a;
}

}  // namespace collsim::collective
