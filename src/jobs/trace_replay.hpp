#pragma once
// Replaying a Chakra trace node by node on every rank, as ASTRA-sim 2.x runs execution traces
// (its Workload layer), for the traces the SPMD training path (chakra.hpp to_workload) cannot
// take: send / recv nodes, memory nodes, communicator groups (pg_name), BROADCAST, and ranks
// whose graphs differ. The trace becomes a workload graph (workload/formats/chakra_graph.hpp:
// what each node does, its stream, its communicator) walked by the workload runner
// (jobs/workload_runner.hpp); this file turns the runner's figures into the replay report.
//
// A collective starts when its last member has issued it and ends for every member when its
// Program (or hierarchical collective) ends, so a rank that issues early waits; ASTRA-sim lets
// that rank start its own first sends instead. A send finishes when its bytes have arrived
// (ASTRA-sim's analytical frontend calls the sender back then too).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collective/algorithm.hpp"
#include "endpoint/endpoint.hpp"
#include "network/backend.hpp"
#include "topology/topology.hpp"
#include "jobs/workload_runner.hpp"
#include "workload/formats/chakra.hpp"
#include "workload/formats/chakra_graph.hpp"

namespace collsim::jobs {

struct ReplayOptions {
  /// The algorithm of each collective the trace runs (all flat or all hierarchical).
  std::map<collective::Collective, collective::AlgorithmChoice> algorithms;
  std::uint32_t chunks = 1;
  bool serial = true;  ///< one collective or send in flight per rank (ASTRA-sim)
  /// Follow data dependencies only, ignoring ctrl_deps (PyTorch-collected traces whose control
  /// edges form cycles with their data edges).
  bool data_deps_only = false;
  workload::chakra::ToWorkloadOptions compute;
  /// Communicator groups by pg_name: NPUs in rank order (--comm-group-configuration).
  std::map<std::string, std::vector<topology::NodeId>> groups;
  RemoteMemory memory;
  network::BackendOptions backend_options;
  const endpoint::EndpointInfo* endpoint = nullptr;  ///< nullptr: ideal
  endpoint::EndpointParams endpoint_params;
  std::optional<core::Time> max_time;  ///< core::SimulationError if not finished by then
  bool timeline = false;               ///< record ReplayResult::timeline
  /// Called every 2^20 events while the replay runs (progress lines, Ctrl-C): simulated time,
  /// events. It may throw (core::Interrupted) to stop the run.
  std::function<void(core::Time, std::uint64_t)> progress;
};

/// A node's time on its rank.
struct ReplaySlice {
  enum class Kind { Compute, Collective, Send, Recv, Memory };
  Kind kind = Kind::Compute;
  std::uint32_t rank = 0;
  std::uint32_t node = 0;  ///< index in the rank's trace
  core::Time begin, end;   ///< issued, finished
};
const char* to_string(ReplaySlice::Kind k);

struct RankReplay {
  core::Time finish;   ///< when its last node finished
  core::Time compute;  ///< GPU compute time (ASTRA-sim's exposed communication = finish - this)
  std::uint64_t nodes = 0;
};

struct ReplayResult {
  std::vector<RankReplay> ranks;  ///< by NPU
  core::Time total;               ///< the last rank's finish
  std::uint64_t collectives = 0, sends = 0, memory_ops = 0;
  std::uint64_t messages = 0, bytes = 0;  ///< network messages and payload bytes
  std::uint64_t events = 0;
  /// Per link of the topology: bytes and busy time of every message, collectives' and sends'.
  std::vector<network::LinkStats> links;
  std::vector<ReplaySlice> timeline;
};

using workload::chakra::replay_reason;

/// Replay the trace on the platform: `ranks` holds one trace per NPU, or rank 0's only to run
/// on every NPU. Throws core::InputError naming the file and node for what cannot run (an
/// unsupported comm_type, a pg_name not in `groups`, a send to itself or out of range, a memory
/// node without remote memory, collectives of one communicator that disagree), and
/// core::SimulationError naming the stuck ranks and nodes if the ranks deadlock (a receive no
/// send matches, a collective some member never issues).
ReplayResult replay(const topology::Topology& topo, const network::BackendInfo& backend,
                    const std::vector<workload::chakra::RankTrace>& ranks, const ReplayOptions& options);

}  // namespace collsim::jobs
