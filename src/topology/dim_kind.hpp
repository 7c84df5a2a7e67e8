#pragma once
// The dimension kinds of product topologies, one trait entry each (dim_kind.cpp): the name used
// in compact forms and scenarios, what the kind is, how its physical links aggregate, which
// links_per_npu it accepts, the links it builds and how far apart its NPUs are. Everything that
// names, parses, validates, counts or describes a kind reads this table.
// Adding a kind: a DimKind value, its entry in dim_kind.cpp, and its case in Topology::route().
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/registry.hpp"
#include "core/units.hpp"

namespace collsim::topology {

/// How the NPUs of one dimension are joined.
enum class DimKind {
  Ring,            ///< bidirectional ring; shortest direction, a tie by Topology::ring_tie()
  UniRing,         ///< unidirectional ring, +1 direction only
  Line,            ///< a mesh row: bidirectional chain with no wrap-around
  FullyConnected,  ///< a direct link between every ordered pair of the group
  Switch,          ///< one switch per group; NPU -> switch -> NPU
  /// k = links_per_npu local switches per group, every NPU linked to each (switch-fc-hierarchical-
  /// torus Sec. III-A); NPU -> one switch -> NPU, the switch by Topology::local_switch_rule()
  LocalSwitches,
};

/// Which links Topology::product builds for a dimension (and so which routing tables it fills).
enum class Wiring {
  Neighbours,  ///< links to the +1 and/or -1 neighbour in coordinate order (rings, lines)
  AllPairs,    ///< a direct link from every NPU of a group to every other
  Star,        ///< one switch per group, a link up to it and one down from it per NPU
  Stars,       ///< links_per_npu switches per group, a link up and one down per NPU and switch
};

/// The basic algorithm a hierarchical collective runs on each group of a dimension of one kind,
/// per stage, written as on the command line ("ring:directions=2"; collective/algorithm.hpp
/// parse_algorithm reads it, and tests check that each parses and implements its stage).
struct DefaultAlgorithms {
  std::string_view split;       ///< reduce-scatter stages, and an all-reduce's RS and AG stages
  std::string_view all_gather;  ///< an all-gather's stages
  std::string_view all_reduce;  ///< a whole all-reduce per dimension (per-dim-all-reduce)
  std::string_view all_to_all;  ///< an all-to-all's stages
};

struct DimKindTraits {
  DimKind kind = DimKind::Ring;
  std::string_view name = {};                      ///< token in compact forms and scenarios: "ring"
  std::span<const std::string_view> aliases = {};  ///< other accepted tokens ("switch" for sw)
  std::string_view description = {};               ///< for `collsim list`
  std::string_view aggregation = {};  ///< how links_per_npu physical links become directed links
  std::string_view source = {};       ///< paper and table the kind comes from
  Wiring wiring = Wiring::Neighbours;
  bool forward = false;   ///< Neighbours: a link to the +1 neighbour
  bool backward = false;  ///< Neighbours: a link to the -1 neighbour
  bool wraps = false;     ///< Neighbours: the last NPU is the first one's neighbour (a ring)
  /// Physical links per NPU when a spec says 0 (every directed link then has the link bandwidth).
  std::uint32_t (*natural_links_per_npu)(std::uint32_t size) = nullptr;
  /// Empty when `links_per_npu` (>= 1) suits a dimension of `size`, else the reason, e.g. "must
  /// be even for a ring (half go each way), got 3".
  std::string (*check_links_per_npu)(std::uint32_t size, std::uint32_t links_per_npu) = nullptr;
  /// Bandwidth of one aggregated directed link, from the bandwidth of one physical link.
  core::Bandwidth (*directed_bandwidth)(core::Bandwidth per_link, std::uint32_t size,
                                        std::uint32_t links_per_npu) = nullptr;
  /// Directed links the dimension adds to a product of `npus` NPUs.
  std::uint64_t (*directed_links)(std::uint32_t size, std::uint64_t npus,
                                  std::uint32_t links_per_npu) = nullptr;
  /// Hops of the route from coordinate `from` to `to` (from != to) inside the dimension.
  std::uint32_t (*hops)(std::uint32_t size, std::uint32_t from, std::uint32_t to) = nullptr;
  /// Largest hop count inside the dimension.
  std::uint32_t (*diameter)(std::uint32_t size) = nullptr;
  /// Walking the coordinates 0, 1, ..., size-1 and back to 0, in either direction, is one
  /// neighbour step each at every size (so a ring order can snake through the dimension).
  bool closed_walk = false;
  /// Smallest size from which the packet backend gives the dimension dateline VCs, because its
  /// wrap-around links can close a cycle of channel dependencies; 0: never.
  std::uint32_t dependency_cycle_from = 0;
  /// The hierarchical collective's default per stage (Themis Table 1 for reduce-scatter,
  /// all-gather and all-reduce; ACE Table 5 for all-to-all; switch-fc-hierarchical-torus
  /// Sec. III-B/C for local switches). `hierarchical:dimK=` overrides it.
  DefaultAlgorithms hierarchical = {};
};

/// Every dimension kind, in DimKind order.
const core::Registry<DimKindTraits>& dim_kinds();
const DimKindTraits& traits(DimKind k);
/// The kind whose name or alias is `token`, or nullptr.
const DimKindTraits* find_dim_kind(std::string_view token);
/// The kind names, comma-separated ("ring, uring, line, fc, sw"), for messages and help.
std::string dim_kind_names();
/// The kind's name: the token of the compact form, so names round-trip.
const char* to_string(DimKind k);

}  // namespace collsim::topology
