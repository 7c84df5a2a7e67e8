// NCCL's tree all-reduce: inside each node a chain through its GPUs, between nodes a double
// binary tree (Sanders, Speck & Traeff 2009; NCCL src/device/all_reduce.h runTreeSplit), one tree
// per channel. Its cost is NCCL's tuner's (src/tuning/tree.cc, tuner.hpp): the bus rate of the
// slower of NVLink and the node's NICs x 0.92, capped per channel (perChMaxTreeBws); LL: / 3.8,
// capped at llMaxBws; LL128: x 7/9 on one node, x 120/128 across nodes, capped per channel
// (perChMaxTreeLL128Bws); then half of it as the algorithm's rate (every byte goes up and down
// the tree), x NCCL's size correction for trees (treeCorrectionFactor); latency 2 ((GPUs per
// node - 1) NVLink steps + log2 nodes network steps) + the base. The log2 network latency is
// what makes NCCL pick it over the ring at mid sizes across many nodes.
#include <algorithm>

#include "collective/nccl/model.hpp"
#include "collective/nccl/tuner.hpp"

namespace collsim::collective::nccl {

namespace {

std::string_view refusal(Op op, const Context&) {
  if (op != Op::AllReduce) return "NCCL's tree runs all-reduce only";
  return "";
}

double seconds(Op op, double bytes, const Context& ctx, Protocol p) {
  const Shape& s = ctx.shape;
  double bus = nvlink_rate(ctx);
  if (s.nodes > 1) bus = std::min(bus, s.gpus * nic_rate(ctx));
  bus = std::min(0.92 * bus, tree_max_bandwidth(Protocol::Simple, ctx));
  if (p == Protocol::LL) bus = std::min(bus / 3.8, ll_max_bandwidth(ctx));
  if (p == Protocol::LL128) {
    bus = std::min(bus * (s.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                   tree_max_bandwidth(Protocol::LL128, ctx));
  }
  const double rate = 0.5 * bus * tree_correction(p, bytes);
  return ctx.calibration.overhead_s + tuner_latency(TunerAlgo::Tree, p, op, ctx) + bytes / rate;
}

}  // namespace

AlgorithmInfo tree_algorithm() {
  return {.name = "tree",
          .description =
              "NCCL's tree all-reduce: a chain in each node, a double binary tree "
              "between nodes (LL, LL128, Simple)",
          .source =
              "Sanders, Speck & Traeff (2009); NCCL src/device/all_reduce.h runTreeSplit; "
              "tuner src/tuning/tree.cc",
          .refusal = refusal,
          .seconds = seconds,
          .protocols = kAllProtocols};
}

}  // namespace collsim::collective::nccl
