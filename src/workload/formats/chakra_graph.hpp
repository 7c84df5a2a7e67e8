#pragma once
// A Chakra trace as a workload graph (workload/graph.hpp), for replaying it rank by rank as
// ASTRA-sim 2.x runs execution traces (its Workload layer): every NPU a timeline walking its
// rank's nodes (rank 0's for every NPU when the trace has one file), node for node:
//   - COMP_NODE: a compute node on the rank's GPU stream, or on its CPU stream for is_cpu_op
//     (one GPU and one CPU operation at a time); time = duration_micros, or the roofline
//     (ToWorkloadOptions);
//   - COMM_COLL_NODE: a collective (ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL) on its
//     communicator: pg_name "" or "0" is every NPU (or, with involved_dim, the NPUs that differ
//     from the rank only in the involved dimensions; a hierarchical algorithm runs on the
//     dimensions instead); another pg_name names a group of `groups`. BROADCAST takes its
//     duration_micros (ASTRA-sim does not simulate it either); PyTorch's host-side records (no
//     comm_type, no comm_size) take no time;
//   - COMM_SEND_NODE / COMM_RECV_NODE: a send from the rank to comm_dst, a receive from comm_src;
//   - MEM_LOAD_NODE / MEM_STORE_NODE: through the remote memory;
//   - METADATA_NODE and invalid nodes take no time.
// Collectives and sends share one communication stream per rank, serial with `serial` (the
// default, ASTRA-sim's HardwareResource) or concurrent; receives, memory and zero-time nodes
// need no stream. Dependencies are data_deps and ctrl_deps (data only with data_deps_only);
// ones on nodes the file lacks are ignored. Ties break on node id (ASTRA-sim issues in id order).
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "topology/topology.hpp"
#include "workload/formats/chakra.hpp"
#include "workload/graph.hpp"

namespace collsim::workload::chakra {

struct ReplayGraphOptions {
  /// Collectives run hierarchical (their groups are dimensions) rather than flat.
  bool staged = false;
  bool serial = true;  ///< one collective or send in flight per rank (ASTRA-sim)
  /// Follow data dependencies only, ignoring ctrl_deps (PyTorch-collected traces whose control
  /// edges form cycles with their data edges).
  bool data_deps_only = false;
  ToWorkloadOptions compute;
  /// Communicator groups by pg_name: NPUs in rank order (--comm-group-configuration).
  std::map<std::string, std::vector<topology::NodeId>> groups;
  /// Collectives the run has an algorithm for (others are refused, naming the node).
  std::set<collective::Collective> runnable;
  /// Whether the machine has a remote memory (memory nodes are refused without one, as in
  /// ASTRA-sim's NO_MEMORY_EXPANSION).
  bool memory = false;
};

/// The graph of `ranks` (one trace per NPU, or rank 0's only to run on every NPU) on a platform
/// whose dimensions have sizes `dims` (innermost first). Throws core::InputError naming the file
/// and node for what cannot run: a trace count that is neither 1 nor the NPUs, an unsupported
/// comm_type, comm_size 0, a collective without an algorithm, a pg_name not in `groups` or that
/// does not hold the rank, involved_dim of the wrong length or empty, a send to itself or out of
/// range, a memory node without remote memory, a dependency cycle.
Graph replay_graph(const std::vector<RankTrace>& ranks, const std::vector<std::uint32_t>& dims,
                   std::uint32_t npus, const ReplayGraphOptions& options);

/// Why the trace needs replay_graph ("" if to_workload can run it): the first node or rank that
/// the training path does not take, named.
std::string replay_reason(const std::vector<RankTrace>& ranks);

}  // namespace collsim::workload::chakra
