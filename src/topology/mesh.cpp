#include <string>
#include <utility>

#include "topology/builders.hpp"
#include "topology/forms.hpp"

namespace collsim::topology {

Topology mesh(const std::vector<std::uint32_t>& shape, core::Bandwidth bw, core::Time lat) {
  std::vector<DimSpec> dims;
  std::string name = "mesh:";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    dims.push_back(DimSpec{DimKind::Line, shape[i], bw, lat, 1});
    name += (i ? "x" : "") + std::to_string(shape[i]);
  }
  return Topology::product(std::move(name), std::move(dims));
}

TopologyForm mesh_form() {
  return {.name = "mesh",
          .syntax = "mesh:AxB[xC...]",
          .example = "mesh:4x4x4",
          .description = "mesh of any number of dimensions: bidirectional lines, no wrap-around",
          .source = "MultiTree Sec. VI-A (4x4 and 8x8 mesh)",
          .args = FormArgs::Shape,
          .build = [](const CompactArgs& a, core::Bandwidth bw, core::Time lat) {
            return mesh(a.sizes, bw, lat);
          }};
}

}  // namespace collsim::topology
