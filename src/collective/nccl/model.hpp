#pragma once
// NCCL on a GPU system (topology/gpu_systems/gpu_system.hpp), in closed form: how long one
// collective of the five nccl-tests measure takes with each of NCCL's algorithms, and the `nccl`
// choice (the fastest that NCCL would enable). docs/nccl.md gives each formula and its source.
//
// Units: bytes, seconds, bytes/s. Sizes follow nccl-tests: `bytes` is the whole buffer (for
// all-gather and reduce-scatter the per-rank count x ranks; for all-to-all every rank's send
// buffer). The model is the Simple protocol at bandwidth-bound sizes (32 MiB and up); LL and
// LL128, which NCCL takes below about 1 MiB, are not modelled.
#include <cstdint>
#include <string_view>
#include <vector>

#include "topology/gpu_systems/gpu_system.hpp"

namespace collsim::collective::nccl {

/// NCCL's protocols: Simple (large chunks, a memory fence per step), LL128 (128-byte lines with
/// an 8-byte flag), LL (8-byte lines: 4 bytes of data, 4 of flag).
enum class Protocol { Simple, LL128, LL };
inline constexpr std::uint8_t kAllProtocols = 0b111;
inline constexpr std::uint8_t kSimpleOnly = 0b001;
std::string_view to_string(Protocol p);
/// "simple", "ll128", "ll" (any case, as NCCL_PROTO); throws core::InputError naming `field`.
Protocol parse_protocol(std::string_view name, std::string_view field);
/// What a protocol changes against Simple, from NCCL's tuner (src/graph/tuning.cc, Hopper
/// constants, ring): the fraction of the link rate it moves, its base latency and its latency
/// per NVLink step and per network step (seconds).
struct ProtocolCosts {
  double bandwidth_factor;
  double base_latency_s;
  double nvlink_step_s;
  double network_step_s;
};
const ProtocolCosts& protocol_costs(Protocol p);

/// The collectives of nccl-tests' *_perf binaries.
enum class Op { AllReduce, AllGather, ReduceScatter, AllToAll, SendRecv };

/// "all_reduce_perf" -> AllReduce, ...; throws core::InputError naming `field` and listing them.
Op parse_perf_binary(std::string_view name, std::string_view field);
/// The nccl-tests binary name: "all_reduce_perf", ...
std::string_view perf_binary(Op op);
/// nccl-tests' bus-bandwidth factor: all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all
/// (n-1)/n; send/recv 1.
double busbw_factor(Op op, std::uint32_t ranks);

/// A job's shape: `gpus` GPUs of each of `nodes` nodes (NVLink domains). Ranks = gpus x nodes.
struct Shape {
  std::uint32_t gpus = 8;
  std::uint32_t nodes = 1;
  std::uint32_t ranks() const { return gpus * nodes; }
};

/// The two fitted endpoint parameters (docs/nccl.md "Calibration"): the fraction of a link's
/// datasheet rate NCCL's Simple-protocol kernels move, and the fixed time of one collective call
/// (launch, synchronisation). Fitted on one 8 x H100 nccl-tests log only, by minimising the
/// largest |log(model / measured)| over its rows (tools/nccl_fit.py); every other preset and
/// shape uses these same two numbers.
struct Calibration {
  double efficiency = 0.759;  ///< achieved / datasheet link rate, NVLink and NIC alike
  double overhead_s = 34.5e-6;
};

/// Everything an algorithm's cost needs.
struct Context {
  const topology::GpuSystem& system;
  Shape shape;
  Calibration calibration;
};

struct AlgorithmInfo {
  std::string_view name;
  std::string_view description;
  std::string_view source;
  /// "" when the algorithm runs `op` in `ctx` (as NCCL would enable it), else why not.
  std::string_view (*refusal)(Op op, const Context& ctx) = nullptr;
  /// Seconds for one collective of `bytes` with the Simple protocol (checked by refusal()
  /// first).
  double (*seconds)(Op op, double bytes, const Context& ctx) = nullptr;
  /// The protocols NCCL runs it with (bit 1 << Protocol); NVLS and NVLS-tree: Simple only.
  std::uint8_t protocols = kSimpleOnly;
  /// Its NVLink steps and network steps for `op` (for the protocols' latency), when it runs LL or
  /// LL128; null for Simple-only algorithms.
  void (*steps)(Op op, const Context& ctx, double& nvlink, double& network) = nullptr;
  /// Left out of the `nccl` choice, run only when named: NCCL enables it only on request
  /// (CollNet: the SHARP plugin and NCCL_COLLNET_ENABLE=1).
  bool named_only = false;
};

/// NCCL's algorithms in collsim, in a fixed order (registry.cpp).
const std::vector<AlgorithmInfo>& algorithms();
/// Throws core::InputError naming `field` and listing the names ("nccl" is the choice).
const AlgorithmInfo& find_algorithm(std::string_view name, std::string_view field);

/// One collective's estimate.
struct Estimate {
  const AlgorithmInfo* algorithm = nullptr;
  Protocol protocol = Protocol::Simple;
  double seconds = 0;
};
/// `algorithm` ("nccl": the fastest enabled one, as NCCL's tuner picks the least predicted time)
/// with `protocol` ("nccl": the fastest the algorithm runs; else "simple", "ll128" or "ll") for
/// `op` of `bytes`. Throws core::InputError if the named algorithm or protocol cannot run it, or
/// the shape does not fit the system (more GPUs per node than it has, fewer than two ranks).
Estimate estimate(std::string_view algorithm, Op op, double bytes, const Context& ctx,
                  std::string_view protocol = "nccl");

/// Checks a shape against a system; throws core::InputError naming the option ("-g", "--nodes").
void check_shape(const topology::GpuSystem& system, const Shape& shape);

// Building blocks of the algorithm files.
/// Per-GPU rate of plain copies over NVLink (bytes/s, calibrated).
double nvlink_rate(const Context& ctx);
/// Per-GPU rate of the NIC (bytes/s, calibrated).
double nic_rate(const Context& ctx);
/// Per-GPU rate of NVLS traffic through the switch (bytes/s): the NVLink rate x the switch's
/// in-network reduction efficiency.
double nvls_rate(const Context& ctx);

}  // namespace collsim::collective::nccl
