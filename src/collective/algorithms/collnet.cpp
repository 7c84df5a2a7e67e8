// CollNet Direct all-reduce (NCCL's COLLNET_DIRECT, src/device/all_reduce.h runCollNetDirect):
// the GPUs of a node reduce-scatter over NVLink, each GPU's NIC sends its shard to an InfiniBand
// switch with SHARP (Scalable Hierarchical Aggregation and Reduction Protocol; NVIDIA Quantum /
// Quantum-2), which reduces the shards of every node and returns the sum, and the node
// all-gathers over NVLink. Ranks are grouped into nodes by the topology's dimension 0 (railfat:
// a node's GPUs) and local rank j of every node hangs off the same SHARP switch (its rail's leaf:
// railfat:NxG:sharp=line, one leaf per rail). For each slice of every chunk:
//   1. reduce-scatter in the node, direct (NCCL's direct scatter to the node's NIC-owning GPUs,
//      here every GPU): rank j sends shard j' to local rank j' (Send, reduce) and adds the g-1
//      shards j it receives;
//   2. the rail's switch reduces shard j across the N nodes: shard j is cut into N sub-shards,
//      sub-shard m reduced to local rank j of node m (SwitchReduce, RecvSwitch), which
//   3. multicasts it through the switch to local rank j of every node (Multicast), so every
//      node's rank j holds the sum of shard j. (The switch's all-reduce is one reduction and one
//      multicast, as collsim models NVLS: each NIC carries (N+1)/N of shard j each way where
//      SHARP's own all-reduce carries 1; docs/nccl.md "collnet".)
//   4. all-gather in the node: rank j sends the summed shard j to every local rank.
// A lane interleaves the reduce-scatter of slice i with the switch's reduction of slice i-1, the
// multicast of slice i-3 and the all-gather of slice i-5, so no slice's cross-node round trip
// holds back the next.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "collective/algorithm.hpp"
#include "collective/algorithms/in_network.hpp"
#include "core/error.hpp"

namespace collsim::collective {
namespace {

constexpr std::uint32_t kSharpLag = 1, kMulticastLag = 2, kGatherLag = 2;

struct Layout {
  std::vector<std::uint32_t> rank_switch;
  std::vector<std::vector<Rank>> nodes;          // node -> its ranks, local order
  std::vector<std::uint32_t> node_of, local_of;  // rank -> node, local index
};

Layout layout(const BuildRequest& req) {
  const topology::Topology& topo = req.topology;
  const std::uint32_t G = node_size(topo);
  if (G == 0) {
    throw core::InputError(fmt::format(
        "algorithm collnet: needs nodes (dimension 0) and a network (dimension 1), e.g. "
        "railfat:4x8:sharp=line; {} has {} dimension(s)",
        topo.name(), topo.dimensions().size()));
  }
  if (topo.dimensions()[1].spec.links_per_npu > 1) {
    throw core::InputError(fmt::format(
        "algorithm collnet: each GPU's NIC reaches {} SHARP planes in {}; collnet reduces "
        "through one switch per rail (give planes=1)",
        topo.dimensions()[1].spec.links_per_npu, topo.name()));
  }
  Layout lay;
  std::map<std::uint32_t, std::uint32_t> index;  // node id -> node
  for (Rank r = 0; r < req.ranks(); ++r) {
    const std::uint32_t npu = req.communicator.npus[r];
    const std::uint32_t sw = network_reduction_switch(topo, npu);
    if (sw == kNoSwitch) {
      throw core::InputError(fmt::format(
          "algorithm collnet: rank {} (NPU {}) has no network switch that offers in-network "
          "reduction (SHARP) in {}; give the leaves one, e.g. railfat:4x8:sharp=line",
          r, npu, topo.name()));
    }
    const auto it = index.emplace(npu / G, static_cast<std::uint32_t>(lay.nodes.size())).first;
    if (it->second == lay.nodes.size()) lay.nodes.emplace_back();
    lay.rank_switch.push_back(sw);
    lay.node_of.push_back(it->second);
    lay.local_of.push_back(static_cast<std::uint32_t>(lay.nodes[it->second].size()));
    lay.nodes[it->second].push_back(r);
  }
  const auto num_nodes = static_cast<std::uint32_t>(lay.nodes.size());
  if (num_nodes < 2) {
    throw core::InputError(fmt::format(
        "algorithm collnet: every rank is in one node of {}; collnet spans several nodes",
        topo.name()));
  }
  for (const auto& node : lay.nodes) {
    if (node.size() != lay.nodes[0].size()) {
      throw core::InputError(fmt::format(
          "algorithm collnet: needs the same number of ranks in every node of {}; {} and {}",
          topo.name(), lay.nodes[0].size(), node.size()));
    }
  }
  // Local rank j of every node on one switch, and nobody else on it: the switch's domain is the
  // rail (program.hpp).
  std::map<std::uint32_t, std::uint32_t> members;  // switch -> ranks on it
  for (Rank r = 0; r < req.ranks(); ++r) ++members[lay.rank_switch[r]];
  for (Rank r = 0; r < req.ranks(); ++r) {
    const Rank first = lay.nodes[0][lay.local_of[r]];
    if (lay.rank_switch[r] != lay.rank_switch[first] || members[lay.rank_switch[r]] != num_nodes) {
      throw core::InputError(fmt::format(
          "algorithm collnet: local rank {} of every node must share one SHARP switch with no "
          "other rank on it (one leaf per rail: at most leaf= nodes, one plane); rank {} (NPU "
          "{}) of {} does not",
          lay.local_of[r], r, req.communicator.npus[r], topo.name()));
    }
  }
  return lay;
}

Program build(const BuildRequest& req) {
  const std::uint32_t n = req.ranks();
  const Layout lay = layout(req);
  const auto N = static_cast<std::uint32_t>(lay.nodes.size());
  const auto g = static_cast<std::uint32_t>(lay.nodes[0].size());
  const auto slices = static_cast<std::uint32_t>(req.params.at("slices"));
  const std::uint64_t pieces = std::uint64_t{req.chunks} * slices * g * N;
  if (pieces > UINT32_MAX / 2) {
    throw core::InputError(fmt::format(
        "algorithm collnet: {} chunks x {} slices x {} ranks is too many pieces", req.chunks,
        slices, n));
  }
  Program p = make_program("collnet", req.collective, n, req.size, req.chunks);
  p.num_pieces = static_cast<std::uint32_t>(pieces);
  p.npus = req.communicator.npus;
  p.in_network_switch = lay.rank_switch[0];
  p.rank_switch = lay.rank_switch;
  const std::uint32_t K = req.chunks * slices;
  // Sub-shard m of shard j of slice k; a shard is its N sub-shards.
  const auto piece = [g, N](std::uint32_t k, std::uint32_t j, std::uint32_t m) {
    return (k * g + j) * N + m;
  };
  const std::uint32_t last = kSharpLag + kMulticastLag + kGatherLag;
  for (Rank r = 0; r < n; ++r) {
    const std::uint32_t a = lay.node_of[r], j = lay.local_of[r];
    const std::vector<Rank>& mine = lay.nodes[a];
    auto& ops = p.ops[r];
    ops.reserve(std::size_t{K} * (4 * g + 3 * N));
    for (std::uint32_t i = 0; i < K + last; ++i) {
      if (i < K) {  // 1. reduce-scatter in the node
        for (std::uint32_t d = 1; d < g; ++d) {
          const std::uint32_t to = (j + d) % g;
          ops.emplace_back(Op::Kind::Send, mine[to], piece(i, to, 0), N, true);
        }
        for (std::uint32_t d = 1; d < g; ++d) {
          ops.emplace_back(Op::Kind::RecvReduce, mine[(j + g - d) % g], piece(i, j, 0), N);
        }
      }
      if (i >= kSharpLag && i - kSharpLag < K) {  // 2. the switch reduces across nodes
        const std::uint32_t k = i - kSharpLag;
        for (std::uint32_t d = 1; d <= N; ++d) {
          const std::uint32_t m = (a + d) % N;
          ops.emplace_back(Op::Kind::SwitchReduce, lay.nodes[m][j], piece(k, j, m), 1);
        }
        ops.emplace_back(Op::Kind::RecvSwitch, r, piece(k, j, a), 1);
        for (std::uint32_t m = 0; m < N; ++m) {
          if (m != a) ops.emplace_back(Op::Kind::Recv, lay.nodes[m][j], piece(k, j, m), 1);
        }
      }
      if (i >= kSharpLag + kMulticastLag && i - kSharpLag - kMulticastLag < K) {  // 3.
        ops.emplace_back(Op::Kind::Multicast, r, piece(i - kSharpLag - kMulticastLag, j, a), 1);
      }
      if (i >= last && i - last < K) {  // 4. all-gather in the node
        const std::uint32_t k = i - last;
        for (std::uint32_t d = 1; d < g; ++d) {
          ops.emplace_back(Op::Kind::Send, mine[(j + d) % g], piece(k, j, 0), N);
        }
        for (std::uint32_t d = 1; d < g; ++d) {
          const std::uint32_t from = (j + g - d) % g;
          ops.emplace_back(Op::Kind::Recv, mine[from], piece(k, from, 0), N);
        }
      }
    }
  }
  return p;
}

ProgramSize size(const BuildRequest& req) {
  // Per rank and slice: 2 (g-1) sends in the node, N switch reductions, one multicast; recvs:
  // 2 (g-1) in the node, one from the switch, N-1 multicasts. g and N from dimension 0.
  const std::uint64_t n = req.ranks();
  const std::uint64_t g =
      std::max<std::uint64_t>(1, std::min<std::uint64_t>(node_size(req.topology), n));
  const std::uint64_t N = (n + g - 1) / g;
  const std::uint64_t rank_slices =
      n * req.chunks * static_cast<std::uint64_t>(req.params.at("slices"));
  const std::uint64_t sends = 2 * (g - 1) + N + 1;
  return {rank_slices * sends, rank_slices * (sends + 2 * (g - 1) + N)};
}

std::string requires_sharp(const topology::Topology& topo) {
  const std::uint32_t G = node_size(topo);
  if (G == 0 || !topo.has_in_network()) {
    return fmt::format(
        "needs nodes whose GPUs' NICs hang off network switches with in-network reduction "
        "(SHARP), e.g. railfat:4x8:sharp=line; {} has none",
        topo.name());
  }
  for (std::uint32_t npu = 0; npu < topo.num_npus(); ++npu) {
    if (network_reduction_switch(topo, npu) == kNoSwitch) {
      return fmt::format(
          "needs every GPU's NIC on a network switch with in-network reduction (SHARP), e.g. "
          "railfat:4x8:sharp=line; NPU {} of {} has none",
          npu, topo.name());
    }
  }
  return "";
}

}  // namespace

AlgorithmInfo collnet_info() {
  AlgorithmInfo a{
      "collnet",
      "CollNet Direct (InfiniBand SHARP): reduce-scatter in each node over NVLink, each GPU's "
      "shard reduced across the nodes by its rail's switch and multicast back, all-gather in "
      "the node; pipelined in slices. Needs SHARP leaves (railfat:NxG:sharp=line)",
      "NCCL's COLLNET_DIRECT (src/device/all_reduce.h runCollNetDirect) over NVIDIA SHARP "
      "(Graham et al., COMHPC 2016; SHARPv2/v3 streaming aggregation on Quantum / Quantum-2)",
      {Collective::AllReduce},
      {count_param("slices", 32, 1, 4096,
                   "slices each chunk is streamed in through the node and the switches")},
      &build};
  a.in_all = [](const topology::Topology& t) {
    return t.has_in_network() && requires_sharp(t).empty();
  };
  a.requires_topology = &requires_sharp;
  a.size = &size;
  return a;
}

}  // namespace collsim::collective
