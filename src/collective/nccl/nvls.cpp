// NCCL's NVLS inside one NVSwitch domain (all-reduce, reduce-scatter, all-gather): the switch
// reduces and multicasts (NVLink SHARP). Rank i owns 1/n of the buffer. Reduce-scatter: rank i's
// multimem load-reduce makes the switch read shard i from every rank, so every rank's uplink
// carries S and its downlink S/n. All-gather: rank i's multimem store sends S/n up and the switch
// writes it to every rank, S down per rank. All-reduce is both, pipelined: (n+1)/n S each way.
// The switch moves NVLS traffic at its in-network reduction efficiency x the port rate
// (nvls_rate; NCCL 2.29 src/tuning/nvls.cc nvlsEfficiency), and NCCL's tuner
// charges its NVLink latency (25 us) in place of a base. NCCL enables NVLS across nodes only with
// CollNet (nvls.cc), which collsim's `nvls` does not model: it runs one NVLink domain.
#include "collective/nccl/model.hpp"
#include "collective/nccl/tuner.hpp"

namespace collsim::collective::nccl {

namespace {

std::string_view refusal(Op op, const Context& ctx) {
  if (!ctx.system.nvls.available()) return "the system's NVSwitch has no in-network reduction";
  // src/transport/nvls.cc ncclNvlsInit: no NVLS with 2 GPUs or fewer on the node.
  if (ctx.shape.gpus <= 2) return "NCCL enables NVLS only with more than 2 GPUs per node";
  if (ctx.shape.nodes > 1) return "NVLS spans one NVLink domain (across nodes: nvls-tree)";
  if (op == Op::AllToAll || op == Op::SendRecv)
    return "NVLS runs all-reduce, all-gather and "
           "reduce-scatter";
  return "";
}

double seconds(Op op, double bytes, const Context& ctx, Protocol p) {
  const double n = ctx.shape.ranks();
  const double volume = op == Op::AllReduce ? (n + 1) / n * bytes : bytes;
  return ctx.calibration.overhead_s + tuner_latency(TunerAlgo::Nvls, p, op, ctx) +
         volume / nvls_rate(ctx);
}

}  // namespace

AlgorithmInfo nvls_algorithm() {
  return {.name = "nvls",
          .description =
              "NVLink SHARP: the NVSwitch reduces (multimem load-reduce) and "
              "multicasts (multimem store) inside one NVLink domain",
          .source =
              "NVIDIA Hopper architecture whitepaper (NVLink SHARP); NCCL 2.17+ NVLS "
              "(src/device/all_reduce.h runNvls; tuner src/tuning/nvls.cc)",
          .refusal = refusal,
          .seconds = seconds,
          .protocols = kSimpleOnly};
}

}  // namespace collsim::collective::nccl
