#pragma once
// Inter-dimension chunk scheduling for hierarchical collectives (Themis, ISCA'22, Sec. 4.2-4.4,
// Algorithm 1): which order of network dimensions each chunk of a collective walks through.
//
// A D-dimensional platform P_1 x ... x P_D runs an all-reduce chunk as reduce-scatter (RS) stages
// over the dimensions in some order, then all-gather (AG) stages in the reverse order (Algorithm 1
// line 8). `baseline` uses dims 1..D for every chunk (Sec. 2.3); `themis` greedily puts each new
// chunk first on the least-loaded dimension:
//   * the Dim Load Tracker starts each dimension at its fixed delay A_K = steps x step latency of
//     the collective on that dimension (Sec. 4.4);
//   * the Latency Model charges a stage n_K x B_K: the bytes each NPU sends on dimension K for that
//     stage (RS of c bytes on P_K NPUs: c (P_K - 1) / P_K, leaving c / P_K; AG of c bytes: c
//     (P_K - 1), leaving c P_K) times the per-byte time 1 / BW_K, BW_K being an NPU's bandwidth in
//     the dimension;
//   * below the threshold (max load - min load < the predicted time of an RS of chunkSize / 16 on
//     the least-loaded dimension, Sec. 5.3) the baseline order is used, so that a slightly lower
//     load does not pull chunks onto a slow dimension;
//   * otherwise RS (and all-reduce) chunks take the dimensions in ascending load order and a
//     stand-alone AG in descending order; ties keep the lower dimension first.
// Dimensions of size 1 are skipped. The plan is a pure function of its inputs, so every NPU
// computes the same one (Sec. 4.6.1, inter-dimension consistency).
#include <cstdint>
#include <string_view>
#include <vector>

#include "collective/collective.hpp"
#include "core/units.hpp"

namespace collsim::scheduler {

enum class InterDimPolicy {
  Baseline,  ///< Sec. 2.3: RS over dims 1..D, then AG over D..1, every chunk
  Themis,    ///< Algorithm 1
  /// The authors' ASTRA-sim baseline: a full all-reduce in each dimension, dims 1..D (all-reduce
  /// only; RS and AG as Baseline).
  PerDimAllReduce,
  /// ASTRA-sim 2.x's all-reduce under `collective-optimization: localBWAware` with its ascending
  /// dimension order (Sys::generate_collective): RS over dims 1..D-1, one all-reduce on the last
  /// dimension, AG over D-1..1 (2 D' - 1 stages; RS and AG as Baseline).
  AstraLocalBw,
  /// ACE (MICRO'20) Table 5's hierarchical all-reduce: RS on dim 1 (the package), a full
  /// all-reduce on each of dims 2..D, AG on dim 1 (D' + 1 stages; RS and AG as Baseline).
  AceTable5,
};
const char* to_string(InterDimPolicy p);
/// "baseline", "themis", "per-dim-all-reduce", "astra-localbw" or "ace"; throws core::InputError
/// naming `field`.
InterDimPolicy parse_inter_dim_policy(std::string_view text, std::string_view field);

/// What the planner needs of one dimension.
struct DimModel {
  std::uint32_t size = 2;     ///< P_K, NPUs per group
  core::Bandwidth bandwidth;  ///< BW_K: one NPU's total bandwidth in this dimension (bytes/s)
  core::Time fixed_delay;     ///< A_K for the planned collective on this dimension
};

/// One chunk's walk: the dimensions of its stages in order, and each stage's collective
/// (reduce-scatter, all-gather, all-reduce for PerDimAllReduce, all-to-all for all-to-all). An
/// all-reduce chunk has 2 D' stages (D' = dimensions of size > 1; D' with PerDimAllReduce), an
/// RS, AG or all-to-all chunk D'.
struct ChunkPlan {
  std::vector<std::uint32_t> dims;
  std::vector<collective::Collective> ops;
};

struct Plan {
  std::vector<ChunkPlan> chunks;
  /// The Dim Load Tracker after the last chunk, seconds per dimension (A_K + sum n_K B_K).
  std::vector<double> loads;
};

/// Plan `chunks` equal chunks of a collective of `size` bytes (sizes as collective.hpp: S is the
/// whole buffer of one NPU for all-reduce and reduce-scatter, the gathered result for all-gather,
/// one NPU's send buffer for all-to-all). All-to-all (ACE Table 5, not in Themis) runs an
/// all-to-all stage per dimension, each moving (P_K - 1) / P_K of the chunk, and is ordered like
/// a reduce-scatter. Throws core::InputError for chunks 0 or an empty platform.
Plan plan_chunks(const std::vector<DimModel>& dims, collective::Collective c, core::Bytes size,
                 std::uint32_t chunks, InterDimPolicy policy);

/// The Latency Model: seconds to run one stage (`op`: reduce-scatter, all-gather, all-reduce or
/// all-to-all)
/// on `dim` with `bytes` per NPU before the stage (n_K x B_K; the fixed delay is not included).
double stage_load(const DimModel& dim, collective::Collective op, double bytes);
/// Bytes per NPU after a stage `op` on a dimension of `size` NPUs.
double after_stage(collective::Collective op, std::uint32_t size, double bytes);

}  // namespace collsim::scheduler
