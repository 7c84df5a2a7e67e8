// 2D-Ring all-reduce (Ying et al. 2018, the baseline of MultiTree (ISCA'21) Sec. V): on a 2D
// torus or mesh of kx x ky NPUs, a ring reduce-scatter along every X ring (row), a ring
// all-reduce of each NPU's 1/kx block along every Y ring (column), and a ring all-gather along
// the rows. Rows run at once, columns run at once; on a mesh a ring's closing message is routed
// back along the line. Time without contention: 2 (kx - 1) steps of S / kx and 2 (ky - 1) steps
// of S / (kx ky), each a hop's latency plus its block over the link bandwidth. With orders = 2
// (the default) half the data goes X-first and the other half Y-first, concurrently on two
// streams, so that X and Y links both carry traffic throughout ("2D-ring utilizes all the
// links", MultiTree Sec. II). With directions = 2 each order's data is split again, half on rings
// run one way and half on the same rings run the other way, on a stream of its own: with
// orders = 2 four chain flows per NPU, bidirectional in both dimensions, the 2D-Ring of the
// MultiTree authors' simulator (its ring2d schedule), which keeps all four links of a torus NPU
// busy.
#include <fmt/format.h>

#include <algorithm>

#include "collective/algorithm.hpp"
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

void ring_steps(Program& p, const std::vector<RingPhase>& rings, bool reduce,
                std::uint32_t stream) {
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
    add_step(p, step, reduce, stream);
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
  const auto orders = static_cast<std::uint32_t>(req.params.at("orders"));
  const auto dirs = static_cast<std::uint32_t>(req.params.at("directions"));
  const std::uint32_t flows = orders * dirs;
  // Every chunk is `flows` sub-chunks, one per stream: stream s goes X-first if s / dirs == 0
  // (else Y-first), and round its rings backwards if s % dirs == 1.
  Program p = make_program("ring-2d", req.collective, n, req.size, req.chunks * flows);
  p.streams = flows;
  p.ops.assign(std::size_t{n} * flows, {});
  for (std::uint32_t c = 0; c < req.chunks * flows; ++c) {
    const std::uint32_t stream = c % flows;
    const bool x_first = stream / dirs == 0;
    const bool backwards = stream % dirs == 1;
    // The first phase's rings run along dimension a (size ka), the second's along b.
    const std::uint32_t ka = x_first ? kx : ky, kb = x_first ? ky : kx;
    const auto node = [&](std::uint32_t ia, std::uint32_t ib) {
      return x_first ? ib * kx + ia : ia * kx + ib;
    };
    // Position i of a ring of k: coordinate i, or k - 1 - i on backward rings.
    const auto at = [&](std::uint32_t i, std::uint32_t k) { return backwards ? k - 1 - i : i; };
    // First rings: block j is pieces [j kb, (j+1) kb) of the chunk.
    std::vector<RingPhase> first;
    for (std::uint32_t ib = 0; ib < kb; ++ib) {
      RingPhase r{{}, c * n, kb};
      for (std::uint32_t i = 0; i < ka; ++i) r.group.push_back(node(at(i, ka), ib));
      first.push_back(std::move(r));
    }
    // Second rings: after the first reduce-scatter position i holds block (i + 1) mod ka, so
    // the NPU at coordinate ia holds block (ia + 1) mod ka, or (ka - ia) mod ka backwards.
    std::vector<RingPhase> second;
    for (std::uint32_t ia = 0; ia < ka; ++ia) {
      const std::uint32_t held = backwards ? (ka - ia) % ka : (ia + 1) % ka;
      RingPhase r{{}, c * n + held * kb, 1};
      for (std::uint32_t i = 0; i < kb; ++i) r.group.push_back(node(ia, at(i, kb)));
      second.push_back(std::move(r));
    }
    ring_steps(p, first, true, stream);
    ring_steps(p, second, true, stream);
    ring_steps(p, second, false, stream);
    ring_steps(p, first, false, stream);
  }
  return p;
}

// Per order, an all-reduce over the rings of each of the two dimensions: 2 N ((X - 1) + (Y - 1))
// sends, stored.
ProgramSize size(const BuildRequest& req) {
  const std::uint64_t n = req.ranks();
  const auto& dims = req.topology.dimensions();
  const std::uint64_t ring =
      dims.size() >= 2 ? std::uint64_t{dims[0].spec.size} + dims[1].spec.size : 2 * n;
  const auto flows = static_cast<std::uint64_t>(req.params.at("orders")) *
                     static_cast<std::uint64_t>(req.params.at("directions"));
  const std::uint64_t sends = flows * 2 * n * ring;
  return {sends, 2 * sends};
}

}  // namespace

AlgorithmInfo ring_2d_info() {
  AlgorithmInfo a{
      "ring-2d",
      "2D-Ring: ring reduce-scatter along X, ring all-reduce along Y, ring all-gather along X "
      "(2D torus or mesh)",
      "Ying et al. 2018; MultiTree (ISCA'21) Sec. V baseline",
      {Collective::AllReduce},
      {count_param("orders", 2, 1, 2,
                   "2: half the data X-first and half Y-first at once, so both dimensions' links "
                   "work (Ying "
                   "et al.); 1: X-first only"),
       count_param("directions", 1, 1, 2,
                   "2: half of each order's data on rings run the other way (with orders=2 four "
                   "chain flows per NPU, bidirectional in both dimensions: the MultiTree "
                   "authors' 2D-Ring); 1: one way")},
      &build,
      /*staged=*/false,
      /*in_all=*/nullptr,
      &needs_grid};
  a.size = &size;
  return a;
}

}  // namespace collsim::collective
