// The k-ary, L-level fat tree (k-ary L-tree) of MultiTree (ISCA'21) Sec. V-A: k^L NPUs on the
// leaves, L levels of k^(L-1) switches with k links down and k up (the top level only down).
// Switch w of level l (w written in base k with L-1 digits) links to the switches of level l+1
// whose number differs from w in digit l only; NPU i hangs off leaf switch i / k. Routing is the
// general graph's shortest path with ties toward the lower link id: up to a nearest common
// ancestor and down, always the same one for a pair (deterministic NCA routing).
//   fattree:8x2  the paper's 64-NPU 8-ary 2-level tree (8 leaves, each linked to all 8 spines)
//   fattree:4x2  16 NPUs (the DGX-2-sized network of the paper's Fig. 9)
// Oversubscription per level (collsim's option, docs/fabrics.md): `fattree:KxL:oversub=o1,...`
// gives the links between level l and level l+1 (both directions) 1/o_l of the NPU link's
// bandwidth, so a level-l switch's k up-links carry 1/o_l of what its k down-links do (a tapered
// fat tree: the aggregate of the fewer full-rate up-links an oversubscribed switch has). One value
// applies to every level; L-1 values give each level its own, the leaf level first.
//   fattree:4x3:oversub=2,1  leaves 2:1 oversubscribed, the upper level non-blocking
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "topology/builders.hpp"
#include "topology/forms.hpp"

namespace collsim::topology {
namespace {

// d-mod-k nearest-common-ancestor routing: up from level j to the switch whose digit j is the
// destination's digit j (so traffic to different NPUs of a leaf spreads over the up-links), until
// the level from which source and destination leaves agree on every higher digit; then down,
// setting each digit to the destination leaf's.
void route_nca(const Topology& t, std::uint32_t k, std::uint32_t levels, NodeId src, NodeId dst,
               std::vector<LinkId>& out) {
  const NodeId n = t.num_npus();
  const std::uint32_t per_level = n / k;
  auto sw = [&](std::uint32_t l, std::uint32_t w) { return n + l * per_level + w; };
  const std::uint32_t ws = src / k, wd = dst / k;
  std::uint32_t top = 0, place = 1;  // lowest level whose higher digits agree
  for (std::uint32_t l = 0; l + 1 < levels; ++l, place *= k) {
    if (ws / place != wd / place) top = l + 1;
  }
  std::uint32_t w = ws;
  out.push_back(t.link_between(src, sw(0, w)));
  place = 1;
  std::vector<std::uint32_t> places;
  for (std::uint32_t l = 0; l < top; ++l, place *= k) {
    const std::uint32_t next = w - (w / place % k) * place + (dst / place % k) * place;
    out.push_back(t.link_between(sw(l, w), sw(l + 1, next)));
    w = next;
    places.push_back(place);
  }
  for (std::uint32_t l = top; l > 0; --l) {
    const std::uint32_t p = places[l - 1];
    const std::uint32_t next = w - (w / p % k) * p + (wd / p % k) * p;
    out.push_back(t.link_between(sw(l, w), sw(l - 1, next)));
    w = next;
  }
  out.push_back(t.link_between(sw(0, w), dst));
}

}  // namespace

Topology fat_tree(std::uint32_t k, std::uint32_t levels, core::Bandwidth bw, core::Time lat,
                  const std::vector<double>& oversub, const std::string& name) {
  constexpr std::uint64_t kMaxNpus = 1u << 20;
  std::uint64_t npus = 1;
  // Stop once past the limit: k^levels would wrap (2^64 is 0 in 64 bits).
  for (std::uint32_t l = 0; l < levels && npus <= kMaxNpus; ++l) npus *= k;
  if (k >= 2 && levels >= 1 && npus > kMaxNpus) {
    throw core::InputError(fmt::format(
        "fattree:{}x{}: k^levels = {}^{} NPUs is too large; at most {} NPUs", k, levels, k,
        levels, kMaxNpus));
  }
  const std::uint64_t per_level = k == 0 ? 0 : npus / k;
  if (k < 2 || levels < 1 || npus > kMaxNpus) {
    throw core::InputError(
        fmt::format("fattree: k >= 2, levels >= 1 and k^levels <= 1048576 NPUs, got k {} levels {}",
                    k, levels));
  }
  const auto n = static_cast<NodeId>(npus);
  auto sw = [&](std::uint64_t l, std::uint64_t w) {
    return static_cast<NodeId>(n + l * per_level + w);
  };
  std::vector<Link> links;
  auto both = [&](NodeId a, NodeId b) {
    links.push_back(Link{a, b, bw, lat, 0});
    links.push_back(Link{b, a, bw, lat, 0});
  };
  for (NodeId i = 0; i < n; ++i) both(i, sw(0, i / k));
  const std::string nm = name.empty() ? fmt::format("fattree:{}x{}", k, levels) : name;
  if (!oversub.empty() && oversub.size() != 1 && oversub.size() + 1 != levels) {
    throw core::InputError(fmt::format(
        "{}: oversub takes one value or one per level below the top ({}), got {}", nm,
        levels - 1, oversub.size()));
  }
  for (double o : oversub) {
    if (!(o >= 1.0) || !std::isfinite(o)) {
      throw core::InputError(
          fmt::format("{}: oversub values must be >= 1 (1 = non-blocking), got {}", nm, o));
    }
  }
  const core::Bandwidth npu_bw = bw;
  std::uint64_t digit = 1;  // k^l: the place of digit l
  for (std::uint32_t l = 0; l + 1 < levels; ++l, digit *= k) {
    const double o = oversub.empty() ? 1.0 : oversub[oversub.size() == 1 ? 0 : l];
    bw = core::Bandwidth{npu_bw.bytes_per_s / o};
    for (std::uint64_t w = 0; w < per_level; ++w) {
      const std::uint64_t base = w - (w / digit % k) * digit;
      for (std::uint64_t v = 0; v < k; ++v) both(sw(l, w), sw(l + 1, base + v * digit));
    }
  }
  Topology t =
      Topology::graph(nm, n,
                      static_cast<std::uint32_t>(npus + levels * per_level), std::move(links));
  t.set_graph_routing(GraphRouting{&route_nca, k, levels});
  return t;
}

TopologyForm fat_tree_form() {
  return {.name = "fattree",
          .syntax = "fattree:KxL",
          .example = "fattree:8x2",
          .description =
              "k-ary L-level fat tree: k^L NPUs on leaf switches, deterministic "
              "nearest-common-ancestor routing",
          .source = "MultiTree Sec. V-A (16-NPU and 64-NPU 8-ary 2-level fat trees)",
          .args = FormArgs::Shape,
          .options = "oversub",
          .option_help = "oversub=o or o1,o2,... (one per level below the top, the leaves "
                         "first; 1 = non-blocking, the default): links above level l carry 1/o_l "
                         "of the NPU link's bandwidth",
          .build = [](const CompactArgs& a, core::Bandwidth bw, core::Time lat) {
            if (a.sizes.size() != 2) {
              throw core::InputError("fattree: write fattree:KxL, e.g. fattree:8x2");
            }
            std::vector<double> oversub;
            std::string name = fmt::format("fattree:{}x{}", a.sizes[0], a.sizes[1]);
            if (const std::string* v = a.option("oversub")) {
              name += ":oversub=" + *v;
              for (std::size_t from = 0; from <= v->size();) {
                const std::size_t comma = std::min(v->find(',', from), v->size());
                CompactArgs one;  // each value read as option_number reads one
                one.spec = a.spec;
                one.field = a.field;
                one.options.push_back({"oversub", v->substr(from, comma - from)});
                oversub.push_back(one.option_number("oversub", 1.0));
                from = comma + 1;
              }
            }
            return fat_tree(a.sizes[0], a.sizes[1], bw, lat, oversub, name);
          }};
}

}  // namespace collsim::topology
