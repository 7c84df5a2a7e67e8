#include "topology/inventory.hpp"

#include <fmt/format.h>

#include <set>

namespace collsim::topology {

std::vector<InventoryRow> inventory(const Topology& t) {
  const std::size_t rows = t.dimensions().empty() ? 1 : t.dimensions().size();
  std::vector<InventoryRow> out(rows);
  std::vector<std::set<NodeId>> switches(rows);
  for (std::size_t d = 0; d < rows; ++d) {
    if (t.dimensions().empty()) {
      out[d].name = "network";
      out[d].groups = 1;
      continue;
    }
    const Dimension& dim = t.dimensions()[d];
    out[d].name = fmt::format("{} ({}{})", dim.name, to_string(dim.spec.kind), dim.spec.size);
    out[d].groups = static_cast<std::uint32_t>(dim.groups.size());
  }
  for (const Link& l : t.links()) {
    InventoryRow& r = out[t.dimensions().empty() ? 0 : l.dim];
    ++r.links;
    r.aggregate.bytes_per_s += l.bandwidth.bytes_per_s;
    if (l.src == 0) r.per_npu.bytes_per_s += l.bandwidth.bytes_per_s;
    for (NodeId n : {l.src, l.dst}) {
      if (!t.is_npu(n)) {
        switches[t.dimensions().empty() ? 0 : l.dim].insert(n);
        ++r.switch_ports;  // counted at both directed links of a port: halved below
      }
    }
  }
  for (std::size_t d = 0; d < rows; ++d) {
    out[d].switches = switches[d].size();
    out[d].switch_ports /= 2;
  }
  return out;
}

}  // namespace collsim::topology
