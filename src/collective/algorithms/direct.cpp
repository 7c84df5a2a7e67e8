// Direct collectives: every rank talks to every other rank in one step.
//   reduce-scatter: each rank sends every peer that peer's 1/N slice, which the peer reduces;
//   all-gather: each rank sends its slice to every peer; all-reduce = both;
//   all-to-all: each rank sends every peer its S/N block.
// On a fully connected topology T(all-reduce) = 2(alpha + S/(N B)) (Themis Table 1 "Direct").
// Rank r visits its peers in the order r+1, r+2, ... so that no rank is everyone's first target.
#include "collective/algorithm.hpp"
#include "collective/algorithms/algorithms.hpp"

namespace collsim::collective {
namespace {

Program build(const BuildRequest& req) {
  const std::uint32_t n = req.ranks();
  Program p = make_program("direct", req.collective, n, req.size, req.chunks);
  std::vector<Transfer> step;
  auto phase = [&](bool reduce) {
    step.clear();
    for (std::uint32_t c = 0; c < req.chunks; ++c) {
      for (Rank r = 0; r < n; ++r) {
        for (std::uint32_t d = 1; d < n; ++d) {
          const Rank peer = (r + d) % n;
          const std::uint32_t piece = req.collective == Collective::AllToAll
                                          ? (c * n + r) * n + peer
                                      : reduce ? c * n + peer
                                               : c * n + r;
          step.push_back(Transfer{r, peer, piece, 1});
        }
      }
    }
    add_step(p, step, reduce);
  };
  switch (req.collective) {
    case Collective::AllReduce:
      phase(true);
      phase(false);
      break;
    case Collective::ReduceScatter:
      phase(true);
      break;
    case Collective::AllGather:
    case Collective::AllToAll:
      phase(false);
      break;
  }
  return p;
}

}  // namespace

AlgorithmInfo direct_info() {
  return AlgorithmInfo{
      "direct",
      "Every rank exchanges its 1/N slices with every other rank in one step (all-to-all: its "
      "S/N blocks)",
      "Themis (ISCA'22) Table 1 \"Direct\" for fully connected dimensions",
      {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather,
       Collective::AllToAll},
      {},
      &build};
}

}  // namespace collsim::collective
