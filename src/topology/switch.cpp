#include <string>

#include "topology/builders.hpp"

namespace collsim::topology {

Topology switch_star(std::uint32_t n, core::Bandwidth bw, core::Time lat) {
  const DimSpec spec{DimKind::Switch, n, bw, lat, 1};
  return Topology::product("switch:" + std::to_string(n), {spec});
}

}  // namespace collsim::topology
