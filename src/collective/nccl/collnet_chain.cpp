// NCCL's CollNet Chain all-reduce across nodes over InfiniBand SHARP: inside each node the GPUs
// form a chain ending at a GPU with a NIC; data is reduced along the chain, the last GPU sends
// it through its NIC to the SHARP tree, which returns the sum of every node's, and it is
// broadcast back down the chain. NCCL runs one chain per channel, each ending at another NIC, so
// with one NIC per GPU the node's g NICs carry S/g each. Per GPU, pipelined: NVLink S each way
// in the reduction (from its predecessor, to its successor) and S each way in the broadcast, 2 S
// in all; NIC S/g each way. Rate min(B / 2, g b) (NCCL's tuner likewise halves CollNet Chain's
// bandwidth to algorithm bandwidth). Latency from NCCL's tuner (src/tuning/collnet.cc, NCCL
// 2.29, CollNet Chain, Simple: base 0; 2 (g-1) x 2.8 us per NVLink step + 30 us per network
// step). Named only, as collnet.cpp.
#include <algorithm>

#include "collective/nccl/model.hpp"
#include "collective/nccl/tuner.hpp"

namespace collsim::collective::nccl {

namespace {

std::string_view refusal(Op op, const Context& ctx) {
  if (ctx.shape.nodes < 2) return "CollNet reduces in the network switches, across nodes";
  if (op != Op::AllReduce) return "CollNet Chain runs all-reduce only";
  return "";
}

double seconds(Op op, double bytes, const Context& ctx, Protocol p) {
  const double g = ctx.shape.gpus;
  const double rate = std::min(g > 1 ? nvlink_rate(ctx) / 2 : nic_rate(ctx), g * nic_rate(ctx));
  return ctx.calibration.overhead_s + tuner_latency(TunerAlgo::CollNetChain, p, op, ctx) +
         bytes / rate;
}

}  // namespace

AlgorithmInfo collnet_chain_algorithm() {
  return {.name = "collnet-chain",
          .description =
              "CollNet Chain: reduce along a chain of the node's GPUs, InfiniBand "
              "SHARP reduces across nodes, broadcast back down the chain (all-reduce; "
              "only when named, as NCCL_COLLNET_ENABLE)",
          .source =
              "NCCL CollNet Chain (src/device/all_reduce.h runCollNetChain; tuner "
              "src/tuning/collnet.cc); NVIDIA SHARP (Graham et al., COMHPC 2016)",
          .refusal = refusal,
          .seconds = seconds,
          .protocols = kSimpleOnly,
          .named_only = true};
}

}  // namespace collsim::collective::nccl
