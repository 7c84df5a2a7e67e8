#include "collective/nccl/model.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <string>

#include "collective/nccl/tuner.hpp"
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
  return ctx.calibration.efficiency * ctx.system.nccl.nvlinks * nvlink_channel_rate(ctx);
}
double nvlink_channel_rate(const Context& ctx) { return ctx.system.nccl.nvlink_rate.value; }
double nic_rate(const Context& ctx) {
  return ctx.system.nccl.nic_efficiency.value * ctx.system.nic_bandwidth.value;
}
double nvls_rate(const Context& ctx) { return ctx.system.nvls.efficiency.value * nvlink_rate(ctx); }

double ring_protocol_rate(double rate, Protocol p, const Context& ctx) {
  switch (p) {
    case Protocol::Simple:
      return rate;
    case Protocol::LL:  // 4 data bytes in each 8-byte line
      return std::min(ll_max_bandwidth(ctx), 0.5 * rate);
    case Protocol::LL128:  // 120 of 128 bytes: NCCL's 0.92
      return std::min(0.92 * rate, ring_ll128_max_bandwidth(ctx));
  }
  return rate;
}

std::string_view to_string(Protocol p) {
  switch (p) {
    case Protocol::Simple:
      return "Simple";
    case Protocol::LL128:
      return "LL128";
    case Protocol::LL:
      return "LL";
  }
  return "Simple";
}

Protocol parse_protocol(std::string_view name, std::string_view field) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "simple") return Protocol::Simple;
  if (lower == "ll128") return Protocol::LL128;
  if (lower == "ll") return Protocol::LL;
  throw core::InputError(std::string(field) + ": unknown protocol '" + std::string(name) +
                         "' (valid: nccl, Simple, LL128, LL)");
}

namespace {

bool runs(const AlgorithmInfo& a, Protocol p) { return (a.protocols >> static_cast<int>(p)) & 1; }

}  // namespace

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

Estimate estimate(std::string_view algorithm, Op op, double bytes, const Context& ctx,
                  std::string_view protocol) {
  check_shape(ctx.system, ctx.shape);
  const bool any_protocol = protocol == "nccl";
  const Protocol only = any_protocol ? Protocol::Simple : parse_protocol(protocol, "--protocol");
  Estimate best{nullptr, Protocol::Simple, std::numeric_limits<double>::infinity()};
  const auto consider = [&](const AlgorithmInfo& a) {
    if (a.fixed_protocol && any_protocol) {  // NCCL takes the protocol by size itself (p2p)
      const Protocol p = a.fixed_protocol(op, bytes, ctx);
      const double t = a.seconds(op, bytes, ctx, p);
      if (t < best.seconds) best = {&a, p, t};
      return;
    }
    for (Protocol p : kProtocols) {
      if (!runs(a, p) || (!any_protocol && p != only)) continue;
      const double t = a.seconds(op, bytes, ctx, p);
      if (t < best.seconds) best = {&a, p, t};
    }
  };
  if (algorithm != "nccl") {
    const AlgorithmInfo& a = find_algorithm(algorithm, "--algorithm");
    if (const std::string_view why = a.refusal(op, ctx); !why.empty()) {
      throw core::InputError("--algorithm: " + std::string(a.name) + " cannot run " +
                             std::string(perf_binary(op)) + " here: " + std::string(why));
    }
    if (!any_protocol && !runs(a, only)) {
      throw core::InputError("--protocol: " + std::string(a.name) + " runs Simple only (NCCL)");
    }
    consider(a);
    return best;
  }
  for (const AlgorithmInfo& a : algorithms()) {
    if (!a.named_only && a.refusal(op, ctx).empty()) consider(a);
  }
  if (best.algorithm == nullptr) {
    throw core::InputError("no NCCL algorithm runs " + std::string(perf_binary(op)) + " here");
  }
  return best;
}

}  // namespace collsim::collective::nccl
