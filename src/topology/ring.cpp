#include <string>

#include "topology/builders.hpp"

namespace collsim::topology {

Topology ring(std::uint32_t n, core::Bandwidth bw, core::Time lat, bool bidirectional) {
  // One link per NPU each way it sends, each with `bw`: a bidirectional ring aggregates
  // links_per_npu / 2 physical links per direction, so 2 gives `bw` each way.
  const DimSpec spec{bidirectional ? DimKind::Ring : DimKind::UniRing, n, bw, lat,
                     bidirectional ? 2u : 1u};
  return Topology::product((bidirectional ? "bidir-ring:" : "ring:") + std::to_string(n), {spec});
}

}  // namespace collsim::topology
