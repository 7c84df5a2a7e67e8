#pragma once
// Internal to topology/: the logical ring over all NPUs that Topology::ring_order() exposes.
#include <vector>

#include "topology/topology.hpp"

namespace collsim::topology::detail {

struct RingOrder {
  std::vector<NodeId> order;  ///< a permutation of the NPUs
  bool is_cycle = false;      ///< every consecutive pair, last -> first included, is one step
};

/// Computes the ring order of a fully built topology (links, adjacency and dimensions set).
/// Products: identity for one dimension, else a snake over a grid (see ring_order.cpp);
/// general graphs: identity. `is_cycle` is checked on the links, not assumed.
RingOrder compute_ring_order(const Topology& t);

/// True if NPU `b` is one neighbour step from NPU `a`: a direct link a -> b, or a -> switch -> b.
bool one_step(const Topology& t, NodeId a, NodeId b);

}  // namespace collsim::topology::detail
