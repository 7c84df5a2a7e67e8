#include <string>
#include <utility>

#include "topology/builders.hpp"

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

}  // namespace collsim::topology
