#include "topology/dim_kind.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace collsim::topology {
namespace {

using core::Bandwidth;

// Shared entries of the table.
std::uint32_t one_link(std::uint32_t) { return 1; }
std::string any_count(std::uint32_t, std::uint32_t) { return {}; }
Bandwidth all_links_each_way(Bandwidth bw, std::uint32_t, std::uint32_t k) {
  return Bandwidth{bw.bytes_per_s * k};
}
std::uint32_t one_hop(std::uint32_t, std::uint32_t, std::uint32_t) { return 1; }
std::uint32_t forward_steps(std::uint32_t n, std::uint32_t s, std::uint32_t t) {
  return (t + n - s) % n;
}

constexpr std::string_view kSwitchAliases[] = {"switch"};

constexpr std::array kTable = {
    DimKindTraits{
        .kind = DimKind::Ring,
        .name = "ring",
        .aliases = {},
        .description =
            "bidirectional ring: links to both neighbours, the last NPU next to the "
            "first; routes take the shorter way (a tie at half way: even sources +1, odd -1)",
        .aggregation = "links_per_npu must be even: half go each way (natural 2)",
        .source = "Themis Table 2 (Ring dimension)",
        .wiring = Wiring::Neighbours,
        .forward = true,
        .backward = true,
        .wraps = true,
        .natural_links_per_npu = [](std::uint32_t) -> std::uint32_t { return 2; },
        .check_links_per_npu = [](std::uint32_t, std::uint32_t k) -> std::string {
          if (k % 2 == 0) return {};
          return fmt::format("must be even for a ring (half go each way), got {}", k);
        },
        // Also for size 2, where the +1 and -1 neighbours coincide and there is one link each
        // way: that link carries links_per_npu/2 physical links.
        .directed_bandwidth = [](Bandwidth bw, std::uint32_t,
                                 std::uint32_t k) { return Bandwidth{bw.bytes_per_s * k / 2.0}; },
        .directed_links = [](std::uint32_t n, std::uint64_t npus, std::uint32_t) -> std::uint64_t {
          return n == 2 ? npus : 2 * npus;
        },
        .hops =
            [](std::uint32_t n, std::uint32_t s, std::uint32_t t) {
              const std::uint32_t fwd = forward_steps(n, s, t);
              return std::min(fwd, n - fwd);
            },
        .diameter = [](std::uint32_t n) { return n / 2; },
        .closed_walk = true,
        .dependency_cycle_from = 3,
        // Table 1's ring both ways (half of every chunk each way), so that a stage uses the
        // dimension's whole bandwidth as the Latency Model assumes; all-to-all: ACE Table 5's
        // bidirectional ring, step s to both ranks at distance s, routed the short way.
        .hierarchical = {.split = "ring:directions=2",
                         .all_gather = "ring:directions=2",
                         .all_reduce = "ring:directions=2",
                         .all_to_all = "ring:directions=2"},
    },
    DimKindTraits{
        .kind = DimKind::UniRing,
        .name = "uring",
        .aliases = {},
        .description = "unidirectional ring: a link to the +1 neighbour only, the last NPU to the "
                       "first",
        .aggregation = "all links_per_npu go the one way (natural 1)",
        .source = "ring all-reduce's ring (MultiTree Sec. III-A; switch-fc-hierarchical-torus "
                  "Sec. III)",
        .wiring = Wiring::Neighbours,
        .forward = true,
        .backward = false,
        .wraps = true,
        .natural_links_per_npu = one_link,
        .check_links_per_npu = any_count,
        .directed_bandwidth = all_links_each_way,
        .directed_links = [](std::uint32_t, std::uint64_t npus, std::uint32_t) { return npus; },
        .hops = forward_steps,
        .diameter = [](std::uint32_t n) { return n - 1; },
        .closed_walk = false,
        .dependency_cycle_from = 2,
        .hierarchical =
            {.split = "ring", .all_gather = "ring", .all_reduce = "ring", .all_to_all = "ring"},
    },
    DimKindTraits{
        .kind = DimKind::Line,
        .name = "line",
        .aliases = {},
        .description = "a mesh row: a bidirectional chain with no wrap-around",
        .aggregation = "all links_per_npu go each way (natural 1)",
        .source = "MultiTree Sec. VI-A (mesh)",
        .wiring = Wiring::Neighbours,
        .forward = true,
        .backward = true,
        .wraps = false,
        .natural_links_per_npu = one_link,
        .check_links_per_npu = any_count,
        .directed_bandwidth = all_links_each_way,
        .directed_links = [](std::uint32_t n, std::uint64_t npus, std::uint32_t) -> std::uint64_t {
          return 2 * std::uint64_t{n - 1} * (npus / n);
        },
        .hops = [](std::uint32_t, std::uint32_t s,
                   std::uint32_t t) { return t > s ? t - s : s - t; },
        .diameter = [](std::uint32_t n) { return n - 1; },
        .closed_walk = false,
        .dependency_cycle_from = 0,
        .hierarchical =
            {.split = "ring", .all_gather = "ring", .all_reduce = "ring", .all_to_all = "ring"},
    },
    DimKindTraits{
        .kind = DimKind::FullyConnected,
        .name = "fc",
        .aliases = {},
        .description = "fully connected: a direct link between every ordered pair of the group",
        .aggregation = "links_per_npu >= size - 1, an equal share per peer (natural size - 1)",
        .source = "Themis Table 2 (FullyConnected dimension)",
        .wiring = Wiring::AllPairs,
        .natural_links_per_npu = [](std::uint32_t n) { return n - 1; },
        .check_links_per_npu = [](std::uint32_t n, std::uint32_t k) -> std::string {
          if (k >= n - 1) return {};
          return fmt::format("must be >= size - 1 = {} for fully connected (one per peer), got {}",
                             n - 1, k);
        },
        .directed_bandwidth =
            [](Bandwidth bw, std::uint32_t n, std::uint32_t k) {
              return Bandwidth{bw.bytes_per_s * k / static_cast<double>(n - 1)};
            },
        .directed_links = [](std::uint32_t n, std::uint64_t npus,
                             std::uint32_t) { return npus * std::uint64_t{n - 1}; },
        .hops = one_hop,
        .diameter = [](std::uint32_t) -> std::uint32_t { return 1; },
        .closed_walk = true,
        .dependency_cycle_from = 0,
        .hierarchical = {.split = "direct",
                         .all_gather = "direct",
                         .all_reduce = "direct",
                         .all_to_all = "direct"},
    },
    DimKindTraits{
        .kind = DimKind::Switch,
        .name = "sw",
        .aliases = kSwitchAliases,
        .description = "one switch per group: NPU -> switch -> NPU (two links per route)",
        .aggregation = "all links_per_npu go up and come down (natural 1)",
        .source = "Themis Table 2 (Switch dimension)",
        .wiring = Wiring::Star,
        .natural_links_per_npu = one_link,
        .check_links_per_npu = any_count,
        .directed_bandwidth = all_links_each_way,
        .directed_links = [](std::uint32_t, std::uint64_t npus, std::uint32_t) { return 2 * npus; },
        .hops = [](std::uint32_t, std::uint32_t, std::uint32_t) -> std::uint32_t { return 2; },
        .diameter = [](std::uint32_t) -> std::uint32_t { return 2; },
        .closed_walk = true,
        .dependency_cycle_from = 0,
        // Table 1's halving-doubling; ACE Table 5: direct all-to-all through the switch.
        .hierarchical = {.split = "halving-doubling",
                         .all_gather = "halving-doubling",
                         .all_reduce = "halving-doubling",
                         .all_to_all = "direct"},
    },
    DimKindTraits{
        .kind = DimKind::LocalSwitches,
        .name = "lsw",
        .aliases = {},
        .description =
            "k local switches per group (k = links_per_npu), each NPU linked to every one: "
            "NPU -> one switch -> NPU, the switch by the local-switch rule (distance or source)",
        .aggregation =
            "links_per_npu = k switches, 1 <= k <= size, one link of `bandwidth` to each "
            "(natural 1)",
        .source = "switch-fc-hierarchical-torus Sec. III-A (switch-based fully connected package)",
        .wiring = Wiring::Stars,
        .natural_links_per_npu = one_link,
        .check_links_per_npu = [](std::uint32_t n, std::uint32_t k) -> std::string {
          if (k <= n) return {};
          return fmt::format("must be <= size = {} (at most one local switch per NPU), got {}", n,
                             k);
        },
        // Each switch has its own link: a message through one switch gets one link's bandwidth.
        .directed_bandwidth = [](Bandwidth bw, std::uint32_t, std::uint32_t) { return bw; },
        .directed_links = [](std::uint32_t, std::uint64_t npus, std::uint32_t k) -> std::uint64_t {
          return 2 * npus * k;
        },
        .hops = [](std::uint32_t, std::uint32_t, std::uint32_t) -> std::uint32_t { return 2; },
        .diameter = [](std::uint32_t) -> std::uint32_t { return 2; },
        .closed_walk = true,
        .dependency_cycle_from = 0,
        // The package algorithm for a package's all-gather and whole all-reduce, direct for its
        // reduce-scatter (and an all-reduce's RS and AG stages) and all-to-all.
        .hierarchical = {.split = "direct",
                         .all_gather = "package-doubling",
                         .all_reduce = "package-doubling",
                         .all_to_all = "direct"},
    },
};

// traits() indexes the table by DimKind.
constexpr bool table_in_enum_order() {
  for (std::size_t i = 0; i < kTable.size(); ++i) {
    if (static_cast<std::size_t>(kTable[i].kind) != i) return false;
  }
  return true;
}
static_assert(table_in_enum_order(), "kTable must list the kinds in DimKind order");

}  // namespace

const core::Registry<DimKindTraits>& dim_kinds() {
  static const core::Registry<DimKindTraits> all("dimension kind", {kTable.begin(), kTable.end()});
  return all;
}

const DimKindTraits& traits(DimKind k) { return dim_kinds()[static_cast<std::size_t>(k)]; }

const DimKindTraits* find_dim_kind(std::string_view token) { return dim_kinds().find(token); }

std::string dim_kind_names() { return dim_kinds().names(); }

const char* to_string(DimKind k) { return traits(k).name.data(); }

}  // namespace collsim::topology
