#include "network/group.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace collsim::network {

void group_legs(const GroupMessage& g, std::vector<GroupLeg>& out) {
  if (g.kind == GroupMessage::Kind::Reduce) {
    for (topology::NodeId m : g.members) out.push_back(GroupLeg{m, true});
    out.push_back(GroupLeg{g.root, false});
    return;
  }
  out.push_back(GroupLeg{g.root, true});
  for (topology::NodeId m : g.members) out.push_back(GroupLeg{m, false});
}

const topology::SwitchReduction& group_switch(const topology::Topology& topo,
                                              const GroupMessage& g, std::string_view backend) {
  const topology::SwitchReduction* spec =
      g.switch_node < topo.num_nodes() ? topo.in_network(g.switch_node) : nullptr;
  if (spec == nullptr) {
    throw core::InputError(fmt::format(
        "{} backend: node {} of {} offers no in-network reduction or multicast", backend,
        g.switch_node, topo.name()));
  }
  return *spec;
}

void Backend::transmit_group(const GroupMessage&, const MessageAttributes&, DeliveryHandler&,
                             std::uint64_t) {
  throw core::InputError(fmt::format(
      "the {} backend has no in-network reduction or multicast (switch group messages); use "
      "the flow or analytical backend",
      name()));
}

}  // namespace collsim::network
