#pragma once
// The switches that reduce and multicast in the network (topology.hpp SwitchReduction) as the
// in-network algorithms (nvls.cpp, nvls_tree.cpp, collnet.cpp) find them: a switch with a link
// to and from an NPU is that NPU's, when it offers in-network reduction. On a topology with two
// or more dimensions a node is a group of dimension 0 (railfat: a node's GPUs).
#include <cstdint>
#include <vector>

#include "topology/topology.hpp"

namespace collsim::collective {

/// The switch that every NPU of `npus` has a link to and from and that offers in-network
/// reduction; kNoSwitch (program.hpp) when there is none.
std::uint32_t reduction_switch(const topology::Topology& topo,
                               const std::vector<std::uint32_t>& npus);

/// NPUs per node: dimension 0's size on a topology of two or more dimensions, else 0 (no nodes).
std::uint32_t node_size(const topology::Topology& topo);

/// `npu`'s node switch with in-network reduction (NVLS): linked to and from it, and to no NPU of
/// another node (any NPUs when the topology has no nodes); the lowest id when several.
/// kNoSwitch when none.
std::uint32_t node_reduction_switch(const topology::Topology& topo, std::uint32_t npu);

/// `npu`'s network switch with in-network reduction (SHARP): linked to and from it and to no
/// other NPU of its node (a rail's leaf on railfat). kNoSwitch when none or the topology has no
/// nodes.
std::uint32_t network_reduction_switch(const topology::Topology& topo, std::uint32_t npu);

}  // namespace collsim::collective
