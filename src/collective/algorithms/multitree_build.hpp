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
//              priority 0, so N-1..0; mesh: the code's max distance to the four corners, which
//              computes |x - cx| + |cx - cy|, reproduced as is).
// Switch-based networks (fat tree, BiGraph, switch; Sec. III-C3): a parent's candidates are the
// other NPUs nearest first (its own switch's, then farther ones), and a tree edge holds every link
// of the network's route from parent to child for its step. collsim uses the route the network
// will take (deterministic NCA on fat trees) instead of the authors' DFS over free switch links,
// so that the links a tree edge reserves are the links its message crosses.
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
