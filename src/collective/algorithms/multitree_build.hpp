#pragma once
// MultiTree's tree construction (MultiTree (ISCA'21) Sec. III-B/C, Algorithm 1): one spanning
// tree per NPU, rooted at it, built top-down one time step at a time. In every time step each
// directed link of the topology may carry one tree edge; trees take turns adding one node each,
// a new node hanging off a parent that joined in an earlier step (parents examined in the order
// they joined), over a free link to a neighbour not yet in the tree; the step ends when no tree
// can grow. Per-step budgets bound how many tree edges an NPU sends and receives in one step
// (the authors' `kary`: kary - 1 each; their NIs).
//
// Two modes (both tested):
//   paper      the step ends after a full round of turns in which no tree grew; roots take turns
//              in ascending id; neighbours are examined Y before X (north, south, west, east).
//   reference  the authors' simulator (github.com/farabimahmud/accelerator, final version): the
//              step ends at a round boundary iff the round's last root failed to grow; from the
//              second round on, roots go in descending priority, ties by descending id (torus:
//              priority 0, so N-1..0; mesh: the code's max distance to the four corners, with
//              their KNCube's coordinates (row = id / k) and their bug: max over the corners
//              (rc, cc) of |row - rc| + |rc - cc|, reproduced as is).
// Switch-based networks (fat tree, BiGraph, switch; Sec. III-C3). reference: the authors' tree
// builder, on networks whose NPUs each hang off one switch: an NPU sends and receives one tree
// edge per step; a parent first takes a node on its own switch, else the first node that a
// depth-first search over the step's free switch-to-switch links reaches (any free switch path,
// not only the network's route: spine switches, which have no NPUs, are passed through, a leaf
// switch offers its NPUs and ends the search); the edge reserves the links of that path and keeps
// it (TreeEdge::path), and the program pins the edge's messages to it (Program::routes). paper: a
// parent's candidates are the other NPUs nearest first, and a tree edge holds every link of the
// network's deterministic route from parent to child for its step.
#include <cstdint>
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace collsim::collective {

enum class MultiTreeMode { Paper, Reference };

struct TreeEdge {
  std::uint32_t child = 0;
  std::uint32_t parent = 0;
  std::uint32_t step = 0;  ///< the all-gather time step it was built in, 1-based
  /// The links parent -> child the edge reserved (reference mode on switched networks); empty:
  /// the topology's route.
  std::vector<topology::LinkId> path;
};

struct MultiTreePlan {
  std::uint32_t steps = 0;                   ///< T: time steps of the all-gather (and of the RS)
  std::vector<std::vector<TreeEdge>> trees;  ///< trees[r]: tree rooted at NPU r, in build order
};

/// Build the trees on every NPU of `topo`. `kary` >= 2: at most kary - 1 tree edges sent and
/// received per NPU per step. Throws core::InputError when the trees cannot grow or the
/// construction would take minutes.
MultiTreePlan build_multitree(const topology::Topology& topo, MultiTreeMode mode,
                              std::uint32_t kary);

/// "" if in every time step no directed link carries two tree edges and every tree spans every
/// NPU exactly once, else the first violation.
std::string check_multitree(const topology::Topology& topo, const MultiTreePlan& plan);

}  // namespace collsim::collective
