#include "collective/nccl/model.hpp"

#include <array>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace collsim::collective::nccl {

namespace {
constexpr std::array<std::string_view, 5> kBinaries = {
    "all_reduce_perf", "all_gather_perf", "reduce_scatter_perf", "alltoall_perf", "sendrecv_perf"};
}

Op parse_perf_binary(std::string_view name, std::string_view field) {
  std::string valid;
  for (std::size_t i = 0; i < kBinaries.size(); ++i) {
    if (kBinaries[i] == name) return static_cast<Op>(i);
    valid += i ? ", " : "";
    valid += kBinaries[i];
  }
  throw core::InputError(std::string(field) + ": unknown nccl-tests binary '" + std::string(name) +
                         "' (valid: " + valid + ")");
}

std::string_view perf_binary(Op op) { return kBinaries[static_cast<std::size_t>(op)]; }

double busbw_factor(Op op, std::uint32_t ranks) {
  const double n = ranks;
  switch (op) {
    case Op::AllReduce:
      return 2 * (n - 1) / n;
    case Op::AllGather:
    case Op::ReduceScatter:
    case Op::AllToAll:
      return (n - 1) / n;
    case Op::SendRecv:
      return 1;
  }
  return 1;
}

void check_shape(const topology::GpuSystem& system, const Shape& shape) {
  if (shape.gpus == 0 || shape.gpus > system.gpus_per_node) {
    throw core::InputError("-g: " + std::to_string(shape.gpus) + " GPUs per node, but a " +
                           std::string(system.name) + " node has 1 to " +
                           std::to_string(system.gpus_per_node));
  }
  if (shape.nodes == 0) throw core::InputError("--nodes: must be at least 1");
  if (shape.ranks() < 2) {
    throw core::InputError("-g/--nodes: a collective needs at least 2 GPUs (got 1)");
  }
}

double nvlink_rate(const Context& ctx) {
  return ctx.calibration.efficiency * ctx.system.nvlink_bandwidth.value;
}
double nic_rate(const Context& ctx) {
  return ctx.calibration.efficiency * ctx.system.nic_bandwidth.value;
}
double nvls_rate(const Context& ctx) {
  return ctx.system.nvls.efficiency.value * nvlink_rate(ctx);
}

const AlgorithmInfo& find_algorithm(std::string_view name, std::string_view field) {
  std::string valid = "nccl";
  for (const AlgorithmInfo& a : algorithms()) {
    if (a.name == name) return a;
    valid += ", ";
    valid += a.name;
  }
  throw core::InputError(std::string(field) + ": unknown NCCL algorithm '" + std::string(name) +
                         "' (valid: " + valid + ")");
}

Estimate estimate(std::string_view algorithm, Op op, double bytes, const Context& ctx) {
  check_shape(ctx.system, ctx.shape);
  if (algorithm != "nccl") {
    const AlgorithmInfo& a = find_algorithm(algorithm, "--algorithm");
    if (const std::string_view why = a.refusal(op, ctx); !why.empty()) {
      throw core::InputError("--algorithm: " + std::string(a.name) + " cannot run " +
                             std::string(perf_binary(op)) + " here: " + std::string(why));
    }
    return {&a, a.seconds(op, bytes, ctx)};
  }
  Estimate best{nullptr, std::numeric_limits<double>::infinity()};
  for (const AlgorithmInfo& a : algorithms()) {
    if (!a.refusal(op, ctx).empty()) continue;
    const double t = a.seconds(op, bytes, ctx);
    if (t < best.seconds) best = {&a, t};
  }
  if (best.algorithm == nullptr) {
    throw core::InputError("no NCCL algorithm runs " + std::string(perf_binary(op)) + " here");
  }
  return best;
}

}  // namespace collsim::collective::nccl
