#include <string>

#include "topology/builders.hpp"
#include "topology/forms.hpp"

namespace collsim::topology {

Topology fully_connected(std::uint32_t n, core::Bandwidth bw, core::Time lat) {
  // n - 1 physical links per NPU, one per peer, so every directed peer link carries `bw`.
  // (n < 2 is left to product(), which names the field.)
  const DimSpec spec{DimKind::FullyConnected, n, bw, lat, n >= 2 ? n - 1 : 0};
  return Topology::product("fc:" + std::to_string(n), {spec});
}

TopologyForm fully_connected_form() {
  return {.name = "fc",
          .syntax = "fc:N",
          .example = "fc:8",
          .description = "fully connected: a direct link between every pair of the N NPUs",
          .source =
              "Themis Table 2 (FullyConnected dimension); switch-fc-hierarchical-torus "
              "Sec. III",
          .args = FormArgs::Size,
          .build = [](const CompactArgs& a, core::Bandwidth bw, core::Time lat) {
            return fully_connected(a.sizes.at(0), bw, lat);
          }};
}

}  // namespace collsim::topology
