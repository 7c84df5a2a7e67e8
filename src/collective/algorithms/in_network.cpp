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

std::uint32_t npu_reduction_switch(const topology::Topology& topo, std::uint32_t npu) {
  std::uint32_t best = kNoSwitch;
  for (topology::LinkId l : topo.out_links(npu)) {
    const topology::NodeId sw = topo.links()[l].dst;
    if (topo.is_npu(sw) || topo.in_network(sw) == nullptr || sw >= best) continue;
    if (linked_both_ways(topo, npu, sw)) best = sw;
  }
  return best;
}

}  // namespace collsim::collective
