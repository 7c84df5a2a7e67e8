// NCCL's CollNet Direct all-reduce across nodes over InfiniBand SHARP (the switches reduce):
// every GPU scatters its buffer to the node's GPUs over NVLink (direct reduce-scatter), each GPU
// sends its shard S/g through its own NIC to the SHARP tree, which returns the sum of every
// node's shard, and the node gathers the shards back over NVLink (collsim's `collnet` algorithm,
// algorithms/collnet.cpp, runs it on the simulated backends). Per GPU, pipelined:
//   NVLink: 2 (g-1)/g S each way (scatter and gather), at the NVLink rate (nvlink_rate);
//   NIC: S/g each way (SHARP reduces and returns in the network), at the NIC rate, as
//   SHARPv2/v3 aggregates large messages at the port's line rate ("streaming aggregation");
// the slower sets the rate: min(B g / (2 (g-1)), g b). Latency from NCCL's tuner
// (src/tuning/collnet.cc, NCCL 2.29, CollNet Direct, Simple): base 0; 2 x (one NVLink step,
// 3.7 us, + 0.4 us of arity serialization per other GPU of the node) + one network step, 31 us.
// NCCL's tuner prices the bandwidth from its topology search instead (the channels' intra-node
// rate, / (GPUs per NIC, halved) and x 0.85 on Hopper, x 0.5 to algorithm bandwidth); collsim uses
// the link rates, as its other algorithms do. NCCL runs CollNet only when the SHARP plugin is
// loaded and NCCL_COLLNET_ENABLE=1, so the `nccl` choice never takes it: name it (--algorithm
// collnet).
#include <algorithm>
#include <limits>

#include "collective/nccl/model.hpp"
#include "collective/nccl/tuner.hpp"

namespace collsim::collective::nccl {

namespace {

std::string_view refusal(Op op, const Context& ctx) {
  if (ctx.shape.nodes < 2) return "CollNet reduces in the network switches, across nodes";
  if (op != Op::AllReduce) return "collsim's CollNet runs all-reduce only (CollNet Direct)";
  return "";
}

double seconds(Op op, double bytes, const Context& ctx, Protocol p) {
  const double g = ctx.shape.gpus;
  const double intra =
      g > 1 ? nvlink_rate(ctx) * g / (2 * (g - 1)) : std::numeric_limits<double>::infinity();
  const double inter = g * nic_rate(ctx);
  return ctx.calibration.overhead_s + tuner_latency(TunerAlgo::CollNetDirect, p, op, ctx) +
         bytes / std::min(intra, inter);
}

}  // namespace

AlgorithmInfo collnet_algorithm() {
  return {.name = "collnet",
          .description =
              "CollNet Direct: reduce-scatter over NVLink, InfiniBand SHARP reduces "
              "across nodes in the switches, all-gather over NVLink (all-reduce; "
              "only when named, as NCCL_COLLNET_ENABLE)",
          .source =
              "NCCL CollNet Direct (src/device/all_reduce.h runCollNetDirect; tuner "
              "src/tuning/collnet.cc); NVIDIA SHARP (Graham et al., COMHPC 2016)",
          .refusal = refusal,
          .seconds = seconds,
          .protocols = kSimpleOnly,
          .named_only = true};
}

}  // namespace collsim::collective::nccl
