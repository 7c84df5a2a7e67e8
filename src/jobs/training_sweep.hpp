#pragma once
// Training sweeps, for `collsim train`, scenario training jobs and `collsim astra`: one training
// run (jobs/training.hpp) per algorithm x overlap policy of a training spec on a platform, backend
// and endpoint, each on its own runtime::Session. Workloads are all loaded (and checked against
// their platforms) before the first run, so a bad one is reported before hours of simulation.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collective/algorithm.hpp"
#include "endpoint/endpoint.hpp"
#include "jobs/result.hpp"
#include "jobs/training.hpp"
#include "network/backend.hpp"
#include "scheduler/limits.hpp"
#include "topology/topology.hpp"
#include "workload/formats/chakra.hpp"
#include "workload/workload.hpp"

namespace collsim::jobs {

/// What a training job asks for (a scenario's training job, `collsim train`'s options).
struct TrainingSpec {
  std::string workload;  ///< a file (resolved against the scenario's directory) or a model name
  /// "ideal" (Themis Table 3) is a choice with no AlgorithmInfo.
  std::vector<collective::AlgorithmChoice> algorithms;
  std::uint32_t chunks = 1;
  std::vector<Overlap> overlaps = {Overlap::Layer};
  IssueOrder order = IssueOrder::Fifo;
  std::uint32_t iterations = 1;
  double astra_clock_hz = 1e9;
  std::string compute = "systolic";  ///< zoo models (workload/load.hpp)
  std::uint32_t batch = 16;
  std::uint32_t bytes_per_element = 4;
  workload::chakra::ToWorkloadOptions chakra;  ///< Chakra traces: compute nodes' roofline
  /// Per-collective algorithms for every run (TrainingOptions::per_collective).
  std::map<collective::Collective, collective::AlgorithmChoice> per_collective;
};

/// One training spec on one platform, backend and endpoint.
struct TrainingWork {
  std::string platform;
  const topology::Topology* topology = nullptr;
  const network::BackendInfo* backend = nullptr;
  network::BackendOptions backend_options;
  const endpoint::EndpointInfo* endpoint = nullptr;  ///< nullptr: ideal
  endpoint::EndpointParams endpoint_params;
  TrainingSpec spec;
  std::optional<core::Time> max_time;
  std::string field = "workload";  ///< names the workload in errors: --workload, jobs[0]...
};

/// One run's row: what ran, and its result.
struct TrainingRow {
  std::string workload;
  std::string platform;
  std::uint32_t npus = 0;
  std::vector<topology::DimSpec> dims;  ///< the platform's dimensions (kind, size, links)
  std::string backend;
  std::string endpoint = "none";  ///< endpoint model label (endpoint/params.hpp)
  std::string algorithm;
  std::string overlap;
  std::string order;
  std::uint32_t iterations = 1;
  TrainingResult result;
  /// Over the whole run (compute time included), as `collective` reports them: per dimension,
  /// bytes over its links / (their bandwidth x time); Themis's average BW utilization; the
  /// busiest links (most utilized first, at most TrainingSweepOptions::busiest_links).
  std::vector<double> dim_utilization;
  double bw_utilization = -1;
  double max_link_utilization = 0;
  std::vector<LinkUse> busiest_links;
  std::vector<LinkUse> links;  ///< every link, by id, when TrainingSweepOptions::all_links
};

struct TrainingSweep {
  std::vector<workload::Workload> workloads;  ///< by work
  std::vector<TrainingRow> rows;              ///< in run order
  std::vector<std::size_t> row_workload;      ///< per row: its index in `workloads`
};

struct TrainingSweepOptions {
  bool timeline = false;  ///< record each run's timeline (TrainingOptions::timeline)
  std::uint32_t busiest_links = 3;  ///< links kept per row in TrainingRow::busiest_links
  bool all_links = false;           ///< every link's use in TrainingRow::links (--links)
  /// Every run's estimate (jobs/training_limits.hpp) is checked against these before any runs.
  scheduler::RunLimits limits;
  /// Before each run: its 1-based index, the number of runs, a line naming it in full
  /// ("resnet50 on torus-8x8: ring / flow / overlap layer") and a short name for progress lines.
  std::function<void(std::size_t, std::size_t, const std::string&, const std::string&)> on_start;
  /// About every 2^20 events of a run: its short name, simulated time and events so far.
  std::function<void(const std::string&, core::Time, std::uint64_t)> on_progress;
  /// After each run, its row.
  std::function<void(const TrainingRow&)> on_row;
};

/// Loads each work's workload (core::InputError before anything runs if one cannot be loaded or
/// does not fit its platform), checks every run's estimate against options.limits
/// (core::ResourceError naming the run), then runs every algorithm x overlap of each, in order.
/// Throws what run_training throws.
TrainingSweep run_training_sweep(const std::vector<TrainingWork>& work,
                                 const TrainingSweepOptions& options = {});

/// The pieces of run_training_sweep, for drivers that run its runs apart (jobs/sweep.hpp):
/// the workloads loaded and every run checked, no rows yet (throws as run_training_sweep before
/// any run) ...
TrainingSweep prepare_training_sweep(const std::vector<TrainingWork>& work,
                                     const TrainingSweepOptions& options = {});
/// ... the runs, in the sweep's order: each work's algorithms, each with every overlap ...
struct TrainingPoint {
  std::size_t work = 0, algorithm = 0, overlap = 0;
};
std::vector<TrainingPoint> training_points(const std::vector<TrainingWork>& work);
/// ... and one run on its own Session: options.on_start (as the `k`-th of `total`) and
/// on_progress are called from the calling thread; on_row is not. Throws what run_training throws.
TrainingRow run_training_point(const TrainingWork& w, const workload::Workload& wl,
                               const TrainingPoint& p, const TrainingSweepOptions& options,
                               std::size_t k, std::size_t total);

}  // namespace collsim::jobs

