#pragma once
// One LLM training iteration as Megatron-LM runs it (docs/llm.md), simulated:
//   - the cluster: the GPU's standard cluster (DGX nodes: an NVSwitch inside, a rail-optimised
//     InfiniBand switch per GPU index between nodes, nics_per_node x nic_bandwidth shared by the
//     node's GPUs) or a given platform;
//   - the compute model (jobs/llm_cost.hpp) gives each layer's time and the sizes of its
//     messages; the LLM generator (workload/llm_graph.hpp) makes the iteration a workload graph:
//     the pipeline schedule of each stage with its tensor-, context- and expert-parallel
//     collectives, the activations and gradients between stages, the data-parallel gradient
//     buckets, ZeRO's gathers and the optimizer step;
//   - the workload runner (jobs/workload_runner.hpp) walks it in one simulation on the cluster,
//     so all that traffic shares links, NICs and switches;
//   - the split on the stage that finishes last: compute, optimizer, the time its compute stream
//     waited for each kind of communication, and the schedule's own bubble (the same ops with
//     no time between stages).
// Errors: core::InputError for a bad platform, backend or algorithm.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compute/gpu_specs.hpp"
#include "jobs/llm_cost.hpp"
#include "network/backend.hpp"
#include "scheduler/limits.hpp"
#include "topology/topology.hpp"
#include "workload/graph.hpp"
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
  /// The same cluster as `collsim train --topology` takes it (a compact form, with
  /// --link-bandwidth and --link-latency where the form needs them).
  std::string spec;
  bool standard = false;  ///< rail-optimised standard cluster (groups off rail 0 are symmetric)
};
LlmCluster llm_cluster(const workload::LlmConfig& c, const compute::GpuSpec& gpu);
/// A hierarchical topology (hier:...) as the hier form with each dimension's bandwidth and
/// latency (`hier:sw8xsw4:bw=300GB/s,25GB/s:lat=500ns,2000ns`); other topologies by name.
std::string hier_spec(const topology::Topology& t);

struct LlmResult {
  std::string model, gpu, cluster;
  std::string topology;  ///< LlmCluster::spec: the cluster as `collsim train --topology` takes it
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

struct LlmRunOptions {
  bool keep_timeline = false;           ///< every op's times, for a trace
  const LlmMachine* machine = nullptr;  ///< replaces the config's cluster
  /// core::ResourceError naming --max-messages before simulating more backend work than this.
  std::uint64_t max_work = scheduler::RunLimits{}.max_messages;
  /// Simulate every rank (workload/llm_graph.hpp all_ranks) rather than one replica and one rail
  /// standing for the others; what --export-chakra writes.
  bool all_ranks = false;
  workload::Graph* graph = nullptr;  ///< if set, receives the iteration's workload graph
  /// Called every 2^20 events while the iteration runs (progress lines, Ctrl-C): simulated time,
  /// events. It may throw (core::Interrupted) to stop the run.
  std::function<void(core::Time, std::uint64_t)> progress;
  /// Each group's collectives of one kind and size timed once (WorkloadRunOptions::
  /// each_kind_once): an approximation for ranking many splits (--search).
  bool each_kind_once = false;
};

/// Simulate one iteration. Throws core::InputError if the machine has fewer NPUs than the job
/// needs, core::ResourceError (naming --max-messages) before simulating collectives and pipeline
/// messages whose backend work (messages, or the backend's own unit) would pass max_work.
LlmResult simulate_llm(const workload::LlmConfig& c, const LlmRunOptions& options);
LlmResult simulate_llm(const workload::LlmConfig& c, bool keep_timeline = false,
                       const LlmMachine* machine = nullptr,
                       std::uint64_t max_work = scheduler::RunLimits{}.max_messages);

/// The schedule alone (compute only, no communication): the bubble fraction of stage 0, for
/// tests against (p - 1) / (m + p - 1).
double compute_only_bubble_fraction(const workload::LlmConfig& c);

}  // namespace collsim::jobs
