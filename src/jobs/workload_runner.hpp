#pragma once
// The one workload runner (docs/architecture.md, "jobs"): walks a workload graph
// (workload/graph.hpp) on a runtime::Session, so that every stream of every timeline (compute,
// collectives, point-to-point messages, memory) contends on one simulated machine. Training
// iterations, LLM iterations and Chakra traces are graphs from their generators; this file is
// the only driver that runs the event loop (Session::run) for them.
//
// Rules (the graph's, workload/graph.hpp): a node is issued when its dependencies have finished
// and its stream is free; on each timeline, the ready nodes whose streams are free start in id
// order (a lifo stream offers its highest-id ready node). Then:
//   - Compute, Delay: take their duration (zero: finish at once, no event);
//   - Collective: meets the k-th collective node of every participant of its group; the last
//     arrival launches it through Session::launch (flat on the group's communicators, or
//     hierarchical on its dimensions), or, with `ideal_time`, it takes that time without the
//     network; it ends for every participant when its launch ends;
//   - Send: Session::send from src to dst; ends when the bytes have arrived, and then ends the
//     matching receive (same src, dst, tag, bytes; in order) or waits for it;
//   - Recv: ends when its message has arrived;
//   - MemLoad / MemStore: the remote memory's port serves one request at a time in arrival order,
//     latency + bytes / bandwidth (ASTRA-sim's analytical remote memory).
// Accounting per timeline: stream 0 is its main stream (the GPU's compute). Its busy time is
// split by the category of its nodes; its idle time before a node is split over the node's
// dependencies in their order (each waited for from when the previous one, or the stream, was
// done): the time spent waiting for a collective, send, receive or memory node is exposed time of
// that node's category, the rest idle.
// Errors: core::InputError for a graph that does not fit the machine (naming the node);
// core::SimulationError when timelines are left waiting (a deadlock: the stuck timelines and
// nodes named) or at max_time.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collective/algorithm.hpp"
#include "network/backend.hpp"
#include "runtime/session.hpp"
#include "scheduler/limits.hpp"
#include "workload/graph.hpp"

namespace collsim::jobs {

/// ASTRA-sim's analytical remote memory (--remote-memory-configuration): each port serves one
/// request at a time, in arrival order, for latency + tensor_size / bandwidth.
struct RemoteMemory {
  enum class Kind {
    None,     ///< NO_MEMORY_EXPANSION: a memory node is an error (as in ASTRA-sim)
    PerNode,  ///< one port per node of npus_per_node NPUs
    PerNpu,   ///< one port per NPU
    Pool,     ///< one port for every NPU
  };
  Kind kind = Kind::None;
  core::Time latency;
  core::Bandwidth bandwidth;
  std::uint32_t npus_per_node = 1;
};

struct WorkloadRunOptions {
  /// The algorithm of collective nodes that name none, by collective.
  std::map<collective::Collective, collective::AlgorithmChoice> algorithms;
  std::uint32_t chunks = 1;
  RemoteMemory memory;
  /// If set, collectives take this time and use no network (Themis Table 3's "ideal").
  std::function<core::Time(const workload::Node&, const workload::Group&)> ideal_time;
  std::optional<core::Time> max_time;  ///< core::SimulationError if not finished by then
  /// Called about every `tick_events` events (progress lines).
  std::function<void()> tick;
  std::uint64_t tick_events = 1u << 20;
  /// Keep every node's times (WorkloadResult::nodes) and every wait (WorkloadResult::waits).
  bool record = false;
  /// The caller has checked every collective against the platform (runtime::check_request):
  /// skip building each one at 1 byte before the run.
  bool checked = false;
  /// Every group as a timing class of its own (workload/graph.hpp): each group's collectives of
  /// one kind and size take the time the first took. An approximation (a later one may meet
  /// other traffic the first did not), much faster on long runs; `collsim llm --search` ranks
  /// with it.
  bool each_kind_once = false;
};

/// One node's times on its timeline.
struct NodeTimes {
  core::Time issued;  ///< dependencies done and stream free: started (a collective: arrived)
  core::Time end;
  std::uint64_t order = 0;  ///< finish order over the whole run (ties of `end` break on it)
};

/// The main stream of a timeline waited for `dep` from `from` to `to` before node `node` ran.
struct Wait {
  std::uint32_t timeline = 0, node = 0, dep = 0;
  core::Time from, to;
};

struct TimelineTimes {
  core::Time finish;   ///< its last node's end
  core::Time compute;  ///< compute nodes that are not host (cpu) operations, on any stream
  std::vector<core::Time> busy;     ///< main stream, by category
  std::vector<core::Time> exposed;  ///< main stream waiting for communication, by category
  core::Time idle;                  ///< finish - busy - exposed
  std::uint64_t nodes = 0;
};

struct WorkloadResult {
  core::Time total;  ///< the last timeline's finish
  std::vector<TimelineTimes> timelines;
  std::uint64_t collectives = 0, sends = 0, memory_ops = 0;
  std::uint64_t messages = 0, bytes = 0;  ///< network messages and payload bytes
  std::uint64_t events = 0;
  /// Hierarchical collectives: chunk-stages started and their time in the dimension queues.
  std::uint64_t stages = 0;
  core::Time chunk_queuing;
  /// With WorkloadRunOptions::record: per timeline, per node.
  std::vector<std::vector<NodeTimes>> nodes;
  std::vector<Wait> waits;
};

/// Checks `g` against the Session's platform (workload::validate, every collective buildable
/// with its algorithm on its group: core::InputError naming the node), then walks it to the end.
/// Attach observers to the Session before calling. Throws as described above.
WorkloadResult run_workload(runtime::Session& session, const workload::Graph& g,
                            const WorkloadRunOptions& options);

/// The work of walking `g` (scheduler/limits.hpp): each collective node's closed-form messages
/// (split over its participants), each send one message, stored ops of the distinct programs;
/// `moved` receives the payload bytes the network carries in all. Collectives that cannot be
/// built are left to run_workload's checks. `every_group`: hierarchical collectives simulate every
/// group (group symmetry off).
scheduler::WorkEstimate estimate_workload(const topology::Topology& topo,
                                          const workload::Graph& g,
                                          const WorkloadRunOptions& options,
                                          std::uint64_t* moved = nullptr,
                                          bool every_group = false);

}  // namespace collsim::jobs
