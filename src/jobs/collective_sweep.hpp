#pragma once
// Collective jobs: one collective, a list of sizes and a list of algorithms on one platform, each
// (algorithm, size) pair run in its own runtime::Session (a fresh simulated machine), on every
// communicator of the job's group at once; and concurrent jobs, several collectives on their own
// groups at once on one network, each also run alone to measure the slowdown the others cause.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collective/algorithm.hpp"
#include "endpoint/endpoint.hpp"
#include "jobs/result.hpp"
#include "network/backend.hpp"
#include "runtime/session.hpp"
#include "scheduler/limits.hpp"
#include "topology/topology.hpp"

namespace collsim::jobs {

struct CollectiveJob {
  collective::Collective collective = collective::Collective::AllReduce;
  std::vector<core::Bytes> sizes;
  std::vector<collective::AlgorithmChoice> algorithms;  ///< the first is the speedup baseline
  std::uint32_t chunks = 1;
  std::string group = "all";           ///< communicators (collective::parse_groups forms)
  std::optional<core::Time> max_time;  ///< per run; exceeding it is a core::SimulationError
  network::BackendOptions backend_options;
  std::uint32_t busiest_links = 3;  ///< how many of the busiest links each row lists
  bool all_links = false;           ///< every link's use in ResultRow::links (--links)
  const endpoint::EndpointInfo* endpoint = nullptr;  ///< nullptr: ideal
  endpoint::EndpointParams endpoint_params;
  /// `-a all`: the algorithms left out, each with why (expand_all_algorithms); every size gets a
  /// row per entry, after the rows that ran, with ResultRow::skipped set and no figures.
  std::vector<std::pair<std::string, std::string>> skipped;
};

/// One collective of a concurrent job.
struct ConcurrentMember {
  collective::Collective collective = collective::Collective::AllReduce;
  std::string group = "all";
  collective::AlgorithmChoice algorithm;
  core::Bytes size;
  std::uint32_t chunks = 1;
};

struct ConcurrentJob {
  std::string name;  ///< for reports, e.g. "jobs[2]"
  std::vector<ConcurrentMember> members;
  std::optional<core::Time> max_time;
  network::BackendOptions backend_options;
  std::uint32_t busiest_links = 3;
  bool all_links = false;  ///< every link's use in ResultRow::links (--links)
  const endpoint::EndpointInfo* endpoint = nullptr;  ///< nullptr: ideal
  endpoint::EndpointParams endpoint_params;
};

/// One simulation of a job, as monitors see it. Valid from begin_run to end_run.
struct RunContext {
  std::string what;  ///< "torus-8x8 ring 64 MiB flow", for progress lines and traces
  const topology::Topology& topology;
  runtime::Session& session;  ///< attach observers with add_observer, before any launch
  core::Simulation& sim;
  network::Backend& backend;
};

/// What a driver wants to know while jobs run: attach observers (traces), report progress,
/// stream rows. Every method is a no-op by default.
class RunMonitor {
 public:
  /// A run is about to start (no collective started yet): attach observers here.
  virtual void begin_run(const RunContext&) {}
  /// Every ~10^6 events during a run, and at least every 100 ms of it.
  virtual void tick(const RunContext&) {}
  /// The run finished (its collectives all ended); detach observers here.
  virtual void end_run(const RunContext&) {}
  /// A result row is complete (rows of one job come in their final order).
  virtual void on_row(const jobs::ResultRow&) {}

 protected:
  ~RunMonitor() = default;
};

/// Several monitors as one, told in order.
class MonitorList final : public RunMonitor {
 public:
  void add(RunMonitor* m) {
    if (m) list_.push_back(m);
  }
  void begin_run(const RunContext& c) override {
    for (RunMonitor* m : list_) m->begin_run(c);
  }
  void tick(const RunContext& c) override {
    for (RunMonitor* m : list_) m->tick(c);
  }
  void end_run(const RunContext& c) override {
    for (RunMonitor* m : list_) m->end_run(c);
  }
  void on_row(const jobs::ResultRow& r) override {
    for (RunMonitor* m : list_) m->on_row(r);
  }

 private:
  std::vector<RunMonitor*> list_;
};

/// Algorithms from `names` ("all" expands to every registered algorithm that supports the
/// collective and can be built on the group; skipped ones are reported in `skipped`, and
/// `warnings` gets a line for each chosen algorithm that will be slow to simulate: one whose
/// ranks talk to every other rank over a multi-hop network).
std::vector<collective::AlgorithmChoice> expand_all_algorithms(
    const topology::Topology& topo, collective::Collective c, std::uint32_t chunks,
    std::vector<std::string>* skipped, const std::string& group = "all",
    std::vector<std::string>* warnings = nullptr);

/// The endpoint's report label and, after a run, its figures for a result row (ACE Fig. 11:
/// averages per message, bus transfer, reduction and chunk-stage, in ns).
std::string endpoint_label(const endpoint::EndpointInfo* e, const endpoint::EndpointParams& p);
std::vector<std::pair<std::string, double>> endpoint_metrics(const endpoint::EndpointStats& s,
                                                             std::uint64_t stages,
                                                             core::Time chunk_queuing);

/// Runs every (size, algorithm) pair; rows are ordered by size, then algorithm as listed.
/// Throws core::InputError when an algorithm cannot run on the topology (saying why).
std::vector<jobs::ResultRow> run_collective_job(const std::string& platform,
                                                  const topology::Topology& topo,
                                                  const network::BackendInfo& backend,
                                                  const CollectiveJob& job,
                                                  RunMonitor* monitor = nullptr);

/// The points of a collective job, for drivers that run them apart (jobs/sweep.hpp):
/// one (size, algorithm) run in its own Session, its row with speedup 1; `monitor` sees
/// begin_run, tick and end_run (not on_row). Throws as run_collective_job.
jobs::ResultRow run_collective_point(const std::string& platform, const topology::Topology& topo,
                                     const network::BackendInfo& backend, const CollectiveJob& job,
                                     std::size_t size_index, std::size_t algorithm_index,
                                     RunMonitor* monitor = nullptr);
/// A row's speedup against `base`, the time of its size's first algorithm.
void set_speedup(jobs::ResultRow& row, core::Time base);
/// The rows that close a size after its runs: the "ideal" reference next to staged collectives
/// (speedup against `base`, the size's first row's time) and the skipped algorithms of `-a all`.
std::vector<jobs::ResultRow> size_closing_rows(const std::string& platform,
                                               const topology::Topology& topo,
                                               const network::BackendInfo& backend,
                                               const CollectiveJob& job, std::size_t size_index,
                                               core::Time base);

/// Runs the members together, then each alone; one row per member, in order.
std::vector<jobs::ResultRow> run_concurrent_job(const std::string& platform,
                                                  const topology::Topology& topo,
                                                  const network::BackendInfo& backend,
                                                  const ConcurrentJob& job,
                                                  RunMonitor* monitor = nullptr);

/// Throws core::InputError if some algorithm of the job cannot be built on its groups (so a
/// driver can refuse a job before simulating anything). Builds each program at 1 byte.
/// Input errors and resource limits (scheduler/limits.hpp) of a job, before anything runs:
/// chunks against sizes, algorithms against groups, the work and memory estimate against
/// `limits`. Throws core::InputError or core::ResourceError naming `platform`.
/// With `backend`, a flat ring that will run as its three-rank stand-in
/// (scheduler/rotation_symmetry.hpp) is estimated as the stand-in. With `runs_on`, the backend
/// the job runs on, its work per route link is checked too (scheduler::check_route_work).
void check_job(const topology::Topology& topo, const CollectiveJob& job,
               const scheduler::RunLimits& limits = {}, const std::string& platform = "",
               const network::BackendInfo* backend = nullptr,
               const network::BackendInfo* runs_on = nullptr);
void check_job(const topology::Topology& topo, const ConcurrentJob& job,
               const scheduler::RunLimits& limits = {}, const std::string& platform = "");

/// How many simulations the job runs (for progress reports).
std::uint64_t count_runs(const CollectiveJob& job);
std::uint64_t count_runs(const ConcurrentJob& job);

}  // namespace collsim::jobs
