#pragma once
// WRHT, the wavelength-reused hierarchical tree all-reduce for optical WDM rings (WRHT (PPoPP'23)
// Sec. 2), as a plan: how many steps it takes and how many wavelengths each step needs.
//
// N nodes along the ring are cut into groups of m consecutive nodes; the middle node of each
// group (index floor(len/2)) is its representative and receives the whole buffer from every
// member at once, floor(m/2) lightpaths on each side sharing a waveguide, so floor(m/2)
// wavelengths. Repeated on the representatives, L = ceil(log_m N) levels would leave one node;
// after L - 1 levels m* = ceil(N / m^(L-1)) representatives remain, and if an all-to-all among
// them fits, ceil(m*^2 / 8) wavelengths (Liang & Shen 2006, the poster's ref. 9), they exchange
// and reduce in one step instead of two. The broadcast stage mirrors the reduce stage. Steps:
// 2L - 1 with the all-to-all, else 2L.
#include <cstdint>

namespace collsim::collective {

struct WrhtPlan {
  std::uint32_t m = 0;                  ///< group size
  std::uint32_t levels = 0;             ///< L = ceil(log_m N)
  std::uint32_t top_nodes = 0;          ///< m* = ceil(N / m^(L-1))
  bool all_to_all = false;              ///< the top step is an all-to-all among the m* nodes
  std::uint32_t steps = 0;              ///< 2L - 1 or 2L
  std::uint32_t group_wavelengths = 0;  ///< floor(m/2): a reduce or broadcast step
  std::uint32_t top_wavelengths = 0;    ///< ceil(m*^2 / 8) with the all-to-all, else floor(m*/2)
  std::uint32_t wavelengths() const {
    return group_wavelengths > top_wavelengths ? group_wavelengths : top_wavelengths;
  }
};

/// The plan for N >= 2 nodes, group size 2 <= m, and w >= 1 wavelengths per waveguide (which
/// decides whether the top step is an all-to-all, as do `receivers` > 0: a node of the
/// all-to-all sinks m* - 1 lightpaths at once). m > N acts as m = N.
WrhtPlan wrht_plan(std::uint32_t n, std::uint32_t m, std::uint32_t w, std::uint32_t receivers = 0);

/// The default group size: the one with the fewest steps among m = 2 .. min(N, 2w + 1) (a group's
/// floor(m/2) lightpaths per side must fit in w) and, with `receivers` > 0, m <= receivers + 1
/// (a representative sinks m - 1 lightpaths at once); the smallest such m on a tie (fewer
/// wavelengths, shorter arcs).
std::uint32_t wrht_default_m(std::uint32_t n, std::uint32_t w, std::uint32_t receivers = 0);

/// Striping (collsim's option `wrht:stripe=1`, not in the poster): a step needs only
/// plan.wavelengths() of the w wavelengths, so each transfer can be split into
/// floor(w / plan.wavelengths()) (>= 1) parallel lightpaths of a slice each.
std::uint32_t wrht_stripes(const WrhtPlan& plan, std::uint32_t w);

/// The group size for striping: the fewest steps per stripe (steps / wrht_stripes, the
/// bandwidth term of the time) among m = 2 .. min(N, 2w + 1), the smallest such m on a tie.
std::uint32_t wrht_striped_m(std::uint32_t n, std::uint32_t w, std::uint32_t receivers = 0);

}  // namespace collsim::collective
