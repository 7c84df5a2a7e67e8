// NCCL's ring (all-reduce, all-gather, reduce-scatter) over every rank of every node: NCCL builds
// one ring per channel, and with a NIC per GPU on rail-optimised leaf switches each ring leaves a
// node through its own NIC, so the rings together move min(NVLink rate, GPUs per node x NIC rate)
// per GPU (Patarasuk & Yuan's bandwidth-optimal ring; NCCL's src/device/all_reduce.h runRing).
// Latency and the protocols' rates are NCCL's tuner's (src/tuning/ring.cc; tuner.hpp).
#include <algorithm>

#include "collective/nccl/model.hpp"
#include "collective/nccl/tuner.hpp"

namespace collsim::collective::nccl {

namespace {

std::string_view refusal(Op op, const Context&) {
  if (op == Op::AllToAll || op == Op::SendRecv)
    return "ring runs all-reduce, all-gather and "
           "reduce-scatter (alltoall and sendrecv: p2p)";
  return "";
}

double seconds(Op op, double bytes, const Context& ctx, Protocol p) {
  const Shape& s = ctx.shape;
  const double n = s.ranks();
  double rate = nvlink_rate(ctx);
  if (s.nodes > 1) rate = std::min(rate, s.gpus * nic_rate(ctx));
  const double volume = (op == Op::AllReduce ? 2 : 1) * (n - 1) / n * bytes;
  const double latency =
      tuner_latency(TunerAlgo::Ring, p, op, ctx) * ring_plateau_factor(p, op, bytes, ctx);
  return ctx.calibration.overhead_s + latency + volume / ring_protocol_rate(rate, p, ctx);
}

}  // namespace

AlgorithmInfo ring_algorithm() {
  return {.name = "ring",
          .description = "NCCL's ring over all ranks, one ring per channel (LL, LL128, Simple)",
          .source =
              "Patarasuk & Yuan (JPDC 2009); NCCL src/device/all_reduce.h runRing; tuner "
              "src/tuning/ring.cc",
          .refusal = refusal,
          .seconds = seconds,
          .protocols = kAllProtocols};
}

}  // namespace collsim::collective::nccl
