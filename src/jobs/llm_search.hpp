#pragma once
// `collsim llm CONFIG --search` (docs/llm.md "Searching the parallelism"): the best splits of one
// job (model, global batch, GPUs, cluster, GPU memory) over tp, cp, pp, dp, ep, micro-batch,
// vpp, recomputation, sequence parallelism and ZeRO stage, as vTrain and Calculon users search
// them.
//
//   - The space: every split that passes Megatron-LM's checks (workload/llm_config.hpp,
//     valid_split) with tp dividing the heads and at most a node's GPUs, cp a power of two
//     leaving at least 2,048 tokens per rank, pp dividing the layers, dp = GPUs / (tp cp pp)
//     dividing the global batch, ep dividing the experts and dp x cp, micro-batches of 1 to 16,
//     vpp dividing the layers per stage, recompute none / selective / full, sequence parallel
//     on or off (tp > 1), ZeRO 0 to 3. A key the config gives is held at its value.
//   - Pruned by memory: a split whose stage 0 needs more than the GPU's memory (jobs/llm_cost.hpp
//     llm_memory) is dropped.
//   - Ranked by simulation (jobs::simulate_llm, a black box) in order of a lower bound on the
//     iteration: the compute alone along the pipeline's longest dependency chain (the forward of
//     the first k virtual stages, all of stage k's passes, the backward back to stage 0) plus
//     stage 0's optimizer step. Communication only adds time, so once the next split's bound is
//     above the N-th best simulated time no later split can enter the top N: the ranking equals
//     that of simulating every split (`exhaustive`, which a test compares). Splits are simulated
//     in batches of kSearchBatch in bound order, the same batches whatever the threads, so the
//     output does not depend on --jobs.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "jobs/llm_iteration.hpp"
#include "workload/llm_config.hpp"

namespace collsim::jobs {

inline constexpr std::size_t kSearchBatch = 16;

struct LlmSearchOptions {
  std::uint32_t top = 10;
  bool exhaustive = false;  ///< simulate every split that fits (for checking the pruning)
  /// Simulates each config of a batch (on threads if it likes); results in input order.
  std::function<std::vector<LlmResult>(const std::vector<workload::LlmConfig>&)> run_batch;
};

struct LlmCandidate {
  workload::LlmConfig config;
  std::string label;    ///< "tp8 pp8 dp16 mb1 vpp3 sp zero1 selective"
  double bound = 0;     ///< seconds: the lower bound the search ordered it by
  LlmResult result;
};

struct LlmSearchResult {
  std::vector<LlmCandidate> top;  ///< best first (iteration time, then label)
  std::uint64_t splits = 0, fit = 0, simulated = 0;
};

/// All valid splits of `job` (its given keys held), in a fixed order.
std::vector<workload::LlmConfig> llm_search_space(const workload::LlmConfig& job);
std::string llm_split_label(const workload::LlmParallel& p);
/// The memory capacity the search and the reports check against: system.gpu_memory or the GPU's.
double llm_gpu_memory(const workload::LlmConfig& c);
/// Lower bound on simulate_llm(c).iteration in seconds (see above).
double llm_iteration_lower_bound(const workload::LlmConfig& c, const LlmCosts& k);

/// Throws core::InputError for a job without system.gpus or with no split that fits.
LlmSearchResult search_llm(const workload::LlmConfig& job, const LlmSearchOptions& o);

}  // namespace collsim::jobs
