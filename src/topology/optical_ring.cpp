// The optical WDM ring of WRHT (PPoPP'23) Sec. 2: N nodes joined in a ring by two
// counter-propagating waveguides. As a graph it is a bidirectional ring (directed link i -> i+1 is
// a segment of the clockwise waveguide, i+1 -> i of the counter-clockwise one), so every
// electrical backend and algorithm runs on it unchanged; the optical backend reads its wavelengths.
#include <fmt/format.h>

#include <string>

#include "core/error.hpp"
#include "topology/builders.hpp"
#include "topology/forms.hpp"

namespace collsim::topology {

namespace {
constexpr std::uint32_t kMaxWavelengths = 4096;
}

Topology optical_ring(std::uint32_t n, const OpticalSpec& optical, core::Time hop_latency) {
  if (optical.wavelengths == 0 || optical.wavelengths > kMaxWavelengths) {
    throw core::InputError(
        fmt::format("wavelengths: must be 1..{}, got {}", kMaxWavelengths, optical.wavelengths));
  }
  if (!(optical.wavelength_bandwidth.bytes_per_s > 0)) {
    throw core::InputError("wavelength_bandwidth: must be > 0");
  }
  // A waveguide segment carries every wavelength: its capacity is w x B, the per-node,
  // per-direction bandwidth an electrical ring needs to match it.
  const core::Bandwidth segment{optical.wavelength_bandwidth.bytes_per_s * optical.wavelengths};
  const DimSpec spec{DimKind::Ring, n, segment, hop_latency, 2};
  Topology t = Topology::product("optical-ring:" + std::to_string(n), {spec});
  t.set_optical(optical);
  return t;
}

TopologyForm optical_ring_form() {
  return {.name = "optical-ring",
          .syntax = "optical-ring:N",
          .example = "optical-ring:64",
          .description =
              "optical WDM ring of N nodes, two counter-propagating waveguides of --wavelengths "
              "x --wavelength-bandwidth each (links carry their sum; --link-bandwidth unused, "
              "--link-latency is the propagation per hop)",
          .source = "WRHT (PPoPP'23) Sec. 2, on the TeraRack micro-ring architecture",
          .args = FormArgs::Size,
          .optical = true,
          .build = [](const CompactArgs& a, core::Bandwidth, core::Time lat) {
            return optical_ring(a.sizes.at(0), a.optical, lat);
          }};
}

}  // namespace collsim::topology
