#pragma once
// Chakra execution traces (MLCommons Chakra, the workload format of ASTRA-sim 2.x): one file per
// rank, PREFIX.<rank>.et, each a stream of length-delimited protobuf messages (a varint32 length,
// then the message): a GlobalMetadata, then the rank's Nodes (chakra_et.proto). collsim reads
// compute nodes (duration, or num_ops / tensor_size for a roofline), collective nodes (comm_type,
// comm_size, involved_dim, pg_name, priority), send / recv and memory nodes (run by jobs/trace_replay.hpp),
// and the data and control dependencies.
//
// Running a trace (to_workload): the ranks must hold the same graph (SPMD: same node kinds,
// collectives and sizes; a trace of rank 0 only stands for every NPU), which becomes a training
// workload of one forward pass on collsim's training loop:
//   - compute nodes run one at a time in file order (as ASTRA-sim runs one GPU operation at a
//     time), each a layer;
//   - a collective starts when the compute node before it in the file has ended and runs beside
//     later compute until the first compute node that depends on it (directly) is due; with no
//     such node it must end before the iteration does;
//   - collectives of one communicator run one at a time in issue order with a flat algorithm
//     (ASTRA-sim's default) and concurrently through the dimension queues with `hierarchical`;
//   - a dependency on a node the file does not hold is ignored (traces collected from PyTorch
//     drop some host nodes) and counted in the workload's source line; so are collective nodes
//     without comm_type and comm_size (PyTorch's host-side c10d:: records, whose GPU kernel node
//     carries the collective), which take no time.
// Not run here (an error names the node; jobs/trace_replay.hpp replays send / recv and memory nodes,
// communicator groups, BROADCAST and ranks whose graphs differ): REDUCE / GATHER / SCATTER /
// BARRIER collectives, and involved_dim other than all dimensions, the innermost ones or the
// outermost ones.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "workload/graph.hpp"
#include "workload/workload.hpp"

namespace collsim::workload::chakra {

enum class NodeKind { Invalid, Metadata, MemLoad, MemStore, Compute, Send, Recv, Collective };
const char* to_string(NodeKind k);

struct Node {
  std::uint64_t id = 0;
  std::string name;
  NodeKind kind = NodeKind::Invalid;
  std::vector<std::uint64_t> data_deps, ctrl_deps;
  std::uint64_t duration_us = 0;  ///< duration_micros: the compute time ASTRA-sim uses
  std::optional<std::int64_t> num_ops;
  std::optional<std::uint64_t> tensor_size;  ///< bytes
  bool is_cpu_op = false;
  std::optional<std::int64_t> comm_type;  ///< CollectiveCommType (ALL_REDUCE = 0, ...)
  std::uint64_t comm_size = 0;            ///< bytes
  std::int32_t comm_src = -1, comm_dst = -1, comm_tag = 0, comm_priority = 0;
  std::string pg_name;
  std::vector<bool> involved_dim;  ///< empty: every dimension
  // collsim's own attributes (chakra_write.hpp), in traces collsim wrote:
  std::optional<std::uint64_t> duration_ps;  ///< the exact time, over duration_micros
  bool delay = false;                        ///< a zero-work node (join, marker)
  std::uint32_t chunks = 0;                  ///< a collective's pipelined chunks (0: the run's)
  std::string stream, category;              ///< the workload graph's stream and category
};

struct RankTrace {
  std::string file;
  std::string version;  ///< GlobalMetadata.version, e.g. "0.0.4"
  std::vector<Node> nodes;
  /// In traces collsim wrote (chakra_write.hpp): the graph's streams, the first the main one,
  /// and the communicators its pg_names name.
  std::vector<Stream> streams;
  std::map<std::string, std::vector<topology::NodeId>> groups;
};

/// Read one .et file. Throws core::InputError naming the file, and the node (index and id) for
/// a truncated or corrupt message or an attribute of the wrong type.
RankTrace read_et(const std::string& path);

/// True if `spec` names a Chakra trace: a file ending in .et, or a PREFIX whose PREFIX.0.et exists.
bool is_trace(const std::string& spec);

/// The files of the trace `spec` (PREFIX, or any one PREFIX.<r>.et): PREFIX.0.et,
/// PREFIX.1.et, ... as long as they exist. Throws core::InputError if there is none.
std::vector<std::string> trace_files(const std::string& spec);

struct ToWorkloadOptions {
  /// Compute nodes without a duration: max(num_ops / peak, tensor_size / memory) when both are
  /// > 0 (ASTRA-sim's roofline: `peak-perf` TFLOP/s and `local-mem-bw` GB/s); else 0.
  double peak_flops = 0;
  double memory_bytes_per_s = 0;
  /// Use the roofline even where a duration is given (ASTRA-sim `roofline-enabled`).
  bool roofline = false;
};

/// A trace run rank by rank (Workload::trace): its ranks and how its compute nodes are timed.
struct TraceWorkload {
  std::vector<RankTrace> ranks;
  ToWorkloadOptions compute;
};

/// A compute node's time: duration_micros, or the roofline (ToWorkloadOptions).
core::Time compute_time(const Node& n, const ToWorkloadOptions& options);

/// The collective of a COMM_COLL node: ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER or ALL_TO_ALL;
/// core::InputError naming `where` for another comm_type or none.
collective::Collective collective_of(const Node& n, const std::string& where);

/// The workload of a trace run on a platform with these dimension sizes (innermost first): see
/// the header comment. `ranks` holds ranks 0..R-1; R must be the platform's NPU count or 1.
/// Throws core::InputError naming the file and node for what it cannot run.
Workload to_workload(const std::vector<RankTrace>& ranks, const std::vector<std::uint32_t>& dims,
                     const ToWorkloadOptions& options, const std::string& name);

}  // namespace collsim::workload::chakra
