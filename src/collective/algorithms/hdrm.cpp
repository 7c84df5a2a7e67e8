// HDRM: halving-doubling with rank mapping on EFLOPS's BiGraph (Dong et al., HPCA'20; a
// baseline of MultiTree (ISCA'21) Sec. V). Rabenseifner's halving-doubling exchanges between
// ranks r and r XOR 2^k; HDRM places the ranks on the NPUs so that every such pair has one NPU
// on an upper switch and one on a lower switch (MultiTree Sec. II: "each communication pair
// always involves one node connected with an upper switch and one node connected with a lower
// switch"), and so that no inter-layer link carries more pairs in a step than it has NPU links'
// worth of bandwidth: contention-free at every step.
//
// The layer: the parity of r's set bits (flipping one bit flips it, so every pair crosses the
// layers). The switch within the layer: a deterministic local search (fixed-seed swaps of two
// ranks of one layer, kept when the overload does not grow, and now and then when it does) for
// an assignment with no overloaded switch pair in any step, starting from round-robin. EFLOPS's
// own construction is not in the paper; collsim's search finds a contention-free mapping on the
// paper's 4x8 and 4x16 BiGraphs and on 8x4 (tested), and otherwise keeps the least overloaded
// one it found (on 8x8 some steps stay contended).
#include "collective/algorithms/hdrm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdio>

#include "collective/algorithm.hpp"
#include "core/error.hpp"

namespace collsim::collective {
namespace {

struct BiGraphShape {
  std::uint32_t switches = 0, per_switch = 0;
};

bool shape_of(const topology::Topology& topo, BiGraphShape& s) {
  return std::sscanf(topo.name().c_str(), "bigraph:%ux%u", &s.switches, &s.per_switch) == 2 &&
         s.switches >= 2 && s.per_switch >= 1;
}

std::uint64_t splitmix(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Pairs beyond the capacity, summed over switch pairs and steps.
std::uint64_t overload(const std::vector<std::uint32_t>& sw, std::uint32_t bits, std::uint32_t half,
                       std::uint32_t cap, std::vector<std::uint32_t>& load) {
  const auto n = static_cast<std::uint32_t>(sw.size());
  std::uint64_t over = 0;
  for (std::uint32_t k = 0; k < bits; ++k) {
    std::fill(load.begin(), load.end(), 0);
    for (std::uint32_t r = 0; r < n; ++r) {
      if (std::popcount(r) % 2 != 0) continue;  // each pair once, from its upper rank
      if (++load[sw[r] * half + sw[r ^ (1u << k)]] > cap) ++over;
    }
  }
  return over;
}

}  // namespace

HdrmMapping hdrm_mapping(std::uint32_t switches, std::uint32_t per_switch) {
  const std::uint32_t n = switches * per_switch, half = switches / 2;
  if (switches < 2 || switches % 2 != 0 || n < 2 || (n & (n - 1)) != 0) {
    throw core::InputError(fmt::format(
        "algorithm hdrm: needs a BiGraph of two layers and a power-of-two NPU count, got {} "
        "switches of {}",
        switches, per_switch));
  }
  const auto bits = static_cast<std::uint32_t>(std::countr_zero(n));
  const std::uint32_t cap = std::max(1u, per_switch / half);
  // Switch within the layer, round-robin to start.
  std::vector<std::uint32_t> sw(n);
  std::vector<std::uint32_t> layer_ranks[2];
  for (std::uint32_t r = 0; r < n; ++r) {
    auto& l = layer_ranks[std::popcount(r) % 2];
    sw[r] = static_cast<std::uint32_t>(l.size()) % half;
    l.push_back(r);
  }
  std::vector<std::uint32_t> load(std::size_t{half} * half);
  std::uint64_t cur = overload(sw, bits, half, cap, load);
  std::vector<std::uint32_t> best = sw;
  std::uint64_t best_overload = cur;
  std::uint64_t seed = 0x48444d52;  // "HDRM"
  const std::uint64_t budget =
      std::max<std::uint64_t>(1000, 100'000'000 / (std::uint64_t{n} * bits));
  for (std::uint64_t it = 0; it < budget && cur > 0; ++it) {
    const auto& l = layer_ranks[splitmix(seed) % 2];
    const std::uint32_t a = l[splitmix(seed) % l.size()], b = l[splitmix(seed) % l.size()];
    if (sw[a] == sw[b]) continue;
    std::swap(sw[a], sw[b]);
    const std::uint64_t c = overload(sw, bits, half, cap, load);
    // Downhill or level moves, and one uphill move in 128 to leave local minima.
    if (c <= cur || splitmix(seed) % 128 == 0) {
      cur = c;
      if (c < best_overload) {
        best_overload = c;
        best = sw;
      }
    } else {
      std::swap(sw[a], sw[b]);
    }
  }
  sw = best;
  cur = best_overload;
  HdrmMapping m;
  m.overloaded_pairs = cur;
  // NPU i is on switch i / P (upper switches first): give each switch's ranks its NPUs in order.
  m.npu.resize(n);
  std::vector<std::uint32_t> next(switches, 0);
  for (std::uint32_t r = 0; r < n; ++r) {
    const std::uint32_t s = (std::popcount(r) % 2 == 0 ? 0 : half) + sw[r];
    m.npu[r] = s * per_switch + next[s]++;
  }
  return m;
}

namespace {

std::string needs_bigraph(const topology::Topology& topo) {
  BiGraphShape s;
  return shape_of(topo, s) ? "" : fmt::format("needs a BiGraph (bigraph:SxP), got {}", topo.name());
}

Program build(const BuildRequest& req) {
  if (!req.communicator.is_identity(req.topology.num_npus())) {
    throw core::InputError("algorithm hdrm: maps the ranks itself; use group all");
  }
  BiGraphShape s;
  if (!shape_of(req.topology, s))
    throw core::InputError("algorithm hdrm: " + needs_bigraph(req.topology));
  const HdrmMapping m = hdrm_mapping(s.switches, s.per_switch);
  Communicator mapped{m.npu, "hdrm"};
  const BuildRequest hd{req.topology, mapped, req.collective, req.size, req.chunks, {}};
  Program p = find_algorithm("halving-doubling", "hdrm").build(hd);
  p.algorithm = "hdrm";
  p.npus = m.npu;
  return p;
}

// Halving-doubling on a mapping of the ranks: 2 N log2 N sends, stored.
ProgramSize size(const BuildRequest& req) {
  const std::uint64_t n = req.ranks(), sends = 2 * n * ceil_log2(n);
  return {sends, 2 * sends};
}

}  // namespace

AlgorithmInfo hdrm_info() {
  AlgorithmInfo a{
      "hdrm",
      "halving-doubling with EFLOPS rank mapping: every pair spans the BiGraph's two layers, no "
      "inter-layer link overloaded in a step (BiGraph only)",
      "EFLOPS (HPCA'20); MultiTree (ISCA'21) Sec. V baseline",
      {Collective::AllReduce},
      {},
      &build,
      /*staged=*/false,
      /*in_all=*/nullptr,
      &needs_bigraph};
  a.size = &size;
  return a;
}

}  // namespace collsim::collective
