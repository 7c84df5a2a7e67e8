// NCCL's PAT ("Parallel Aggregated Trees", NCCL 2.23+; all-gather and reduce-scatter): each
// rank's shard travels a binomial tree over ranks at power-of-two distances (collsim's algorithm
// `pat`, algorithms/pat.cpp, runs it on the simulated backends). NCCL enables it as its tuner
// says (src/tuning/pat.cc ncclPatEnable, NCCL 2.29):
//   * only all-gather and reduce-scatter, Simple protocol only;
//   * only with one GPU per node (nNodes == nRanks; NCCL_PAT_ENABLE unset);
//   * bandwidth: the channels' rate x 0.75, with no algorithm-bandwidth conversion, so the
//     whole buffer S moves at 0.75 R (R: the NIC rate with one GPU per node);
//   * latency: NCCL's tuner's (src/tuning/pat.cc): 8 us + log2i(nodes) x (network step /
//     3.5) + 2.8 us per rank, the network step PAT's own 14 us.
// The `nccl` choice then takes PAT where it is faster than the ring, as NCCL's tuner does (least
// predicted time).
#include <algorithm>

#include "collective/nccl/model.hpp"
#include "collective/nccl/tuner.hpp"

namespace collsim::collective::nccl {

namespace {

constexpr double kBandwidthFactor = 0.75;  // pat.cc: generalBandwidths = busBw * 0.75

std::string_view refusal(Op op, const Context& ctx) {
  if (op != Op::AllGather && op != Op::ReduceScatter) {
    return "PAT runs all-gather and reduce-scatter (NCCL)";
  }
  if (ctx.shape.gpus != 1) return "NCCL enables PAT with one GPU per node only (-g 1)";
  return "";
}

double seconds(Op op, double bytes, const Context& ctx, Protocol p) {
  // pat.cc: min(bwInter, bwIntra) x channels; with one GPU per node its NIC.
  const double rate = std::min(nvlink_rate(ctx), nic_rate(ctx));
  return ctx.calibration.overhead_s + tuner_latency(TunerAlgo::Pat, p, op, ctx) +
         bytes / (kBandwidthFactor * rate);
}

}  // namespace

AlgorithmInfo pat_algorithm() {
  return {.name = "pat",
          .description =
              "NCCL's Parallel Aggregated Trees: all-gather and reduce-scatter with "
              "one GPU per node, log2(nodes) latency, 0.75 of the NIC rate",
          .source =
              "NCCL 2.23+ src/include/collectives.h PatAGAlgorithm/PatRSAlgorithm; "
              "src/tuning/pat.cc (ncclPatEnable, PAT bandwidth and latency)",
          .refusal = refusal,
          .seconds = seconds};
}

}  // namespace collsim::collective::nccl
