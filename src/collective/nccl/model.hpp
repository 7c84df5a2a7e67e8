#pragma once
// NCCL on a GPU system (topology/gpu_systems/gpu_system.hpp), in closed form: how long one
// collective of the five nccl-tests measure takes with each of NCCL's algorithms and protocols,
// and the `nccl` choice (the fastest that NCCL would enable, as NCCL's tuner picks the least
// predicted time). docs/nccl.md gives each formula and its source.
//
// Every time has NCCL's tuner's form plus the call overhead NCCL does not model:
//   α + NCCL's tuner latency for (algorithm, protocol, shape) (tuner.hpp) + bytes / rate,
// the rate from the links as NCCL rates them (NCCL's per-NVLink bandwidth x the NVLinks, x η;
// the NIC's line rate x its published efficiency) with NCCL's per-protocol factors and caps.
//
// Units: bytes, seconds, bytes/s. Sizes follow nccl-tests: `bytes` is the whole buffer (for
// all-gather and reduce-scatter the per-rank count x ranks; for all-to-all every rank's send
// buffer).
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
inline constexpr Protocol kProtocols[] = {Protocol::Simple, Protocol::LL128, Protocol::LL};
std::string_view to_string(Protocol p);
/// "simple", "ll128", "ll" (any case, as NCCL_PROTO); throws core::InputError naming `field`.
Protocol parse_protocol(std::string_view name, std::string_view field);

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

/// The two fitted parameters (docs/nccl.md "Calibration"): the fraction of NCCL's rated NVLink
/// bandwidth (NVLinks x NCCL's per-link rate, topo.h SMxx_NVLINK_BW) NCCL's kernels move, and
/// the fixed time of one collective call that NCCL's tuner does not count (kernel launch and
/// the call's own overhead). Fitted on one 8 x H100 nccl-tests log only, by minimising the
/// mean |log(model / measured)| over its rows (`collsim validate nccl LOG --fit`); every
/// other preset and shape uses these same two numbers.
struct Calibration {
  double efficiency = 0.949;  ///< achieved / NCCL-rated NVLink bandwidth
  double overhead_s = 9.0e-6;
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
  /// Seconds for one collective of `bytes` with protocol `p` (one of `protocols`; checked by
  /// refusal() first): α + NCCL's tuner latency + transfer.
  double (*seconds)(Op op, double bytes, const Context& ctx, Protocol p) = nullptr;
  /// The protocols NCCL runs it with (bit 1 << Protocol); NVLS, NVLS-tree, CollNet, PAT: Simple.
  std::uint8_t protocols = kSimpleOnly;
  /// Left out of the `nccl` choice, run only when named: NCCL enables it only on request
  /// (CollNet: the SHARP plugin and NCCL_COLLNET_ENABLE=1).
  bool named_only = false;
  /// The protocol NCCL itself takes by size when none is named, instead of the fastest (p2p: LL
  /// up to 16 KiB per peer, Simple above, NCCL_P2P_LL_THRESHOLD); null: every protocol in
  /// `protocols` competes.
  Protocol (*fixed_protocol)(Op op, double bytes, const Context& ctx) = nullptr;
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

// Building blocks of the algorithm files (bytes/s).
/// Per-GPU rate of NCCL's copies over NVLink: η x NVLinks x NCCL's per-link rate.
double nvlink_rate(const Context& ctx);
/// What one NCCL channel (one CUDA block) moves over NVLink at most: NCCL's rate of one link
/// (topo.h SMxx_NVLINK_BW), as NCCL gives it (docs/nccl.md "p2p": the reading and why).
double nvlink_channel_rate(const Context& ctx);
/// Per-GPU rate of its NIC: the line rate x the NIC's published efficiency (no η: InfiniBand's
/// efficiency is measured, not fitted).
double nic_rate(const Context& ctx);
/// Per-GPU rate of NVLS traffic through the switch: the NVLink rate x the switch's NVLS
/// efficiency (NCCL 2.29 src/tuning/nvls.cc nvlsEfficiency).
double nvls_rate(const Context& ctx);
/// The ring's bus rate `rate` under protocol p, as NCCL's tuner scales it (ring.cc): Simple as
/// is; LL half of it, capped at llMaxBws; LL128 x 0.92, capped at perChMaxRingLL128Bws x channels.
double ring_protocol_rate(double rate, Protocol p, const Context& ctx);

}  // namespace collsim::collective::nccl
