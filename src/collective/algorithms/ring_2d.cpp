// 2D-Ring all-reduce (Ying et al. 2018, the baseline of MultiTree (ISCA'21) Sec. V): on a 2D
// torus or mesh of kx x ky NPUs, a ring reduce-scatter along every X ring (row), a ring
// all-reduce of each NPU's 1/kx block along every Y ring (column), and a ring all-gather along
// the rows. Rows run at once, columns run at once; on a mesh a ring's closing message is routed
// back along the line. Time without contention: 2 (kx - 1) steps of S / kx and 2 (ky - 1) steps
// of S / (kx ky), each a hop's latency plus its block over the link bandwidth.
#include <fmt/format.h>

#include <algorithm>

#include "collective/algorithm.hpp"
#include "collective/algorithms/algorithms.hpp"
#include "core/error.hpp"

namespace collsim::collective {
namespace {

// A ring over `group` (ranks in ring order) moving blocks: block j is `count` pieces from
// base + j * count. Reduce-scatter step s: position i sends block (i - s) mod k to i + 1, which
// reduces it; after k - 1 steps position i holds block (i + 1) mod k. All-gather step s: i sends
// block (i + 1 - s) mod k.
struct RingPhase {
  std::vector<Rank> group;
  std::uint32_t base = 0;
  std::uint32_t count = 1;
};

void ring_steps(Program& p, const std::vector<RingPhase>& rings, bool reduce) {
  const auto k = static_cast<std::uint32_t>(rings.front().group.size());
  std::vector<Transfer> step;
  for (std::uint32_t s = 0; s + 1 < k; ++s) {
    step.clear();
    for (const RingPhase& r : rings) {
      for (std::uint32_t i = 0; i < k; ++i) {
        const std::uint32_t block = reduce ? (i + k - s % k) % k : (i + 1 + k - s % k) % k;
        step.push_back(
            Transfer{r.group[i], r.group[(i + 1) % k], r.base + block * r.count, r.count});
      }
    }
    add_step(p, step, reduce);
  }
}

std::string needs_grid(const topology::Topology& topo) {
  const auto& dims = topo.dimensions();
  const bool grid =
      dims.size() == 2 && std::all_of(dims.begin(), dims.end(), [](const auto& d) {
        return d.spec.kind == topology::DimKind::Ring || d.spec.kind == topology::DimKind::Line;
      });
  return grid ? "" : fmt::format("needs a 2D torus or mesh, got {}", topo.name());
}

Program build(const BuildRequest& req) {
  if (!req.communicator.is_identity(req.topology.num_npus())) {
    throw core::InputError("algorithm ring-2d: runs on the whole platform; use group all");
  }
  const auto& dims = req.topology.dimensions();
  const std::uint32_t kx = dims[0].spec.size, ky = dims[1].spec.size, n = kx * ky;
  Program p = make_program("ring-2d", req.collective, n, req.size, req.chunks);
  for (std::uint32_t c = 0; c < req.chunks; ++c) {
    // Rows: X-block j is pieces [j ky, (j+1) ky) of the chunk.
    std::vector<RingPhase> rows;
    for (std::uint32_t y = 0; y < ky; ++y) {
      RingPhase r{{}, c * n, ky};
      for (std::uint32_t x = 0; x < kx; ++x) r.group.push_back(y * kx + x);
      rows.push_back(std::move(r));
    }
    // Columns: column x holds X-block (x + 1) mod kx after the rows' reduce-scatter.
    std::vector<RingPhase> cols;
    for (std::uint32_t x = 0; x < kx; ++x) {
      RingPhase r{{}, c * n + ((x + 1) % kx) * ky, 1};
      for (std::uint32_t y = 0; y < ky; ++y) r.group.push_back(y * kx + x);
      cols.push_back(std::move(r));
    }
    ring_steps(p, rows, true);
    ring_steps(p, cols, true);
    ring_steps(p, cols, false);
    ring_steps(p, rows, false);
  }
  return p;
}

}  // namespace

AlgorithmInfo ring_2d_info() {
  return AlgorithmInfo{
      "ring-2d",
      "2D-Ring: ring reduce-scatter along X, ring all-reduce along Y, ring all-gather along X "
      "(2D torus or mesh)",
      "Ying et al. 2018; MultiTree (ISCA'21) Sec. V baseline",
      {Collective::AllReduce},
      {},
      &build,
      /*staged=*/false,
      /*optical=*/false,
      &needs_grid};
}

}  // namespace collsim::collective
