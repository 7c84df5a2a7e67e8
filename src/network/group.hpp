#pragma once
// What a GroupMessage (backend.hpp) crosses: its legs (each member's route to or from the
// switch) and its latency, shared by the backends that move group messages.
#include <vector>

#include "network/backend.hpp"
#include "topology/topology.hpp"

namespace collsim::network {

/// One leg of a group message: the route between `npu` and the switch, `up` toward the switch.
struct GroupLeg {
  topology::NodeId npu = 0;
  bool up = false;
};

/// The legs of `g`, appended to `out`: a reduction's contributions up from every member and its
/// result down to the root; a multicast's send up from the root and its copies down to every
/// member, the root included (NVLS's multimem store writes every GPU's copy, its own too).
void group_legs(const GroupMessage& g, std::vector<GroupLeg>& out);

/// Append the links of `leg` to `out`: from its NPU up to g's switch, or down from the switch.
inline void route_leg(const topology::Topology& topo, const GroupMessage& g, const GroupLeg& leg,
                      std::vector<topology::LinkId>& out) {
  if (leg.up) {
    topo.route(leg.npu, g.switch_node, out);
  } else {
    topo.route(g.switch_node, leg.npu, out);
  }
}

/// The switch's in-network reduction, or throws core::InputError naming the backend when
/// `g.switch_node` offers none.
const topology::SwitchReduction& group_switch(const topology::Topology& topo,
                                              const GroupMessage& g, std::string_view backend);

}  // namespace collsim::network
