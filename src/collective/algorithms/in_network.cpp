#include "collective/algorithms/in_network.hpp"

#include "collective/ir/program.hpp"

namespace collsim::collective {
namespace {

bool linked_both_ways(const topology::Topology& topo, std::uint32_t npu, std::uint32_t sw) {
  bool up = false, down = false;
  for (topology::LinkId k : topo.out_links(npu)) up = up || topo.links()[k].dst == sw;
  for (topology::LinkId k : topo.in_links(npu)) down = down || topo.links()[k].src == sw;
  return up && down;
}

// Counts of the NPUs `sw` links to, other than `npu`: in npu's node and outside it.
void neighbours(const topology::Topology& topo, std::uint32_t sw, std::uint32_t npu,
                std::uint32_t g, bool& same_node, bool& other_node) {
  same_node = other_node = false;
  for (topology::LinkId k : topo.out_links(sw)) {
    const topology::NodeId dst = topo.links()[k].dst;
    if (!topo.is_npu(dst) || dst == npu) continue;
    (g > 0 && dst / g == npu / g ? same_node : other_node) = true;
  }
}

}  // namespace

std::uint32_t reduction_switch(const topology::Topology& topo,
                               const std::vector<std::uint32_t>& npus) {
  for (topology::LinkId l : topo.out_links(npus.at(0))) {
    const topology::NodeId sw = topo.links()[l].dst;
    if (topo.is_npu(sw) || topo.in_network(sw) == nullptr) continue;
    bool all = true;
    for (std::uint32_t npu : npus) all = all && linked_both_ways(topo, npu, sw);
    if (all) return sw;
  }
  return kNoSwitch;
}

std::uint32_t node_size(const topology::Topology& topo) {
  return topo.dimensions().size() >= 2 ? topo.dimensions()[0].spec.size : 0;
}

std::uint32_t node_reduction_switch(const topology::Topology& topo, std::uint32_t npu) {
  const std::uint32_t g = node_size(topo);
  std::uint32_t best = kNoSwitch;
  for (topology::LinkId l : topo.out_links(npu)) {
    const topology::NodeId sw = topo.links()[l].dst;
    if (topo.is_npu(sw) || topo.in_network(sw) == nullptr || sw >= best) continue;
    bool same = false, other = false;
    neighbours(topo, sw, npu, g, same, other);
    if (g > 0 && other) continue;
    if (linked_both_ways(topo, npu, sw)) best = sw;
  }
  return best;
}

std::uint32_t network_reduction_switch(const topology::Topology& topo, std::uint32_t npu) {
  const std::uint32_t g = node_size(topo);
  if (g == 0) return kNoSwitch;
  for (topology::LinkId l : topo.out_links(npu)) {
    const topology::NodeId sw = topo.links()[l].dst;
    if (topo.is_npu(sw) || topo.in_network(sw) == nullptr) continue;
    bool same = false, other = false;
    neighbours(topo, sw, npu, g, same, other);
    if (!same && linked_both_ways(topo, npu, sw)) return sw;
  }
  return kNoSwitch;
}

}  // namespace collsim::collective
