// NCCL's NVLS-tree all-reduce across nodes: NVLS inside each node (nvls.cpp) and a double binary
// tree between the nodes over their NICs, pipelined. In a double binary tree of 3 or more nodes an
// inner node sends and receives about 2 S over its NICs (half the data up and down each tree), so
// the inter-node part moves S at GPUs-per-node x NIC rate / 2; with 2 nodes each node is one
// tree's root and the other's leaf and moves S only, at the full NIC rate (NCCL's tuner,
// src/graph/tuning.cc: NVLS_TREE bandwidth min(bwIntra, nNodes <= 2 ? bwInter : bwInter / 2)).
// The slower of the two parts sets the rate. Latency: the switch's, plus 2 log2(nodes) network
// hops.
#include <algorithm>
#include <cmath>

#include "collective/nccl/model.hpp"

namespace collsim::collective::nccl {

namespace {

std::string_view refusal(Op op, const Context& ctx) {
  if (!ctx.system.nvls.available()) return "the system's NVSwitch has no in-network reduction";
  if (ctx.shape.nodes < 2) return "NVLS-tree spans several nodes (inside one: nvls)";
  if (op != Op::AllReduce) return "NVLS-tree runs all-reduce only";
  return "";
}

double seconds(Op, double bytes, const Context& ctx) {
  const double g = ctx.shape.gpus;
  const double intra = nvls_rate(ctx) * g / (g + 1);
  const double inter = g * nic_rate(ctx) / (ctx.shape.nodes <= 2 ? 1 : 2);
  const double hops = 2 * std::ceil(std::log2(static_cast<double>(ctx.shape.nodes)));
  return ctx.calibration.overhead_s + ctx.system.nvls.latency.value +
         hops * ctx.system.nic_latency.value + bytes / std::min(intra, inter);
}

}  // namespace

AlgorithmInfo nvls_tree_algorithm() {
  return {.name = "nvls-tree",
          .description = "NVLS inside each node, a double binary tree between nodes (all-reduce)",
          .source = "NCCL 2.18+ NVLS_TREE (src/device/all_reduce.h runNvlsTree); Sanders, "
                    "Speck & Traeff (2009) double binary trees",
          .refusal = refusal,
          .seconds = seconds,
          .protocols = kSimpleOnly,
          .steps = nullptr};
}

}  // namespace collsim::collective::nccl
