#pragma once
// One LLM training iteration as Megatron-LM runs it (docs/llm.md), simulated:
//   - the cluster: the GPU's standard cluster (DGX nodes: an NVSwitch inside, a rail-optimised
//     InfiniBand switch per GPU index between nodes, nics_per_node x nic_bandwidth shared by the
//     node's GPUs) or a given platform;
//   - ranks in Megatron's order, TP innermost, then CP, EP, DP, PP outermost
//     (megatron/core/parallel_state.py, order "tp-cp-ep-dp-pp"); GPU = rank;
//   - one pipeline (the one with data-parallel index 0) runs its schedule (GPipe, 1F1B or
//     interleaved 1F1B) on a runtime::Session: compute as timed steps and every activation and
//     gradient between stages as point-to-point messages of the Session, so the bubble and the
//     pipeline's exposed communication come out of the simulation. The other data-parallel
//     replicas do the same at the same time (the groups' symmetry);
//   - each distinct collective (TP all-reduce / all-gather / reduce-scatter per layer, EP
//     all-to-all, CP ring step, DP gradient buckets, ZeRO parameter all-gathers) is simulated
//     once on the cluster with the given algorithm and backend and its time placed where the
//     schedule runs it: TP, EP and CP on the critical path of each layer, DP buckets overlapped
//     with the last backward pass, ZeRO-3 / FSDP all-gathers one layer ahead.
// Errors: core::InputError for a bad platform, backend or algorithm.
#include <cstdint>
#include <string>
#include <vector>

#include "compute/gpu_specs.hpp"
#include "jobs/llm_cost.hpp"
#include "network/backend.hpp"
#include "scheduler/limits.hpp"
#include "topology/topology.hpp"
#include "workload/llm_config.hpp"

namespace collsim::jobs {

/// The first fitted constant (docs/llm.md "Calibration"): the share of the dense 16-bit peak a
/// GEMM of whole waves of large tiles reaches (compute/kernel_time.hpp), fitted with
/// kMemoryEfficiency (jobs/llm_cost.hpp) to the last row of Narayanan et al. SC'21 Table 1 (GPT 1T
/// on 3,072 A100s: 163 TFLOP/s per GPU) and used unchanged for every other configuration and GPU.
inline constexpr double kMatmulEfficiency = 0.708;
/// The matmul efficiency used when the config gives none: kMatmulEfficiency for every GPU.
double default_matmul_efficiency(const compute::GpuSpec& gpu);

/// The GPU's standard cluster for `gpus` GPUs (nodes as needed). `description` says what it is.
struct LlmCluster {
  topology::Topology topology;
  std::string description;
  bool standard = false;  ///< rail-optimised standard cluster (groups off rail 0 are symmetric)
};
LlmCluster llm_cluster(const workload::LlmConfig& c, const compute::GpuSpec& gpu);

struct LlmResult {
  std::string model, gpu, cluster;
  std::uint32_t gpus = 0, micro_batches = 0;
  double matmul_efficiency = 0;
  core::Time iteration;
  // The split of the iteration on the stage that finishes last (sums to `iteration`).
  core::Time compute, tp, pp, dp, ep, cp, bubble, optimizer;
  double tokens_per_s = 0, tflops_per_gpu = 0, model_tflops_per_gpu = 0, mfu = 0;
  LlmMemory memory;
  double gpu_memory = 0;  ///< bytes
  std::uint32_t critical_stage = 0;
  std::uint64_t events = 0, messages = 0;
  /// Per stage, per op: kind ('F' or 'B'), micro-batch, chunk, start, end (for --trace).
  struct Op {
    char kind;
    std::uint32_t micro_batch, chunk;
    core::Time start, end;
  };
  std::vector<std::vector<Op>> timeline;
};

/// A machine given from outside the config (scenario llm jobs run on the scenario's platforms and
/// backends): it replaces the standard cluster and system.platform / system.backend.
struct LlmMachine {
  const topology::Topology* topology = nullptr;  ///< its NPUs are the GPUs, rank = NPU
  std::string name;                              ///< for reports
  const network::BackendInfo* backend = nullptr;
  network::BackendOptions backend_options;
};

/// Simulate one iteration. `keep_timeline` keeps every op for a trace. `machine`, if given,
/// replaces the config's cluster (core::InputError if it has fewer NPUs than the job needs).
/// Throws core::ResourceError naming --max-messages before simulating collectives and pipeline
/// messages whose backend work (messages, or the backend's own unit) would pass `max_work`.
LlmResult simulate_llm(const workload::LlmConfig& c, bool keep_timeline = false,
                       const LlmMachine* machine = nullptr,
                       std::uint64_t max_work = scheduler::RunLimits{}.max_messages);

/// Compute-only pipeline (no communication at all): the bubble fraction that the schedule alone
/// gives, for tests against (p - 1) / (m + p - 1).
double compute_only_bubble_fraction(const workload::LlmConfig& c);

}  // namespace collsim::jobs
