// The platforms of switch-fc-hierarchical-torus (Sec. III, Figs. 2 and 6, Table II): P packages
// (NAPs) of n NPUs (NAMs). Inside a package either k local switches, every NPU linked to each
// (`swfc:P:n:k`, DimKind::LocalSwitches), or the hierarchical torus's ring (`htorus:P:n`, a
// unidirectional ring as the paper's all-to-all step count n(n-1)/2 implies; `htorus:P:n:2` for
// a bidirectional one). Between packages, the NPUs of one local id form a 2D torus over the
// packages: P = V x H with V the largest divisor of P not above sqrt(P) (4 packages: 2 x 2), a
// bidirectional ring per row and column; a dimension of size 1 is left out (P = 1: one package).
// Dimensions in the order local, vertical, horizontal (Sec. III-C's order of communication).
//
// Links take Table II: 512 bits/ns and 90 ns inside a package, 256 bits/ns and 200 ns between
// packages, plus the 5 ns router latency of the router at each link's far end (a switch or an
// NPU's router), so a hop inside a package costs 95 ns and an NPU-switch-NPU route 190 ns.
//
// The NPU's network interface is not its router: in ASTRA-sim 1.0's Garnet topologies (the
// simulator the paper modified), each NPU's NI is joined to its router by ExtLinks with the
// local link latency, and a message crosses its source router too. Every message therefore
// pays 90 ns (NI -> router) + 5 ns (source router) + 90 ns (router -> NI) once, whatever its
// route (Topology::ni_latency): an NPU-switch-NPU message 375 ns, a ring neighbour 280 ns.
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "topology/builders.hpp"
#include "topology/forms.hpp"

namespace collsim::topology {
namespace {

std::uint32_t vertical_size(std::uint32_t p) {
  std::uint32_t v = 1;
  for (std::uint32_t d = 1; std::uint64_t{d} * d <= p; ++d) {
    if (p % d == 0) v = d;
  }
  return v;
}

Topology build(std::string name, DimSpec local, std::uint32_t packages, const PackageLinks& l) {
  if (packages < 1) throw core::InputError(fmt::format("{}: packages must be >= 1", name));
  if (std::uint64_t{packages} * local.size > (1u << 20)) {
    throw core::InputError(fmt::format("{}: more than 1048576 NPUs", name));
  }
  std::vector<DimSpec> dims{local};
  const std::uint32_t v = vertical_size(packages), h = packages / v;
  const core::Time inter_lat = l.inter_latency + l.router_latency;
  for (std::uint32_t size : {v, h}) {
    if (size > 1) dims.push_back(DimSpec{DimKind::Ring, size, l.inter_bandwidth, inter_lat, 0});
  }
  Topology t = Topology::product(std::move(name), std::move(dims));
  t.set_ni_latency(l.ni_link_latency * 2 + l.router_latency, t.name());
  return t;
}

}  // namespace

Topology switch_fc_package(std::uint32_t packages, std::uint32_t npus, std::uint32_t switches,
                           const PackageLinks& l) {
  const std::string name = fmt::format("swfc:{}:{}:{}", packages, npus, switches);
  if (npus < 2) throw core::InputError(fmt::format("{}: n must be >= 2 NPUs per package", name));
  if (switches < 1 || switches > npus) {
    throw core::InputError(fmt::format("{}: k must be 1..n = {} local switches per package, got {}",
                                       name, npus, switches));
  }
  return build(name,
               DimSpec{DimKind::LocalSwitches, npus, l.intra_bandwidth,
                       l.intra_latency + l.router_latency, switches},
               packages, l);
}

Topology hierarchical_torus(std::uint32_t packages, std::uint32_t npus, bool bidirectional,
                            const PackageLinks& l) {
  const std::string name = fmt::format("htorus:{}:{}{}", packages, npus, bidirectional ? ":2" : "");
  if (npus < 2) throw core::InputError(fmt::format("{}: n must be >= 2 NPUs per package", name));
  // A bidirectional ring: one physical link each way, every directed link at the link width.
  return build(name,
               DimSpec{bidirectional ? DimKind::Ring : DimKind::UniRing, npus, l.intra_bandwidth,
                       l.intra_latency + l.router_latency, bidirectional ? 2u : 1u},
               packages, l);
}

TopologyForm switch_fc_form() {
  return {.name = "swfc",
          .syntax = "swfc:P:n:k",
          .example = "swfc:4:8:4",
          .description =
              "P packages of n NPUs, k local switches per package (every NPU linked to each), "
              "a 2D torus between packages; Table II links (512/256 bits/ns, 90/200 ns, 5 ns "
              "routers); --local-switch picks the switch",
          .source = "switch-fc-hierarchical-torus Sec. III-A, Fig. 6, Table II",
          .args = FormArgs::Fields,
          .own_links = true,
          .build = [](const CompactArgs& a, core::Bandwidth, core::Time) {
            if (a.sizes.size() != 3) {
              throw core::InputError("swfc: write swfc:P:n:k, e.g. swfc:4:8:4");
            }
            return switch_fc_package(a.sizes[0], a.sizes[1], a.sizes[2], PackageLinks{});
          }};
}

TopologyForm hierarchical_torus_form() {
  return {.name = "htorus",
          .syntax = "htorus:P:n[:2]",
          .example = "htorus:4:8",
          .description =
              "hierarchical torus: P packages of n NPUs on a unidirectional ring (:2 "
              "bidirectional), a 2D torus between packages; Table II links",
          .source =
              "switch-fc-hierarchical-torus Fig. 2 and Table II (ASTRA-sim's hierarchical "
              "torus)",
          .args = FormArgs::Fields,
          .own_links = true,
          .build = [](const CompactArgs& a, core::Bandwidth, core::Time) {
            if (a.sizes.size() != 2 && !(a.sizes.size() == 3 && a.sizes[2] <= 2)) {
              throw core::InputError(
                  "htorus: write htorus:P:n (unidirectional package ring) or htorus:P:n:2 "
                  "(bidirectional), e.g. htorus:4:8");
            }
            return hierarchical_torus(a.sizes[0], a.sizes[1],
                                      a.sizes.size() == 3 && a.sizes[2] == 2, PackageLinks{});
          }};
}

}  // namespace collsim::topology
