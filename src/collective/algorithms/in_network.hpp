#pragma once
// The switches that reduce and multicast in the network (topology.hpp SwitchReduction) as the
// in-network algorithms (nvls.cpp, nvls_tree.cpp) find them: a switch with a link to and from an
// NPU is that NPU's, when it offers in-network reduction.
#include <cstdint>
#include <vector>

#include "topology/topology.hpp"

namespace collsim::collective {

/// The switch that every NPU of `npus` has a link to and from and that offers in-network
/// reduction; kNoSwitch (program.hpp) when there is none.
std::uint32_t reduction_switch(const topology::Topology& topo,
                               const std::vector<std::uint32_t>& npus);

/// The switch `npu` has a link to and from that offers in-network reduction (the lowest id when
/// several do); kNoSwitch when none.
std::uint32_t npu_reduction_switch(const topology::Topology& topo, std::uint32_t npu);

}  // namespace collsim::collective
