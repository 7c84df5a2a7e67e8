#include <string>
#include <utility>

#include "topology/builders.hpp"

namespace collsim::topology {

Topology hierarchical(const std::vector<DimSpec>& dims) {
  // Themis (ISCA'22) Table 2: dimension 1 of the paper is dims[0], the fastest-varying
  // coordinate; links_per_npu carries the table's "#Links/NPU".
  std::string name = "hier:";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    name += (i ? "x" : "") + std::string(to_string(dims[i].kind)) + std::to_string(dims[i].size);
  }
  return Topology::product(std::move(name), dims);
}

}  // namespace collsim::topology
