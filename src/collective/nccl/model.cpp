#include "collective/nccl/model.hpp"

#include <array>
#include <cctype>
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

const ProtocolCosts& protocol_costs(Protocol p) {
  // NCCL's tuner (src/graph/tuning.cc), ring, Hopper: baseLat {LL 6.6, LL128 14.0, Simple 8.4}
  // us; hwLat NVLink {0.6, 1.9, 3.4} us and network {2.7, 4.0, 14.0} us per step; LL moves half
  // the link rate (4 data bytes per 8), LL128 0.92 of it (120 of 128 bytes, NCCL's factor).
  static constexpr ProtocolCosts kCosts[] = {{1.0, 8.4e-6, 3.4e-6, 14.0e-6},
                                             {0.92, 14.0e-6, 1.9e-6, 4.0e-6},
                                             {0.5, 6.6e-6, 0.6e-6, 2.7e-6}};
  return kCosts[static_cast<int>(p)];
}

namespace {

// Seconds with protocol `p`: Simple's time with its latency and transfer replaced by p's.
double with_protocol(const AlgorithmInfo& a, Op op, double bytes, const Context& ctx,
                     Protocol p) {
  const double simple = a.seconds(op, bytes, ctx);
  if (p == Protocol::Simple) return simple;
  double nvlink = 0, network = 0;
  a.steps(op, ctx, nvlink, network);
  const ProtocolCosts& s = protocol_costs(Protocol::Simple);
  const ProtocolCosts& c = protocol_costs(p);
  // Simple's time = overhead + network steps x the NIC latency + transfer; its base and
  // NVLink-step latencies are inside the fitted overhead α. Another protocol's fixed part is α
  // scaled by NCCL's tuner ratio of the two protocols' intra-node latencies on this shape (base +
  // NVLink steps x per-step latency), so it stays positive however many steps the shape has (a
  // difference of the two, added to α, went below zero on large rings).
  const double transfer =
      simple - ctx.calibration.overhead_s - network * ctx.system.nic_latency.value;
  const double simple_latency = s.base_latency_s + nvlink * s.nvlink_step_s;
  const double latency = c.base_latency_s + nvlink * c.nvlink_step_s;
  // With one GPU per node NCCL's tuner charges a network step the tree's latency ("With ppn=1
  // latencies are fully exposed, use the Tree network latency", tuning.cc, NCCL 2.2x): LL 5.0,
  // LL128 8.5, Simple 14 us (Simple's equals the ring's).
  static constexpr double kTreeNet[] = {14.0e-6, 8.5e-6, 5.0e-6};
  const double net_step =
      ctx.shape.gpus == 1 ? kTreeNet[static_cast<int>(p)] : c.network_step_s;
  return ctx.calibration.overhead_s * latency / simple_latency + network * net_step +
         transfer / c.bandwidth_factor;
}

bool runs(const AlgorithmInfo& a, Protocol p) {
  return (a.protocols >> static_cast<int>(p)) & 1;
}

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
    for (Protocol p : {Protocol::Simple, Protocol::LL128, Protocol::LL}) {
      if (!runs(a, p) || (!any_protocol && p != only)) continue;
      const double t = with_protocol(a, op, bytes, ctx, p);
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
