// EFLOPS's BiGraph (MultiTree (ISCA'21) Sec. V-A): two layers of S/2 switches each, every upper
// switch linked to every lower switch, P NPUs on every switch of both layers. An inter-layer link
// carries P / (S/2) NPU links' bandwidth (collsim's reading: non-blocking, every NPU port matched
// by an inter-layer port; the paper gives no figure). NPU i hangs off
// switch i / P (switches 0 .. S/2-1 upper, the rest lower). Two NPUs on switches of the same
// layer talk through the switch of the other layer at the destination switch's position mod S/2
// (the MultiTree authors' BookSim routing, dor_bigraph).
// The paper's "32-node 4x8 and 64-node 4x16 BiGraph" are 8 and 16 switches of 4 NPUs (4 + 4 and
// 8 + 8 switches, one NPU link's bandwidth between every upper and lower switch):
//   bigraph:8x4   the paper's 32 NPUs
//   bigraph:16x4  its 64 NPUs
// bigraph:4x8 and 4x16 (2 + 2 switches of 8 or 16 NPUs) are valid forms of other BiGraphs.
#include <fmt/format.h>

#include <string>

#include "core/error.hpp"
#include "topology/builders.hpp"
#include "topology/forms.hpp"

namespace collsim::topology {
namespace {

// Same switch: up and down. Switches of different layers: their direct link. Same layer: through
// the switch of the other layer that the destination's position picks (dst mod S/2), so that
// traffic to different NPUs spreads over the middle switches.
void route_bigraph(const Topology& t, std::uint32_t switches, std::uint32_t per, NodeId src,
                   NodeId dst, std::vector<LinkId>& out) {
  const NodeId n = t.num_npus();
  const std::uint32_t half = switches / 2;
  const NodeId a = n + src / per, b = n + dst / per;
  out.push_back(t.link_between(src, a));
  if (a != b) {
    const bool same_layer = (a - n < half) == (b - n < half);
    if (same_layer) {
      // The other layer's switch at the destination switch's position (mod S/2), as the
      // MultiTree authors' BookSim routes a BiGraph (dor_bigraph: by destination router).
      const NodeId mid = n + (a - n < half ? half : 0) + (dst / per) % half;
      out.push_back(t.link_between(a, mid));
      out.push_back(t.link_between(mid, b));
    } else {
      out.push_back(t.link_between(a, b));
    }
  }
  out.push_back(t.link_between(b, dst));
}

}  // namespace

Topology bigraph(std::uint32_t switches, std::uint32_t per_switch, core::Bandwidth bw,
                 core::Time lat) {
  if (switches < 2 || switches % 2 != 0) {
    throw core::InputError(
        fmt::format("bigraph: the switch count must be even (two layers), got {}", switches));
  }
  const std::uint64_t npus = std::uint64_t{switches} * per_switch;
  if (npus > (1u << 20)) throw core::InputError("bigraph: at most 1048576 NPUs");
  const auto n = static_cast<NodeId>(npus);
  // Counted before anything is built: S/2 x S/2 switch pairs grow as S^2 (bigraph:65536x4 has
  // 2.1e9 links, 50 GB of them).
  const std::uint64_t half_switches = switches / 2;
  const std::uint64_t num_links = 2 * npus + 2 * half_switches * half_switches;
  if (num_links > kMaxLinksPerTopology) {
    throw core::InputError(fmt::format(
        "bigraph:{}x{}: {} directed links ({} switch pairs between the layers), more than the {} "
        "collsim supports; use fewer switches",
        switches, per_switch, num_links, half_switches * half_switches, kMaxLinksPerTopology));
  }
  std::vector<Link> links;
  links.reserve(num_links);
  auto both = [&](NodeId a, NodeId b) {
    links.push_back(Link{a, b, bw, lat, 0});
    links.push_back(Link{b, a, bw, lat, 0});
  };
  for (NodeId i = 0; i < n; ++i) both(i, n + i / per_switch);
  const std::uint32_t half = switches / 2;
  // Each switch gives its other-layer peers as much bandwidth as its NPUs have (non-blocking, as
  // EFLOPS pairs NPU ports with inter-layer ports): P / (S/2) links' worth per switch pair, one
  // aggregated link each way.
  const core::Bandwidth up{bw.bytes_per_s * std::max(1u, per_switch / half)};
  for (std::uint32_t u = 0; u < half; ++u) {
    for (std::uint32_t d = half; d < switches; ++d) {
      links.push_back(Link{n + u, n + d, up, lat, 0});
      links.push_back(Link{n + d, n + u, up, lat, 0});
    }
  }
  Topology t = Topology::graph(fmt::format("bigraph:{}x{}", switches, per_switch), n, n + switches,
                               std::move(links));
  t.set_graph_routing(GraphRouting{&route_bigraph, switches, per_switch});
  return t;
}

TopologyForm bigraph_form() {
  return {.name = "bigraph",
          .syntax = "bigraph:SxP",
          .example = "bigraph:8x4",
          .description =
              "EFLOPS BiGraph: S switches (the first number; S/2 upper, S/2 lower, every upper "
              "linked to every lower) with P NPUs (the second number) on each, S x P NPUs",
          .source = "MultiTree Sec. V-A (its 32- and 64-node BiGraphs: bigraph:8x4, bigraph:16x4)",
          .args = FormArgs::Shape,
          .build = [](const CompactArgs& a, core::Bandwidth bw, core::Time lat) {
            if (a.sizes.size() != 2) {
              throw core::InputError(
                  "bigraph: write bigraph:SxP (S switches, P NPUs on each), e.g. bigraph:8x4");
            }
            return bigraph(a.sizes[0], a.sizes[1], bw, lat);
          }};
}

}  // namespace collsim::topology
