// NCCL's PAT ("Parallel Aggregated Trees", NCCL 2.23+; all-gather and reduce-scatter): each
// rank's shard travels a binomial tree over ranks at power-of-two distances (collsim's algorithm
// `pat`, algorithms/pat.cpp, runs it on the simulated backends). NCCL enables it as its tuner
// says (src/graph/tuning.cc, ncclPatEnable and ncclTopoTuneModel, NCCL 2.23-2.2x):
//   * only all-gather and reduce-scatter, Simple protocol only;
//   * only with one GPU per node (nNodes == nRanks; NCCL_PAT_ENABLE unset);
//   * bandwidth: the channels' rate x 0.75, with no algorithm-bandwidth conversion, so the
//     whole buffer S moves at 0.75 R (R: the NIC rate with one GPU per node);
//   * latency: 8 us + log2(nodes) x (network latency / 3.5) + 2.8 us per rank, the network
//     latency being the tree's (NCCL uses the tree's when ppn = 1; 14 us, as h).
// The fitted call overhead alpha holds the ring's Simple base latency (8.4 us, docs/nccl.md
// "Protocols"), so PAT adds its own base minus that. The `nccl` choice then takes PAT where it is
// faster than the ring, as NCCL's tuner does (least predicted time).
#include <cmath>

#include "collective/nccl/model.hpp"

namespace collsim::collective::nccl {

namespace {

constexpr double kPatBase = 8e-6;            // tuning.cc: "8 // Base time"
constexpr double kRingSimpleBase = 8.4e-6;   // tuning.cc baseLat, ring, Simple (inside alpha)
constexpr double kPerRank = 2.8e-6;          // tuning.cc: "nRanks * 2.8"
constexpr double kLogDivisor = 3.5;          // tuning.cc: "log2i(nNodes) * (interLat/3.5)"
constexpr double kBandwidthFactor = 0.75;    // tuning.cc: "if (a == NCCL_ALGO_PAT) busBw *= .75"

std::string_view refusal(Op op, const Context& ctx) {
  if (op != Op::AllGather && op != Op::ReduceScatter) {
    return "PAT runs all-gather and reduce-scatter (NCCL)";
  }
  if (ctx.shape.gpus != 1) return "NCCL enables PAT with one GPU per node only (-g 1)";
  return "";
}

double seconds(Op, double bytes, const Context& ctx) {
  const Shape& s = ctx.shape;
  const double log_nodes = std::floor(std::log2(static_cast<double>(s.nodes)));
  const double latency = kPatBase - kRingSimpleBase +
                         log_nodes * ctx.system.nic_latency.value / kLogDivisor +
                         s.ranks() * kPerRank;
  return ctx.calibration.overhead_s + latency + bytes / (kBandwidthFactor * nic_rate(ctx));
}

}  // namespace

AlgorithmInfo pat_algorithm() {
  return {.name = "pat",
          .description = "NCCL's Parallel Aggregated Trees: all-gather and reduce-scatter with "
                         "one GPU per node, log2(nodes) latency, 0.75 of the NIC rate",
          .source = "NCCL 2.23+ src/include/collectives.h PatAGAlgorithm/PatRSAlgorithm; "
                    "src/graph/tuning.cc (ncclPatEnable, PAT bandwidth and latency)",
          .refusal = refusal,
          .seconds = seconds};
}

}  // namespace collsim::collective::nccl
