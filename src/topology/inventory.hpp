#pragma once
// The hardware a topology holds, per dimension (one row "network" for a general graph): what a
// power or cost model starts from (switch-fc-hierarchical-torus Fig. 12 weighs local switches
// against performance; collsim reports the inventory, not power or area).
#include <cstdint>
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace collsim::topology {

struct InventoryRow {
  std::string name;                ///< "dim0 (lsw 8, 4 switches)" or "network"
  std::uint32_t groups = 0;        ///< groups of NPUs in the dimension (graph: 1)
  std::uint64_t switches = 0;      ///< switch nodes its links touch
  std::uint64_t switch_ports = 0;  ///< bidirectional switch ports (directed links at switches / 2)
  std::uint64_t links = 0;         ///< directed links
  core::Bandwidth per_npu;         ///< NPU 0's outgoing bandwidth in it
  core::Bandwidth aggregate;       ///< sum over its directed links
};

/// One row per dimension of a product topology, one for a general graph.
std::vector<InventoryRow> inventory(const Topology& t);

}  // namespace collsim::topology
