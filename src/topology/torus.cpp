#include <string>
#include <utility>

#include "topology/builders.hpp"
#include "topology/forms.hpp"

namespace collsim::topology {

Topology torus(const std::vector<std::uint32_t>& shape, core::Bandwidth bw, core::Time lat) {
  // Two links per NPU per dimension, one each way, so each direction carries `bw`.
  std::vector<DimSpec> dims;
  std::string name = "torus:";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    dims.push_back(DimSpec{DimKind::Ring, shape[i], bw, lat, 2});
    name += (i ? "x" : "") + std::to_string(shape[i]);
  }
  return Topology::product(std::move(name), std::move(dims));
}

TopologyForm torus_form() {
  return {
      .name = "torus",
      .syntax = "torus:AxB[xC...]",
      .example = "torus:8x8",
      .description = "torus of any number of dimensions: bidirectional rings in every dimension",
      .source = "MultiTree Table III and Sec. VI-A (4x4 and 8x8 2D torus)",
      .args = FormArgs::Shape,
      .build = [](const CompactArgs& a, core::Bandwidth bw, core::Time lat) {
        return torus(a.sizes, bw, lat);
      }};
}

}  // namespace collsim::topology
