#include <string>

#include "topology/builders.hpp"

namespace collsim::topology {

Topology fully_connected(std::uint32_t n, core::Bandwidth bw, core::Time lat) {
  // n - 1 physical links per NPU, one per peer, so every directed peer link carries `bw`.
  // (n < 2 is left to product(), which names the field.)
  const DimSpec spec{DimKind::FullyConnected, n, bw, lat, n >= 2 ? n - 1 : 0};
  return Topology::product("fc:" + std::to_string(n), {spec});
}

}  // namespace collsim::topology
