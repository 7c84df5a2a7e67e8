#pragma once
// A workload graph as Chakra execution traces (MLCommons Chakra's ET, chakra_et.proto): one
// trace per NPU, PREFIX.<rank>.et, each a GlobalMetadata then the rank's nodes, every message
// length-delimited (a varint32 length, then the message) as ASTRA-sim 2.x's feeder reads them.
//
// Node for node (workload/graph.hpp):
//   Compute      COMP_NODE: duration_micros (rounded to the microsecond), num_ops, tensor_size,
//                is_cpu_op;
//   Delay        COMP_NODE with no ops (a zero-time join, an iteration marker);
//   Collective   COMM_COLL_NODE: comm_type, comm_size, and the rank's communicator as pg_name
//                (every NPU: none; a hierarchical collective's dimensions: involved_dim);
//   Send, Recv   COMM_SEND_NODE / COMM_RECV_NODE: comm_src, comm_dst, comm_tag, comm_size;
//   MemLoad/Store MEM_LOAD_NODE / MEM_STORE_NODE: tensor_size;
// data_deps and ctrl_deps by node id. What Chakra has no field for is kept in attributes that
// other readers ignore and collsim's reader (chakra.hpp) uses, so that a trace collsim wrote
// replays as the graph it came from: collsim.duration_ps (the exact time), collsim.delay,
// collsim.stream and collsim.category per node; in the metadata, collsim.stream.<name> (serial,
// serial-lifo or concurrent, in stream order: the first is the rank's main stream) and
// collsim.pg.<name> (each communicator's NPUs, as ASTRA-sim's --comm-group-configuration lists
// them).
//
// An SPMD graph (Graph::spmd) is written once per NPU; otherwise each timeline is its NPU's trace
// and an NPU without one gets a trace with no nodes.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "workload/graph.hpp"

namespace collsim::workload::chakra {

/// Prefix of collsim's own attributes.
inline constexpr const char* kCollsimAttr = "collsim.";

struct ChakraWritten {
  std::uint32_t files = 0;
  std::uint64_t nodes = 0;
  /// pg_name -> NPUs in rank order, every communicator a collective names.
  std::map<std::string, std::vector<topology::NodeId>> groups;
};

/// Calls `sink(rank, bytes)` with each NPU's trace, ranks 0 .. npus-1 in order, for a platform
/// of `npus` NPUs in `dims` dimensions (involved_dim's length). Throws core::InputError if two
/// timelines run on one NPU, or a collective's group has no communicator holding the NPU of the
/// timeline that issues it.
ChakraWritten write_chakra(const Graph& g, std::uint32_t npus, std::uint32_t dims,
                           const std::function<void(std::uint32_t, const std::string&)>& sink);

/// ASTRA-sim's --comm-group-configuration for `groups`: {"name": [npus], ...}.
std::string comm_groups_json(const std::map<std::string, std::vector<topology::NodeId>>& groups);

}  // namespace collsim::workload::chakra
