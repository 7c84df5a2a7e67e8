#include <string>
#include <utility>

#include "topology/builders.hpp"
#include "topology/forms.hpp"

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

TopologyForm hierarchical_form() {
  return {.name = "hier",
          .syntax = "hier:<kind><size>x...",
          .example = "hier:ring4xfc8xsw32",
          .description =
              "hierarchical P1 x P2 x ... (dimension 1 innermost), every link at the "
              "link bandwidth; per-dimension bandwidth, latency and links per NPU in a "
              "scenario's `dims:`",
          .source = "Themis Sec. 2.3 and Table 2",
          .args = FormArgs::Dims,
          .build = [](const CompactArgs& a, core::Bandwidth bw, core::Time lat) {
            std::vector<DimSpec> dims;
            // The natural links_per_npu (0) gives every directed link `bw`, as the compact form
            // says.
            for (std::size_t i = 0; i < a.sizes.size(); ++i) {
              dims.push_back(DimSpec{a.kinds.at(i), a.sizes[i], bw, lat, 0});
            }
            return hierarchical(dims);
          }};
}

}  // namespace collsim::topology
