#pragma once
// The dragonfly of Kim, Dally, Scott and Abts, "Technology-Driven, Highly-Scalable Dragonfly
// Topology" (ISCA'08), and dragonfly+ (Shpiner et al., "Dragonfly+: Low Cost Topology for
// Scaling Datacenters", HiPINEB'17): groups of routers, each router with `terminals` NPUs, the
// routers of a group fully connected by local links (dragonfly+: a leaf/spine tree inside the
// group), `global` links between every pair of groups (docs/fabrics.md "dragonfly").
//
// Node ids: NPU (g A + r) P + t is terminal t of router r of group g; router (g, r) is node
// N + g A + r (N = G A P NPUs); dragonfly+ spines follow, spine (g, s) at N + G A + g S + s.
//
// Global links, the "consecutive" (absolute) arrangement of the ISCA'08 authors' BookSim
// dragonfly: group g numbers its c (G - 1) global ports k = c x (index of the other group among
// the G - 1 others, in id order) + copy; port k sits on router (dragonfly+: spine) k / h, with
// h = ceil(c (G - 1) / R) global ports per router (R routers, or S spines). Copy m of the link
// between groups g and o joins g's port for (o, m) to o's port for (g, m). Parallel links
// between one pair of routers are one link of their summed bandwidth.
//
// Routing (deterministic: the same message always takes the same path):
//   minimal  Kim et al. Sec. 4.2 MIN: local hop to the router holding the global link to the
//            destination group, the global hop, a local hop to the destination's router (at
//            most l-g-l); copy m of several global links from a hash of (source, destination).
//            Dragonfly+: leaf -> spine -> (global) -> spine -> leaf; inside a group
//            leaf -> spine (destination mod S) -> leaf.
//   valiant  Kim et al. Sec. 4.2 VAL: to an intermediate group (neither the source's nor the
//            destination's) picked by a hash of (source, destination, seed), then minimally to
//            the destination: at most l-g-l-g-l. Traffic inside a group, and any traffic when
//            there are fewer than 3 groups, routes minimally.
#include <cstdint>

#include "core/units.hpp"
#include "topology/topology.hpp"

namespace collsim::topology {

struct DragonflySpec {
  std::uint32_t groups = 2;     ///< G >= 2
  std::uint32_t routers = 2;    ///< A routers (dragonfly+: leaves) per group, >= 1
  std::uint32_t terminals = 1;  ///< P NPUs per router, >= 1
  std::uint32_t global = 1;     ///< c global links between every pair of groups, >= 1
  bool leaf_spine = false;      ///< dragonfly+: each group a leaf/spine tree
  std::uint32_t spines = 0;     ///< S spines per group (dragonfly+; 0: as many as leaves)
  bool valiant = false;         ///< Valiant routing instead of minimal
  std::uint32_t seed = 0;       ///< Valiant's intermediate-group hash seed
  core::Bandwidth terminal_bandwidth{16e9};  ///< NPU <-> router links, each direction
  core::Time terminal_latency{};
  core::Bandwidth local_bandwidth{16e9};  ///< router <-> router inside a group
  core::Time local_latency{};
  core::Bandwidth global_bandwidth{16e9};  ///< between groups, per link
  core::Time global_latency{};
};

/// Build a dragonfly. Name "dragonfly:GxAxP" followed by the options that differ from the
/// defaults. Throws core::InputError naming the field for counts out of range or a network with
/// more than 2^20 NPUs or 2^27 directed links.
Topology dragonfly(const DragonflySpec& spec);

/// The ids of router r of group g and of spine s of group g (dragonfly+) in `t`, a dragonfly
/// built above with `spec` (for tests and tools).
NodeId dragonfly_router(const DragonflySpec& spec, std::uint32_t g, std::uint32_t r);
NodeId dragonfly_spine(const DragonflySpec& spec, std::uint32_t g, std::uint32_t s);
/// The index of the router (dragonfly+: spine) of group g holding copy m of the global link to
/// group o (the arrangement above).
std::uint32_t dragonfly_port_owner(const DragonflySpec& spec, std::uint32_t g, std::uint32_t o,
                                   std::uint32_t m);
/// The intermediate group Valiant routing picks for src -> dst (only meaningful when the two
/// NPUs' groups differ and there are >= 3 groups).
std::uint32_t dragonfly_valiant_group(const DragonflySpec& spec, NodeId src, NodeId dst);

}  // namespace collsim::topology
