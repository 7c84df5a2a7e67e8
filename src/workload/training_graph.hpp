#pragma once
// The training generator: iterations of a layer-table workload (workload.hpp) as a workload graph
// (graph.hpp) of one SPMD timeline that stands for every NPU (MultiTree Sec. V and Fig. 11, ACE
// Sec. 5, Themis Sec. 5.2; the loop of ASTRA-sim's workload layer).
//
// One iteration: forward pass over layers 0..L-1, then back-propagation over L-1..0.
//   forward, layer i:   wait for layer i's weight-gradient collective of the previous iteration,
//                       then its weight update (compute), then the forward compute; a forward
//                       collective (model parallelism) blocks the next layer until it ends;
//   backward, layer i:  weight-gradient compute, then its collective is issued (overlap=layer) or
//                       deferred until back-propagation ends (overlap=none, MultiTree Fig. 11a);
//                       then the input-gradient compute, whose collective blocks the next layer.
// After the last iteration every layer waits for its weight-gradient collective and updates.
//
// As a graph: compute nodes on the main stream ("compute"), each depending on the one before and
// on the collectives it waits for; a zero-time marker ends each iteration. Collectives of a flat
// algorithm run one at a time per scope (a communicator runs its collectives in order, as NCCL's
// stream does): one serial stream per scope, fifo (issue order) or lifo (the latest first: ACE
// Sec. 5 gives the first layers' gradients priority); each launches on every group of its scope
// at once (every data-parallel group, say). Hierarchical collectives start when issued (a
// concurrent stream) and share the platform's dimension queues (Themis Sec. 4.3); so do the
// "ideal" ones, which take their size over one NPU's bandwidth (Themis Table 3).
#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "collective/algorithm.hpp"
#include "collective/communicator.hpp"
#include "topology/topology.hpp"
#include "workload/graph.hpp"
#include "workload/workload.hpp"

namespace collsim::workload {

enum class Overlap { None, Layer };
enum class IssueOrder { Fifo, Lifo };
const char* to_string(Overlap o);
const char* to_string(IssueOrder o);
/// "none" | "layer"; "fifo" | "lifo". Throw core::InputError naming `field`.
Overlap parse_overlap(std::string_view text, std::string_view field);
IssueOrder parse_issue_order(std::string_view text, std::string_view field);

/// The communicators a collective of `scope` runs on, with `m` NPUs per model-parallel group
/// (0: every NPU): the whole platform, or the model-parallel groups (consecutive NPUs), or the
/// data-parallel groups (every m-th NPU).
std::vector<collective::Communicator> scope_groups(const topology::Topology& topo, std::uint32_t m,
                                                   Scope scope);

/// The dimensions a scope spans for a hierarchical collective (empty: all), the model-parallel
/// group being the innermost dimensions (their product is m); nullopt when no prefix of the
/// dimensions has m NPUs.
std::optional<std::vector<std::uint32_t>> scope_dims(const topology::Topology& topo,
                                                     std::uint32_t m, Scope scope);

struct TrainingGraphOptions {
  /// Whether collectives run hierarchical (staged: groups are dimensions, collectives start when
  /// issued) or flat (groups are communicators, one collective at a time per scope).
  bool staged = false;
  bool ideal = false;  ///< Themis Table 3: collectives take a fixed time, start when issued
  Overlap overlap = Overlap::Layer;
  IssueOrder order = IssueOrder::Fifo;
  std::uint32_t iterations = 1;
};

/// What a node of the training graph is, for the training report.
struct TrainingNodeInfo {
  enum class Kind : std::uint8_t { Compute, Collective, IterationEnd } kind = Kind::Compute;
  std::uint32_t layer = 0;
  Pass pass = Pass::Forward;
  bool update = false;  ///< Compute: a weight update
};

struct TrainingGraph {
  Graph graph;
  std::vector<TrainingNodeInfo> info;  ///< per node of the one program
  /// The iteration-end markers, in order (the last one ends the final updates).
  std::vector<std::uint32_t> iteration_ends;
};

/// The graph of `options.iterations` iterations of `w` on `topo` (validate(w) first). Throws
/// core::InputError for a hierarchical collective whose scope is not a prefix (or suffix) of the
/// dimensions, or iterations == 0.
TrainingGraph training_graph(const Workload& w, const topology::Topology& topo,
                             const TrainingGraphOptions& options);

}  // namespace collsim::workload
