#include <string>

#include "topology/builders.hpp"
#include "topology/forms.hpp"

namespace collsim::topology {

Topology switch_star(std::uint32_t n, core::Bandwidth bw, core::Time lat) {
  const DimSpec spec{DimKind::Switch, n, bw, lat, 1};
  return Topology::product("switch:" + std::to_string(n), {spec});
}

TopologyForm switch_form() {
  return {.name = "switch",
          .syntax = "switch:N",
          .example = "switch:1024",
          .description = "N NPUs on one switch (two links per NPU-to-NPU path)",
          .source = "Themis Table 2 (Switch dimension); MultiTree Sec. V-A (switch-based)",
          .args = FormArgs::Size,
          .build = [](const CompactArgs& a, core::Bandwidth bw, core::Time lat) {
            return switch_star(a.sizes.at(0), bw, lat);
          }};
}

}  // namespace collsim::topology
