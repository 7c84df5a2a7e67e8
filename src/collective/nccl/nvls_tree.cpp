// NCCL's NVLS-tree all-reduce across nodes: NVLS inside each node (nvls.cpp) and a double binary
// tree between the nodes over their NICs, pipelined. In a double binary tree of 3 or more nodes an
// inner node sends and receives about 2 S over its NICs (half the data up and down each tree), so
// the inter-node part moves S at GPUs-per-node x NIC rate / 2; with 2 nodes each node is one
// tree's root and the other's leaf and moves S only, at the full NIC rate (NCCL's tuner,
// src/tuning/nvls.cc: NVLS_TREE's network bandwidth doubled at 2 nodes or fewer). The slower of
// the two parts sets the rate, capped at NCCL's perChMaxNVLSTreeBws x NVLS channels (a bus
// bandwidth: x n / (2 (n - 1)) as the algorithm's). Latency: NCCL's tuner's, 25 us of NVLink +
// 2 log2i(nodes) network steps of 20.9 us.
#include <algorithm>

#include "collective/nccl/model.hpp"
#include "collective/nccl/tuner.hpp"

namespace collsim::collective::nccl {

namespace {

std::string_view refusal(Op op, const Context& ctx) {
  if (!ctx.system.nvls.available()) return "the system's NVSwitch has no in-network reduction";
  // src/transport/nvls.cc ncclNvlsInit: no NVLS with 2 GPUs or fewer on the node.
  if (ctx.shape.gpus <= 2) return "NCCL enables NVLS only with more than 2 GPUs per node";
  if (ctx.shape.nodes < 2) return "NVLS-tree spans several nodes (inside one: nvls)";
  if (op != Op::AllReduce) return "NVLS-tree runs all-reduce only";
  return "";
}

double seconds(Op op, double bytes, const Context& ctx, Protocol p) {
  const double g = ctx.shape.gpus, n = ctx.shape.ranks();
  const double intra = nvls_rate(ctx) * g / (g + 1);
  const double inter = g * nic_rate(ctx) / (ctx.shape.nodes <= 2 ? 1 : 2);
  const double cap = nvls_tree_max_bandwidth(ctx) * n / (2 * (n - 1));
  return ctx.calibration.overhead_s + tuner_latency(TunerAlgo::NvlsTree, p, op, ctx) +
         bytes / std::min({intra, inter, cap});
}

}  // namespace

AlgorithmInfo nvls_tree_algorithm() {
  return {.name = "nvls-tree",
          .description = "NVLS inside each node, a double binary tree between nodes (all-reduce)",
          .source =
              "NCCL 2.18+ NVLS_TREE (src/device/all_reduce.h runNvlsTree); Sanders, "
              "Speck & Traeff (2009) double binary trees",
          .refusal = refusal,
          .seconds = seconds,
          .protocols = kSimpleOnly};
}

}  // namespace collsim::collective::nccl
