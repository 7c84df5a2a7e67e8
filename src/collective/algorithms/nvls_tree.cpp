// NVLS-tree all-reduce across nodes (NCCL's NVLS_TREE, NCCL 2.18+; src/device/all_reduce.h
// runNvlsTree): NVLS inside each node, a double binary tree between the nodes (Sanders, Speck &
// Traeff 2009, as NCCL builds its trees), pipelined in slices. The ranks are grouped by the
// reducing switch they hang off (a node's NVSwitch: railfat:NxG:reduce=system, in_network.hpp);
// every node has g ranks, local rank j of every node handles shard j. For each slice and each
// of the two trees (half of every shard, one stream each: program.hpp streams):
//   1. reduce-scatter inside the node through its switch: every rank sends shard j' to the
//      switch (SwitchReduce to local rank j'), local rank j receives the node's sum of shard j
//      (RecvSwitch), as nvls.cpp;
//   2. up the tree: local rank j adds its children's sums (RecvReduce from local rank j of the
//      child nodes) and sends the result to local rank j of its parent node; the root node then
//      holds the full sum;
//   3. down the tree: it comes back from the parent (Recv) and goes on to the children;
//   4. multicast inside the node through its switch (Multicast), as nvls.cpp's all-gather.
// Between nodes only local ranks j talk, so on a rail-optimised fabric the tree of shard j stays
// on rail j and the g rails run g trees at once. Ops of slice i are interleaved with the up-send
// of slice i-1 and the down phase of slice i-L, L = 2 + 4 x the node's depth in the tree (lag()
// below), so a lane does not wait for a slice's round trip through the tree before it starts
// the next slices.
// Per GPU: (g+1)/g S each way through its switch port (as NVLS), and over its NIC about 2 S/g
// each way for an inner tree node (S/g with 2 nodes): docs/nccl.md "nvls-tree".
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "collective/algorithm.hpp"
#include "collective/algorithms/double_binary_tree.hpp"
#include "collective/algorithms/in_network.hpp"
#include "core/error.hpp"

namespace collsim::collective {
namespace {

constexpr std::uint32_t kRoot = UINT32_MAX;

// The ranks by node (reducing switch), nodes in order of their first rank, ranks in rank order.
struct Nodes {
  std::vector<std::uint32_t> rank_switch;      // rank -> its switch
  std::vector<std::vector<Rank>> ranks;        // node -> its ranks
  std::vector<std::uint32_t> node_of, local_of;  // rank -> node, local index
};

Nodes group_by_switch(const BuildRequest& req) {
  const std::uint32_t n = req.ranks();
  Nodes nodes;
  std::map<std::uint32_t, std::uint32_t> index;  // switch -> node
  for (Rank r = 0; r < n; ++r) {
    const std::uint32_t npu = req.communicator.npus[r];
    const std::uint32_t sw = node_reduction_switch(req.topology, npu);
    if (sw == kNoSwitch) {
      throw core::InputError(fmt::format(
          "algorithm nvls-tree: rank {} (NPU {}) has no switch that offers in-network "
          "reduction (NVLS) in {}; give each node's switch one, e.g. railfat:2x8:reduce=system",
          r, npu, req.topology.name()));
    }
    const auto it = index.emplace(sw, static_cast<std::uint32_t>(nodes.ranks.size())).first;
    if (it->second == nodes.ranks.size()) nodes.ranks.emplace_back();
    nodes.rank_switch.push_back(sw);
    nodes.node_of.push_back(it->second);
    nodes.local_of.push_back(static_cast<std::uint32_t>(nodes.ranks[it->second].size()));
    nodes.ranks[it->second].push_back(r);
  }
  if (nodes.ranks.size() < 2) {
    throw core::InputError(fmt::format(
        "algorithm nvls-tree: every rank is on one reducing switch of {}; nvls-tree spans "
        "several nodes (inside one: nvls)",
        req.topology.name()));
  }
  for (const auto& node : nodes.ranks) {
    if (node.size() != nodes.ranks[0].size() || node.size() < 2) {
      throw core::InputError(fmt::format(
          "algorithm nvls-tree: needs the same number (2 or more) of ranks on every node's "
          "switch; {} has {} and {}",
          req.topology.name(), nodes.ranks[0].size(), node.size()));
    }
  }
  return nodes;
}

// Depth of node v in a tree given by parents (root: kRoot, depth 0).
std::uint32_t depth(const std::vector<std::uint32_t>& parent, std::uint32_t v) {
  std::uint32_t d = 0;
  for (std::uint32_t u = v; parent[u] != kRoot; u = parent[u]) ++d;
  return d;
}

// Iterations between a slice's reduce-scatter and its down phase at tree depth d. A node's
// up-send of slice i-1 is issued in iteration i, so its parent's iteration i waits for it; a
// child must therefore take its down phase of a slice in a later iteration than its parent, or
// every iteration would wait for a round trip to the parent. kLagPerLevel iterations per level
// leave room for the round trip (two hops of a slice plus their latency) while the lane goes on
// reducing later slices.
constexpr std::uint32_t kLagBase = 2, kLagPerLevel = 4;
std::uint32_t lag(std::uint32_t d) { return kLagBase + kLagPerLevel * d; }

Program build(const BuildRequest& req) {
  const std::uint32_t n = req.ranks();
  const Nodes nodes = group_by_switch(req);
  const auto num_nodes = static_cast<std::uint32_t>(nodes.ranks.size());
  const auto g = static_cast<std::uint32_t>(nodes.ranks[0].size());
  const auto slices = static_cast<std::uint32_t>(req.params.at("slices"));
  const std::uint64_t pieces = std::uint64_t{req.chunks} * slices * g * 2;
  if (pieces > UINT32_MAX / 2) {
    throw core::InputError(fmt::format(
        "algorithm nvls-tree: {} chunks x {} slices x {} shards x 2 trees is too many pieces",
        req.chunks, slices, g));
  }
  Program p = make_program("nvls-tree", req.collective, n, req.size, req.chunks);
  p.num_pieces = static_cast<std::uint32_t>(pieces);
  p.npus = req.communicator.npus;
  p.streams = 2;
  p.ops.assign(std::size_t{n} * 2, {});
  p.in_network_switch = nodes.rank_switch[0];
  p.rank_switch = nodes.rank_switch;
  const DoubleBinaryTree trees = double_binary_tree(num_nodes);
  const std::uint32_t K = req.chunks * slices;
  // Piece of slice k, shard j, tree t.
  const auto piece = [g](std::uint32_t k, std::uint32_t j, std::uint32_t t) {
    return (k * g + j) * 2 + t;
  };
  for (std::uint32_t t = 0; t < 2; ++t) {
    std::vector<std::vector<std::uint32_t>> children(num_nodes);
    for (std::uint32_t a = 0; a < num_nodes; ++a) {
      if (trees.parent[t][a] != kRoot) children[trees.parent[t][a]].push_back(a);
    }
    for (Rank r = 0; r < n; ++r) {
      const std::uint32_t a = nodes.node_of[r], j = nodes.local_of[r];
      const std::vector<Rank>& mine = nodes.ranks[a];
      const std::uint32_t up = trees.parent[t][a];
      const std::uint32_t late = lag(depth(trees.parent[t], a));
      auto& ops = p.ops[p.lane(r, t)];
      ops.reserve(std::size_t{K} * (2 * g + 2 * children[a].size() + 4));
      for (std::uint32_t i = 0; i < K + late; ++i) {
        if (i < K) {  // 1. the node's reduce-scatter through its switch; post the tree's recvs
          for (std::uint32_t d = 1; d <= g; ++d) {
            const std::uint32_t to = (j + d) % g;
            ops.emplace_back(Op::Kind::SwitchReduce, mine[to], piece(i, to, t), 1);
          }
          ops.emplace_back(Op::Kind::RecvSwitch, r, piece(i, j, t), 1);
          for (std::uint32_t c : children[a]) {
            ops.emplace_back(Op::Kind::RecvReduce, nodes.ranks[c][j], piece(i, j, t), 1);
          }
          for (std::uint32_t from = 0; from < g; ++from) {  // 4.'s multicasts, received
            if (from != j) ops.emplace_back(Op::Kind::Recv, mine[from], piece(i, from, t), 1);
          }
        }
        if (i >= 1 && i <= K && up != kRoot) {  // 2. up, and post 3.'s recv
          const Rank parent = nodes.ranks[up][j];
          ops.emplace_back(Op::Kind::Send, parent, piece(i - 1, j, t), 1, true);
          ops.emplace_back(Op::Kind::Recv, parent, piece(i - 1, j, t), 1);
        }
        if (i >= late) {  // 3. down to the children, 4. the multicast
          const std::uint32_t k = i - late;
          for (std::uint32_t c : children[a]) {
            ops.emplace_back(Op::Kind::Send, nodes.ranks[c][j], piece(k, j, t), 1);
          }
          ops.emplace_back(Op::Kind::Multicast, r, piece(k, j, t), 1);
        }
      }
    }
  }
  return p;
}

ProgramSize size(const BuildRequest& req) {
  // Per lane and slice at most g switch reductions, 2 sends up and down a binary tree's
  // children, one up, one multicast; recvs: one from the switch, 2 children, one from the
  // parent, g - 1 multicasts; g = the ranks on rank 0's switch.
  const std::uint64_t n = req.ranks();
  const std::uint32_t sw0 = node_reduction_switch(req.topology, req.communicator.npus.at(0));
  std::uint64_t g = 0;
  for (std::uint32_t npu : req.communicator.npus) {
    g += node_reduction_switch(req.topology, npu) == sw0 ? 1 : 0;
  }
  const std::uint64_t lanes_slices =
      2 * n * req.chunks * static_cast<std::uint64_t>(req.params.at("slices"));
  return {lanes_slices * (g + 4), lanes_slices * (2 * g + 8)};
}

std::string requires_switches(const topology::Topology& topo) {
  std::uint32_t first = kNoSwitch;
  bool several = false;
  for (std::uint32_t npu = 0; npu < topo.num_npus(); ++npu) {
    const std::uint32_t sw = node_reduction_switch(topo, npu);
    if (sw == kNoSwitch) {
      return fmt::format(
          "needs every GPU on a node switch that offers in-network reduction (NVLS), e.g. "
          "railfat:2x8:reduce=system; NPU {} of {} has none",
          npu, topo.name());
    }
    several = several || (first != kNoSwitch && sw != first);
    if (first == kNoSwitch) first = sw;
  }
  if (!several) {
    return fmt::format(
        "spans several nodes' reducing switches; every NPU of {} is on one (inside one: nvls)",
        topo.name());
  }
  return "";
}

}  // namespace

AlgorithmInfo nvls_tree_info() {
  AlgorithmInfo a{
      "nvls-tree",
      "NVLS inside each node (its switch reduces, then multicasts) and a double binary tree "
      "between the nodes, per shard over the NICs (local rank j of every node: one rail), "
      "pipelined in slices. Needs a reducing switch per node (railfat:NxG:reduce=system)",
      "NCCL's NVLS_TREE (NCCL 2.18+, src/device/all_reduce.h runNvlsTree); Sanders, Speck & "
      "Traeff 2009 (double binary trees); Hopper architecture whitepaper (NVLink SHARP)",
      {Collective::AllReduce},
      {count_param("slices", 64, 1, 4096,
                   "slices each chunk is streamed in through switches and trees (NCCL streams "
                   "NVLS-tree in small chunks)")},
      &build};
  a.in_all = [](const topology::Topology& t) {
    return t.has_in_network() && requires_switches(t).empty();
  };
  a.requires_topology = &requires_switches;
  a.size = &size;
  return a;
}

}  // namespace collsim::collective
