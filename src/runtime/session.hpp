#pragma once
// runtime::Session: the one owner of a simulated machine (docs/architecture.md, "runtime").
//
// A Session is built from a MachineSpec (topology, network backend and its options, endpoint
// model and its parameters) and assembles, once, what every job driver needs: the Simulation
// (clock and event queue), the backend, the endpoint, the executor that runs Programs on them, the
// memory stager (ACE) and, on the first hierarchical collective, the per-dimension chunk-stage
// queues. Drivers (jobs/: collective sweep, training, trace replay) only ask it to:
//   - launch a collective request (flat or hierarchical: launch() decides, the caller does not
//     care which), with a callback when it ends;
//   - send a point-to-point message (through the executor, so observers, link metrics and traces
//     see it like any collective's message);
//   - run a handler after a simulated delay (compute);
//   - tell any number of observers what happens;
//   - run to completion, with one deadlock report;
//   - report the run's figures (plain structs that report/ renders).
// It holds no global state: two Sessions in two threads give the same bytes as one after the
// other (tests/runtime/session_test.cpp).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "collective/algorithm.hpp"
#include "collective/communicator.hpp"
#include "core/engine.hpp"
#include "endpoint/endpoint.hpp"
#include "network/backend.hpp"
#include "scheduler/executor.hpp"
#include "scheduler/group_symmetry.hpp"
#include "scheduler/hierarchical.hpp"
#include "scheduler/rotation_symmetry.hpp"
#include "scheduler/staging.hpp"
#include "topology/topology.hpp"

namespace collsim::runtime {

/// The simulated machine: what a Session assembles. The topology and backend info must outlive
/// the Session.
struct MachineSpec {
  const topology::Topology* topology = nullptr;
  const network::BackendInfo* backend = nullptr;
  network::BackendOptions backend_options;
  const endpoint::EndpointInfo* endpoint = nullptr;  ///< nullptr: the default (ideal)
  endpoint::EndpointParams endpoint_params;
  /// Hierarchical collectives may simulate one group per dimension where every group would do
  /// the same (scheduler/group_symmetry.hpp). The driver sets it false when it will also launch
  /// flat collectives or point-to-point messages on the same machine; an observer that watches
  /// messages, or a request with groups=all, turns it off too.
  bool group_symmetry = false;
  /// A flat ring of many ranks may run as its three-rank stand-in where every rank would do the
  /// same (scheduler/rotation_symmetry.hpp). The driver sets it only when the machine runs that
  /// one collective and nothing else; an observer that watches messages turns it off.
  bool rotation_symmetry = false;
};

/// One collective to launch. Flat algorithms run their Program on every communicator of
/// `groups` at once (empty: the whole platform); a hierarchical (staged) algorithm runs on the
/// whole platform or on the groups that differ only in `dims` (scheduler/hierarchical.hpp).
struct CollectiveRequest {
  collective::Collective collective = collective::Collective::AllReduce;
  collective::AlgorithmChoice algorithm;
  core::Bytes size;  ///< collective.hpp conventions, per communicator
  std::uint32_t chunks = 1;
  std::vector<collective::Communicator> groups;  ///< flat only; empty: every NPU
  std::vector<std::uint32_t> dims;               ///< staged only; empty: every dimension
  std::string label;  ///< names it in traces and errors ("" : "<collective> <algorithm>")
};

/// Whether `r` runs as stages composed by the scheduler (a hierarchical algorithm).
bool is_staged(const CollectiveRequest& r);

/// Throws core::InputError (saying why) if `r` cannot run on `topo`: an algorithm that does not
/// implement the collective or cannot be built on a group, a staged algorithm on groups other
/// than the whole platform, a bad hierarchical spec. Builds each program at 1 byte.
void check_request(const topology::Topology& topo, const CollectiveRequest& r);

/// What one launch measured.
struct LaunchStats {
  scheduler::CollectiveStats stats;  ///< earliest start to latest end over its groups
  bool finished = false;
  /// Hierarchical only: per dimension its busy intervals (absolute times), chunk-stages started
  /// and their time waiting in the dimension queues, summed.
  std::vector<scheduler::DimActivity> activity;
  std::uint64_t stages_started = 0;
  core::Time chunk_queuing;
};

/// The run's figures for reports.
struct SessionReport {
  /// Per link of the topology; with group symmetry, as if every group ran.
  std::vector<network::LinkStats> links;
  std::vector<std::pair<std::string, double>> backend_metrics;
  std::vector<network::Resource> resources;
  endpoint::EndpointStats endpoint;
  std::uint64_t events = 0;
};

struct RunOptions {
  /// Throw core::SimulationError if work remains at this simulated time.
  std::optional<core::Time> max_time;
  /// Called about every `tick_events` events, and at least every 100 ms (progress lines, Ctrl-C).
  std::function<void()> tick;
  std::uint64_t tick_events = 1u << 20;
};

using LaunchId = std::uint32_t;

class Session {
 public:
  /// Throws core::InputError for options the backend or endpoint refuses (naming the field).
  explicit Session(const MachineSpec& spec);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const topology::Topology& topology() const { return topo_; }
  core::Simulation& sim() { return sim_; }
  core::Time now() const { return sim_.now(); }
  network::Backend& backend() { return *backend_; }
  endpoint::Endpoint& endpoint() { return *endpoint_; }
  /// The executor, for drivers and tests that run their own Programs.
  scheduler::Executor& executor() { return *executor_; }

  /// Tell `o` about every collective, message and chunk-stage from now on (nullptr ignored).
  /// Attach before the first launch: group symmetry is decided then.
  void add_observer(scheduler::ExecutionObserver* o);
  void remove_observer(scheduler::ExecutionObserver* o);

  using Done = std::function<void(LaunchId, const scheduler::CollectiveStats&)>;
  /// Start `r` now; `on_done` runs from the event in which its last group finishes (it may
  /// launch more). Programs are built once per (algorithm, groups, collective, size, chunks)
  /// and kept for the Session's life. Throws what check_request throws.
  LaunchId launch(const CollectiveRequest& r, Done on_done = {});
  const LaunchStats& launch_stats(LaunchId id) const { return launches_.at(id); }
  std::size_t launches() const { return launches_.size(); }

  /// Send `bytes` from NPU `src` to NPU `dst` now, through the endpoint and the network, as a
  /// two-rank program (collective/point_to_point.hpp) on the executor; `on_done` runs when the
  /// message has arrived. Throws core::InputError for src == dst or an NPU out of range.
  LaunchId send(topology::NodeId src, topology::NodeId dst, core::Bytes bytes, Done on_done = {},
                std::string label = {});

  /// Run `handler.on_event(tag)` after `delay` of simulated time (compute steps). No allocation.
  void after(core::Time delay, core::EventHandler& handler, std::uint64_t tag = 0) {
    sim_.schedule_in(delay, handler, tag);
  }

  /// Run until nothing is left to do (or options.max_time). Throws core::SimulationError naming
  /// the stuck collectives and ranks (and the network's blocked channels) if launched
  /// collectives remain unfinished: a deadlock, or still running at max_time. A driver whose own
  /// work (compute, ranks waiting) may remain checks that itself afterwards.
  void run(const RunOptions& options = {});
  /// Collectives launched and not finished.
  bool all_finished() const { return executor_->all_finished() && staged_unfinished_ == 0; }

  /// Messages the flat collectives and sends launched so far will send in all (a ring stand-in's
  /// own, as Executor::messages_sent counts them), for the progress line's percentage; 0 once a
  /// hierarchical collective runs, whose chunk-stages are not known up front.
  std::uint64_t messages_expected() const { return staged_launched_ ? 0 : messages_expected_; }

  /// The run's figures (valid after run()).
  SessionReport report() const;
  /// Whether hierarchical collectives simulate one group per dimension, and if not why.
  const scheduler::GroupSymmetry& symmetry() const { return symmetry_; }

 private:
  class Observers;
  const std::vector<collective::Program>& programs(const CollectiveRequest& r);
  void start_staged(LaunchId id, const CollectiveRequest& r);
  void start_flat(LaunchId id, const CollectiveRequest& r);
  void finish(LaunchId id, const scheduler::CollectiveStats& s);

  const topology::Topology& topo_;
  bool allow_symmetry_;
  bool ideal_endpoint_;
  core::Simulation sim_;
  std::unique_ptr<network::Backend> backend_;
  std::unique_ptr<endpoint::Endpoint> endpoint_;
  std::unique_ptr<scheduler::Executor> executor_;
  std::unique_ptr<scheduler::Stager> stager_;
  std::unique_ptr<Observers> observers_;
  scheduler::GroupSymmetry symmetry_;
  bool allow_rotation_ = false;
  scheduler::RotationSymmetry rotation_;  // holds while a flat ring runs as its stand-in
  std::unique_ptr<collective::Program> proxy_;
  bool flat_launched_ = false;
  std::unique_ptr<scheduler::DimensionQueues> queues_;
  std::vector<std::unique_ptr<scheduler::HierarchicalCollective>> staged_;  // by launch, or null
  std::uint32_t staged_unfinished_ = 0;
  bool staged_launched_ = false;
  std::uint64_t messages_expected_ = 0;
  std::vector<LaunchStats> launches_;
  std::vector<Done> done_;
  std::vector<std::uint32_t> remaining_;  // flat launches: groups still running
  // Programs by (algorithm and parameters, collective, size, chunks, groups' NPUs).
  using Key = std::tuple<std::string, int, std::uint64_t, std::uint32_t,
                         std::vector<std::vector<topology::NodeId>>>;
  std::map<Key, std::vector<collective::Program>> programs_;
  std::map<std::tuple<topology::NodeId, topology::NodeId, std::uint64_t>, collective::Program>
      sends_;
};

}  // namespace collsim::runtime
