// NCCL's ring (all-reduce, all-gather, reduce-scatter), Simple protocol, over every rank of every
// node: NCCL builds one ring per channel, and with a NIC per GPU on rail-optimised leaf switches
// each ring leaves a node through its own NIC, so the rings together move min(NVLink rate, GPUs
// per node x NIC rate) per GPU (Patarasuk & Yuan's bandwidth-optimal ring; NCCL's ring
// all-reduce, src/device/all_reduce.h runRing). Steps across nodes add the network hop latency.
#include <algorithm>

#include "collective/nccl/model.hpp"

namespace collsim::collective::nccl {

namespace {

std::string_view refusal(Op op, const Context&) {
  if (op == Op::AllToAll || op == Op::SendRecv) return "ring runs all-reduce, all-gather and "
                                                       "reduce-scatter (alltoall and sendrecv: p2p)";
  return "";
}

double seconds(Op op, double bytes, const Context& ctx) {
  const Shape& s = ctx.shape;
  const double n = s.ranks();
  double rate = nvlink_rate(ctx);
  if (s.nodes > 1) rate = std::min(rate, s.gpus * nic_rate(ctx));
  const double inter_steps = op == Op::AllReduce ? 2.0 * (s.nodes - 1) : s.nodes - 1.0;
  const double volume = (op == Op::AllReduce ? 2 : 1) * (n - 1) / n * bytes;
  return ctx.calibration.overhead_s + inter_steps * ctx.system.nic_latency.value + volume / rate;
}

void steps(Op op, const Context& ctx, double& nvlink, double& network) {
  const double n = ctx.shape.ranks(), nodes = ctx.shape.nodes;
  const double all = op == Op::AllReduce ? 2 * (n - 1) : n - 1;
  network = op == Op::AllReduce ? 2 * (nodes - 1) : nodes - 1;
  nvlink = all - network;
}

}  // namespace

AlgorithmInfo ring_algorithm() {
  return {.name = "ring",
          .description = "NCCL's ring over all ranks, one ring per channel, Simple protocol",
          .source = "Patarasuk & Yuan (JPDC 2009); NCCL src/device/all_reduce.h runRing",
          .refusal = refusal,
          .seconds = seconds,
          .protocols = kAllProtocols,
          .steps = steps};
}

}  // namespace collsim::collective::nccl
