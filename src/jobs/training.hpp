#pragma once
// Training iterations of a workload on a platform: the training generator
// (workload/training_graph.hpp: one SPMD timeline, collectives per scope, overlap and issue order)
// walked by the workload runner (jobs/workload_runner.hpp) on a runtime::Session; this file turns
// the runner's node times into the training report (MultiTree Sec. V and Fig. 11, ACE Sec. 5,
// Themis Sec. 5.2).
//
// Reported: iteration time = compute + exposed communication, where exposed communication is
// the time the compute timeline waits for collectives; per layer the compute, the time its
// collectives ran, and the exposed time they caused.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collective/algorithm.hpp"
#include "endpoint/endpoint.hpp"
#include "network/backend.hpp"
#include "scheduler/executor.hpp"
#include "topology/topology.hpp"
#include "workload/training_graph.hpp"
#include "workload/workload.hpp"

namespace collsim::jobs {

using workload::IssueOrder;
using workload::Overlap;
using workload::parse_issue_order;
using workload::parse_overlap;
using workload::to_string;

struct TrainingOptions {
  collective::AlgorithmChoice algorithm;  ///< flat (ring, ...) or hierarchical; unused if ideal
  /// Another algorithm for some collectives (ASTRA-sim's per-collective *-implementation keys);
  /// each flat where `algorithm` is flat and hierarchical where it is (core::InputError if not).
  std::map<collective::Collective, collective::AlgorithmChoice> per_collective;
  /// Themis Table 3 "Ideal" (100% bandwidth utilization): every collective takes its size over
  /// one NPU's total bandwidth in the dimensions it spans, with no network.
  bool ideal = false;
  std::uint32_t chunks = 1;  ///< chunks per collective (hierarchical: Themis uses 64)
  Overlap overlap = Overlap::Layer;
  IssueOrder order = IssueOrder::Fifo;
  std::uint32_t iterations = 1;
  network::BackendOptions backend_options;
  const endpoint::EndpointInfo* endpoint = nullptr;  ///< nullptr: ideal
  endpoint::EndpointParams endpoint_params;
  std::optional<core::Time> max_time;  ///< stop with core::SimulationError past this
  bool timeline = false;               ///< record TrainingResult::timeline (for --trace)
  /// Called every 2^20 events while the run goes (progress lines): simulated time, events.
  std::function<void(core::Time, std::uint64_t)> progress;
};

/// One slice of the timeline: a compute step, a wait of the compute timeline for a collective,
/// or a collective from its start to its end.
struct TimelineSlice {
  enum class Kind { Compute, Wait, Collective } kind = Kind::Compute;
  std::uint32_t layer = 0;
  workload::Pass pass = workload::Pass::Forward;  ///< Compute: the pass (update: Pass::WeightGradient, update true)
  bool update = false;
  workload::Scope scope = workload::Scope::All; ///< Collective
  core::Time begin, end;
};

/// One layer's figures, summed over the iterations.
struct LayerTimes {
  std::string name;
  core::Time compute;  ///< forward + input gradient + weight gradient + update
  core::Time comm;     ///< time its collectives ran (start to end, summed)
  core::Time exposed;  ///< time the compute waited for its collectives
};

struct TrainingResult {
  core::Time total;            ///< end of the last iteration (all collectives done, all updates)
  core::Time compute;          ///< sum of every compute step
  core::Time compute_forward;  ///< of which the forward passes (Themis Fig. 12 blue)
  core::Time exposed;          ///< time the compute timeline waited for collectives
  /// Of which waiting for weight-gradient collectives (data-parallel, Fig. 12 red) and for
  /// forward / input-gradient ones (model-parallel, green).
  core::Time exposed_weight_gradient;
  core::Time comm;                        ///< time at least one collective was running
  std::vector<core::Time> iteration_end;  ///< when each iteration ended
  std::vector<LayerTimes> layers;
  std::uint64_t collectives = 0, messages = 0, bytes = 0;
  std::uint64_t events = 0;
  /// The endpoint's figures over the run (collective_sweep.hpp endpoint_metrics).
  std::vector<std::pair<std::string, double>> endpoint_metrics;
  /// Per link of the topology over the whole run, then the backend's extra resources (NIC caps):
  /// what jobs::fill_link_metrics turns into per-dimension utilization and the busiest links.
  std::vector<network::LinkStats> links;
  std::vector<network::Resource> resources;
  std::vector<TimelineSlice> timeline;  ///< when TrainingOptions::timeline, in end order
  /// When TrainingOptions::timeline: every chunk-stage of the hierarchical collectives, per
  /// dimension, in end order (the timeline's per-dimension tracks).
  std::vector<scheduler::StageInfo> stages;
};

/// Run `options.iterations` iterations of `w` on a fresh simulation of `topo` with `backend`.
/// Throws core::InputError for a workload that does not fit the platform (validate()), an
/// algorithm that cannot run one of its collectives (naming the layer and pass), and
/// core::SimulationError on a deadlock or past max_time.
TrainingResult run_training(const topology::Topology& topo, const network::BackendInfo& backend,
                            const workload::Workload& w, const TrainingOptions& options,
                            scheduler::ExecutionObserver* observer = nullptr);

}  // namespace collsim::jobs
