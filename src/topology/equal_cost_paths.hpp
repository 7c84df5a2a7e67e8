#pragma once
// The equal-cost shortest paths between two NPUs of a graph topology, over its working links:
// what ECMP and packet spraying choose among (docs/multipath.md).
//
// The paths from NPU s to NPU d are the shortest paths in hops that avoid failed links. They are
// numbered hop by hop in link-id order: at each node the candidate next links (those one hop
// closer to d) come in ascending id, and path i takes the first candidate whose subtree holds
// path i (mixed-radix by the number of paths under each candidate). Path 0 is the general
// graph's own route (ties toward the lower link id, Topology::route without a routing rule).
// On a k-ary L-level fat tree two NPUs whose nearest common ancestors are at level l have k^l
// paths (fattree:8x2: 8 between NPUs of different leaves, one through each spine); on a BiGraph,
// S/2 between switches of the same layer.
//
// Cost: the paths toward a target node are counted once, on first use, by a search of the whole
// graph (O(links)), and kept: 12 bytes per node per target. The target is the destination's
// switch when the NPU hangs off one switch (every NPU of a leaf shares it), else the NPU. Choosing
// a path is then O(hops x degree), with no allocation. A form that gives its paths in closed form
// (Topology::set_equal_cost_paths: railfat, whose 16,384 NPUs would need 12 bytes x ~20,000
// nodes per NPU, about 4 GB) keeps no table; the numbering is the same.
#include <cstdint>
#include <vector>

#include "topology/topology.hpp"

namespace collsim::topology {

/// True if a working link joins two switches equally far (in hops) from the nearest NPU: a
/// BiGraph's layers (every switch holds NPUs), whose same-layer routes turn round in the other
/// layer. Spread over every shortest path, such routes can wait on each other in a cycle of
/// finite buffers (a fat tree's up-then-down routes cannot). O(links).
bool has_flat_switch_links(const Topology& t);

class EqualCostPaths {
 public:
  /// `topo` must outlive this object; its failed links must not change after.
  explicit EqualCostPaths(const Topology& topo);

  /// Equal-cost shortest paths from NPU `src` to NPU `dst` (>= 1 for src != dst; saturates at
  /// 2^64 - 1). Throws std::out_of_range for bad ids.
  std::uint64_t count(NodeId src, NodeId dst);
  /// Append the links of path `index` mod count(src, dst). Allocation-free when `out` has
  /// capacity (after the first use of the destination's target).
  void append(NodeId src, NodeId dst, std::uint64_t index, std::vector<LinkId>& out);

 private:
  // A node no path may cross toward target t: a third NPU, where only switches forward
  // (Topology::switches_only_forward).
  bool transit_barred(NodeId v, NodeId t) const {
    return v != t && topo_.switches_only_forward() && topo_.is_npu(v);
  }
  struct Target {
    std::vector<std::uint32_t> dist;   // hops to the target, per node (UINT32_MAX: unreached)
    std::vector<std::uint64_t> paths;  // shortest paths to the target, per node
  };
  // The node whose shortest paths stand for those to `dst`, and the last link (or kNone).
  NodeId target_of(NodeId dst, LinkId& last) const;
  const Target& target(NodeId t);

  const Topology& topo_;
  Topology::EqualCostFn closed_;  // the form's closed form (railfat), with no failed link
  std::vector<std::uint32_t> slot_;  // per node: 1 + its index in targets_, 0: not yet counted
  std::vector<Target> targets_;
};

}  // namespace collsim::topology
