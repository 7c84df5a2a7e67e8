// Ring collectives over a logical ring that follows a Hamiltonian cycle of the topology
// (Topology::ring_order), so each step is one hop where such a cycle exists.
//   all-reduce = reduce-scatter (N-1 steps) + all-gather (N-1 steps), each step moving S/N bytes:
//   T = 2(N-1)(alpha + S/(N B)) on a ring (Patarasuk & Yuan; Themis Table 1 "Ring").
//   all-to-all: N-1 steps, step s sends to the rank s positions ahead on the ring.
// directions=2 splits every chunk in halves that go round the ring in opposite directions
// (a bidirectional ring's two link directions each carry half the data).
#include <fmt/format.h>

#include "collective/algorithm.hpp"
#include "collective/algorithms/algorithms.hpp"
#include "core/error.hpp"

namespace collsim::collective {
namespace {

// Reduce-scatter and/or all-gather of `lanes` independent rings. Lane v uses order `orders[v % 2]`
// and pieces [v*N, (v+1)*N); logical block j of a lane is the piece owned by rank order[j-1], so
// position k ends the reduce-scatter holding its own rank's piece (collective.hpp convention).
void ring_phases(Program& p, const std::vector<std::vector<Rank>>& orders, std::uint32_t lanes,
                 bool reduce_scatter, bool all_gather) {
  const std::uint32_t n = p.num_ranks;
  auto piece = [&](std::uint32_t lane, std::uint32_t block) {
    const auto& o = orders[lane % orders.size()];
    return lane * n + o[(block + n - 1) % n];
  };
  std::vector<Transfer> step;
  step.reserve(static_cast<std::size_t>(n) * lanes);
  for (int phase = 0; phase < 2; ++phase) {
    if ((phase == 0 && !reduce_scatter) || (phase == 1 && !all_gather)) continue;
    for (std::uint32_t s = 0; s + 1 < n; ++s) {
      step.clear();
      for (std::uint32_t lane = 0; lane < lanes; ++lane) {
        const auto& o = orders[lane % orders.size()];
        for (std::uint32_t k = 0; k < n; ++k) {
          // Reduce-scatter sends block k-s; all-gather sends block k+1-s (its finished block).
          const std::uint32_t block = (k + n - s + (phase == 1 ? 1 : 0)) % n;
          step.push_back(Transfer{o[k], o[(k + 1) % n], piece(lane, block), 1});
        }
      }
      add_step(p, step, phase == 0);
    }
  }
}

void ring_all_to_all(Program& p, const std::vector<Rank>& o, std::uint32_t chunks) {
  const std::uint32_t n = p.num_ranks;
  std::vector<Transfer> step;
  for (std::uint32_t s = 1; s < n; ++s) {
    step.clear();
    for (std::uint32_t c = 0; c < chunks; ++c) {
      for (std::uint32_t k = 0; k < n; ++k) {
        const Rank src = o[k], dst = o[(k + s) % n];
        step.push_back(Transfer{src, dst, (c * n + src) * n + dst, 1});
      }
    }
    add_step(p, step, false);
  }
}

Program build(const BuildRequest& req) {
  const topology::Topology& t = req.topology;
  const std::uint32_t n = t.num_npus();
  const auto directions = static_cast<std::uint32_t>(req.params.at("directions"));
  std::vector<std::vector<Rank>> orders{t.ring_order()};
  if (directions == 2) {
    for (std::uint32_t k = 0; k < n; ++k) {
      const Rank a = t.ring_order()[k], b = t.ring_order()[(k + 1) % n];
      if (t.hops(b, a) != t.hops(a, b)) {
        throw core::InputError(fmt::format(
            "algorithm ring:directions=2 needs links both ways round the ring; {} is "
            "unidirectional (rank {} -> {} takes {} hops)",
            t.name(), b, a, t.hops(b, a)));
      }
    }
    orders.emplace_back(orders[0].rbegin(), orders[0].rend());
  }
  if (req.collective == Collective::AllToAll) {
    Program p = make_program("ring", req.collective, n, req.size, req.chunks);
    ring_all_to_all(p, orders[0], req.chunks);
    return p;
  }
  // Each chunk becomes `directions` lanes of N pieces.
  Program p = make_program("ring", req.collective, n, req.size, req.chunks * directions);
  p.num_chunks = req.chunks;
  const bool rs = req.collective != Collective::AllGather;
  const bool ag = req.collective != Collective::ReduceScatter;
  ring_phases(p, orders, req.chunks * directions, rs, ag);
  return p;
}

}  // namespace

AlgorithmInfo ring_info() {
  return AlgorithmInfo{
      "ring",
      "Ring reduce-scatter/all-gather over a Hamiltonian cycle of the topology (snake order on "
      "tori and even meshes); all-to-all in N-1 steps, step s to the rank s ahead",
      "Patarasuk & Yuan 2009; Themis (ISCA'22) Table 1; MultiTree (ISCA'21) baseline RING",
      {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather,
       Collective::AllToAll},
      {ParamSpec{"directions", 1, 1, 2,
                 "1: one direction; 2: half of every chunk each way round a bidirectional ring "
                 "(all-reduce, reduce-scatter, all-gather)"}},
      &build};
}

}  // namespace collsim::collective
