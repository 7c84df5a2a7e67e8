#include <string>

#include "topology/builders.hpp"
#include "topology/forms.hpp"

namespace collsim::topology {

Topology ring(std::uint32_t n, core::Bandwidth bw, core::Time lat, bool bidirectional) {
  // One link per NPU each way it sends, each with `bw`: a bidirectional ring aggregates
  // links_per_npu / 2 physical links per direction, so 2 gives `bw` each way.
  const DimSpec spec{bidirectional ? DimKind::Ring : DimKind::UniRing, n, bw, lat,
                     bidirectional ? 2u : 1u};
  return Topology::product((bidirectional ? "bidir-ring:" : "ring:") + std::to_string(n), {spec});
}

TopologyForm ring_form() {
  return {.name = "ring",
          .syntax = "ring:N",
          .example = "ring:16",
          .description = "unidirectional ring of N NPUs",
          .source =
              "ring all-reduce's ring (MultiTree Sec. III-A; switch-fc-hierarchical-torus "
              "Sec. III)",
          .args = FormArgs::Size,
          .build = [](const CompactArgs& a, core::Bandwidth bw, core::Time lat) {
            return ring(a.sizes.at(0), bw, lat, false);
          }};
}

TopologyForm bidir_ring_form() {
  return {.name = "bidir-ring",
          .syntax = "bidir-ring:N",
          .example = "bidir-ring:16",
          .description = "bidirectional ring of N NPUs, each direction at the link bandwidth",
          .source = "Themis Table 2 (Ring dimension); ACE Table 5 (bidirectional ring in L)",
          .args = FormArgs::Size,
          .build = [](const CompactArgs& a, core::Bandwidth bw, core::Time lat) {
            return ring(a.sizes.at(0), bw, lat, true);
          }};
}

}  // namespace collsim::topology
