#pragma once
// The workload graph (docs/architecture.md, "workload"): what every rank of a job runs, as nodes
// with dependencies and streams, node for node the shape of a Chakra execution-trace node
// (MLCommons Chakra, chakra_et.proto: COMP_NODE, COMM_COLL_NODE, COMM_SEND_NODE, COMM_RECV_NODE,
// MEM_LOAD_NODE, MEM_STORE_NODE; data_deps, ctrl_deps; duration_micros, num_ops, tensor_size,
// comm_type, comm_size, comm_src, comm_dst, comm_tag, pg_name, involved_dim). Generators build
// it (workload/training_graph.hpp: training iterations; workload/llm_graph.hpp: an LLM iteration;
// workload/formats/chakra_graph.hpp: a Chakra trace); one runner walks it on a simulated machine
// (jobs/workload_runner.hpp); any graph exports as Chakra ET (workload/formats/chakra_write.hpp).
// Data only: nothing here simulates.
//
// Shape:
//   - timelines (Chakra's ranks): each runs its nodes on the NPU `npu`; a timeline may stand for
//     several NPUs that do the same at the same time (an SPMD training timeline stands for every
//     NPU; an LLM pipeline stage for the tensor-parallel ranks of the stage), which is why a
//     collective names the communicators it runs on rather than taking them from the rank;
//   - a node runs when its dependencies (node indices of the same timeline, data ones first) have
//     finished and its stream is free; a serial stream runs one node at a time (a CUDA stream, a
//     NIC's one collective at a time), picking among its ready nodes the lowest id (fifo) or the
//     highest (lifo); a concurrent stream runs any number; across streams, ready nodes start in
//     id order;
//   - a collective node runs on a group (a set of communicators started together, or the
//     dimensions of a hierarchical collective); the k-th collective node of every participating
//     timeline on a group meets the k-th of the others (as NCCL matches calls), and the
//     collective starts when the last of them is issued;
//   - a send node moves bytes from `src` to `dst`; a receive node on the timeline of `dst`
//     matches sends of the same (src, dst, tag, bytes) in order;
//   - memory nodes go through the remote memory of the machine (ASTRA-sim's); a delay just
//     takes its time.
// Units: core::Time (ps), bytes.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "collective/algorithm.hpp"
#include "collective/collective.hpp"
#include "collective/communicator.hpp"
#include "core/units.hpp"
#include "topology/topology.hpp"

namespace collsim::workload {

enum class NodeKind : std::uint8_t { Compute, Collective, Send, Recv, MemLoad, MemStore, Delay };
/// "compute", "collective", "send", "recv", "mem-load", "mem-store", "delay".
const char* to_string(NodeKind k);

inline constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
/// Send / Recv: the NPU of the timeline running the node (a program shared by several ranks).
inline constexpr topology::NodeId kSelf = std::numeric_limits<topology::NodeId>::max();

/// A stream: a queue of nodes with its own order (CUDA streams; ASTRA-sim's one GPU operation at
/// a time and one communication at a time per rank).
struct Stream {
  std::string name;
  bool serial = true;  ///< one node at a time; false: any number at once
  bool lifo = false;   ///< serial: the latest-issued (highest id) ready node first
};

/// The communicators a collective runs on, started together as one launch (every data-parallel
/// group of a training job at once), or the dimensions of a hierarchical collective.
struct Group {
  std::string name;  ///< Chakra's pg_name on export; reports
  /// Flat: the communicators (empty: every NPU of the platform in NPU order).
  std::vector<collective::Communicator> comms;
  /// Hierarchical (staged) algorithms: the dimensions (empty: all). Flat ones refuse a group
  /// with dims.
  std::vector<std::uint32_t> dims;
  /// The timelines whose collective nodes on this group meet (each issues every collective of
  /// the group); empty: every timeline of the graph.
  std::vector<std::uint32_t> participants;
  /// Groups of one timing class (kNone: none) run a collective of a given kind, size, algorithm
  /// and chunks in the same time whatever else runs, because their links carry nothing else (the
  /// generator guarantees it: an LLM's TP groups, each filling a node's NVSwitch): the runner
  /// simulates the first and times the others as it took (groups' symmetry over time).
  std::uint32_t timing_class = kNone;
};

struct Node {
  NodeKind kind = NodeKind::Delay;
  collective::Collective collective = collective::Collective::AllReduce;
  std::uint16_t stream = 0;         ///< index into Graph::streams
  std::uint32_t category = 0;       ///< index into Graph::categories (reports split by it)
  std::uint32_t name = kNone;       ///< index into Graph::names
  std::uint64_t id = 0;             ///< Chakra node id; ties in issue order break on it
  core::Time duration;              ///< Compute, Delay (and a Collective run as `ideal`)
  double flops = 0;                 ///< Compute: num_ops (informative; duration is the time)
  std::uint64_t bytes = 0;          ///< Collective: size; Send/Recv: payload; Mem*: tensor size
  std::uint32_t group = kNone;      ///< Collective: index into Graph::groups (Timeline::groups maps it)
  std::uint32_t algorithm = kNone;  ///< Collective: index into Graph::algorithms; kNone: the run's
  std::uint32_t chunks = 0;         ///< Collective: pipelined chunks; 0: the run's
  topology::NodeId src = 0, dst = 0;  ///< Send / Recv: NPUs (kSelf: the timeline's)
  std::int32_t tag = 0;               ///< Send / Recv
  bool cpu = false;                   ///< Compute: a host operation (Chakra is_cpu_op)
  std::uint32_t deps_begin = 0;       ///< into Program::deps
  std::uint16_t data_deps = 0, ctrl_deps = 0;
};

/// Nodes and their dependencies, shared by the timelines that run the same program.
struct Program {
  std::string source;  ///< names it in errors: a file, "training timeline", "stage 3"
  std::vector<Node> nodes;
  std::vector<std::uint32_t> deps;  ///< node indices, per node [deps_begin, + data + ctrl)
};

struct Timeline {
  topology::NodeId npu = 0;   ///< the NPU it runs on (its Chakra rank)
  std::uint32_t program = 0;  ///< index into Graph::programs
  /// Maps a node's group to this timeline's (a trace's pg_name resolves per rank); empty: as is.
  std::vector<std::uint32_t> groups;
  std::uint32_t group_of(std::uint32_t g) const { return groups.empty() ? g : groups[g]; }
};

struct Graph {
  std::string name;    ///< the workload's name
  std::string source;  ///< where it came from
  std::vector<Program> programs;
  std::vector<Timeline> timelines;
  std::vector<Stream> streams;
  std::vector<Group> groups;
  std::vector<std::string> categories;
  std::vector<std::string> names;
  std::vector<collective::AlgorithmChoice> algorithms;
  /// The one timeline stands for every NPU of the platform (SPMD): export writes it once per NPU.
  bool spmd = false;

  std::uint32_t stream(std::string name, bool serial = true, bool lifo = false);
  std::uint32_t category(const std::string& name);
  std::uint32_t intern(const std::string& name);
  const std::string& name_of(const Node& n) const;
};

/// Appends nodes to a program, with dependencies.
class ProgramBuilder {
 public:
  explicit ProgramBuilder(Program& p) : p_(p) {}
  /// Append `n` (deps_* set here) depending on `data` then `ctrl`; returns its index. The id is
  /// the index unless `n.id` was set (ids must stay unique).
  std::uint32_t add(Node n, const std::vector<std::uint32_t>& data,
                    const std::vector<std::uint32_t>& ctrl = {});

 private:
  Program& p_;
};

/// Checks every program: dependencies in range and not on the node itself, no cycle (naming a
/// node on one), streams, groups, categories, algorithms and names in range, sends to and from
/// NPUs below `npus` and not to themselves, timelines' NPUs and group maps in range, groups'
/// participants. Throws core::InputError naming the program's source and the node.
void validate(const Graph& g, std::uint32_t npus);

/// Nodes of every timeline (counting shared programs once per timeline).
std::uint64_t total_nodes(const Graph& g);

}  // namespace collsim::workload
