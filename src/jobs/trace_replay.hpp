#pragma once
// Replaying a Chakra trace node by node on every rank, as ASTRA-sim 2.x runs execution traces
// (its Workload layer), for the traces the SPMD training path (chakra.hpp to_workload) cannot
// take: send / recv nodes, memory nodes, communicator groups (pg_name), BROADCAST, and ranks
// whose graphs differ.
//
// Each rank walks its own dependency graph (data and control dependencies; ones on nodes the
// file lacks are ignored). A node whose dependencies have finished is issued, lowest node id
// first, when its resource is free:
//   - compute nodes: one GPU operation and one CPU operation (is_cpu_op) at a time per rank;
//     time = duration_micros, or the roofline (ToWorkloadOptions);
//   - collectives and sends: with `serial` (the default, ASTRA-sim's HardwareResource) one at a
//     time per rank; otherwise any number at once; receives never wait for a slot;
//   - memory nodes (MEM_LOAD / MEM_STORE): through the remote memory (RemoteMemory);
//   - metadata and invalid nodes, and collective nodes with neither comm_type nor comm_size
//     (PyTorch's host-side records), finish at once.
// A collective (ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL) runs on its communicator:
// pg_name "" or "0" is every NPU (or, with involved_dim, the NPUs that differ from the rank only
// in the involved dimensions); another pg_name names a group of `groups`. The k-th collective a
// rank issues on a communicator meets the k-th of every other member (as NCCL matches them);
// they must agree on comm_type and comm_size. It starts when its last member has issued it and
// ends for every member when its Program (or hierarchical collective) ends, so a rank that
// issues early waits; ASTRA-sim lets that rank start its own first sends instead. BROADCAST
// takes its node's duration_micros, as in ASTRA-sim (which does not simulate it either).
// A send moves comm_size bytes from comm_src (the rank) to comm_dst through the endpoint and
// the network and finishes when they have arrived (ASTRA-sim's analytical frontend calls the
// sender back then too); a receive matches the sends of the same source, destination, tag and
// size in order and finishes when its message has arrived.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collective/algorithm.hpp"
#include "endpoint/endpoint.hpp"
#include "network/backend.hpp"
#include "topology/topology.hpp"
#include "workload/formats/chakra.hpp"

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

/// Why the trace needs replay() ("" if to_workload can run it): the first node or rank that
/// the training path does not take, named.
std::string replay_reason(const std::vector<workload::chakra::RankTrace>& ranks);

/// Replay the trace on the platform: `ranks` holds one trace per NPU, or rank 0's only to run
/// on every NPU. Throws core::InputError naming the file and node for what cannot run (an
/// unsupported comm_type, a pg_name not in `groups`, a send to itself or out of range, a memory
/// node without remote memory, collectives of one communicator that disagree), and
/// core::SimulationError naming the stuck ranks and nodes if the ranks deadlock (a receive no
/// send matches, a collective some member never issues).
ReplayResult replay(const topology::Topology& topo, const network::BackendInfo& backend,
                    const std::vector<workload::chakra::RankTrace>& ranks, const ReplayOptions& options);

}  // namespace collsim::jobs
