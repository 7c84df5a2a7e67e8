// Rabenseifner's halving-doubling: recursive-halving reduce-scatter (partner r XOR d for
// d = N/2, N/4, ..., 1; each step halves the data) then recursive-doubling all-gather
// (d = 1, 2, ..., N/2). On a fully connected network
//   T(all-reduce) = 2 log2(N) alpha + 2 (N-1)/N S/B   (Thakur, Rabenseifner & Gropp 2005).
// Non-power-of-two rank counts are refused with an error (the extra pre/post steps of
// Rabenseifner's general case are not modelled).
#include "collective/algorithm.hpp"
#include "collective/algorithms/doubling.hpp"

namespace collsim::collective {
namespace {

Program build(const BuildRequest& req) {
  const std::uint32_t n = req.ranks();
  require_power_of_two("halving-doubling", n);
  Program p = make_program("halving-doubling", req.collective, n, req.size, req.chunks);
  std::vector<Transfer> step;
  if (req.collective != Collective::AllGather) {
    for (std::uint32_t d = n / 2; d >= 1; d /= 2) {
      step.clear();
      for (std::uint32_t c = 0; c < req.chunks; ++c) {
        for (Rank r = 0; r < n; ++r) {
          const Rank peer = r ^ d;
          // Send the half of my current block range that the peer keeps.
          step.push_back(Transfer{r, peer, c * n + (peer & ~(d - 1)), d});
        }
      }
      add_step(p, step, true);
    }
  }
  if (req.collective != Collective::ReduceScatter) recursive_doubling_all_gather(p, req.chunks);
  return p;
}

// log2 N steps of N sends per phase (all-reduce: two phases), stored.
ProgramSize size(const BuildRequest& req) {
  const std::uint64_t n = req.ranks();
  const std::uint64_t sends = n * ceil_log2(n) * (req.collective == Collective::AllReduce ? 2 : 1);
  return {sends, 2 * sends};
}

}  // namespace

AlgorithmInfo halving_doubling_info() {
  AlgorithmInfo a{
      "halving-doubling",
      "Rabenseifner: recursive-halving reduce-scatter then recursive-doubling all-gather "
      "(power-of-two ranks)",
      "Thakur, Rabenseifner & Gropp 2005; Themis (ISCA'22) Table 1 \"HalvingDoubling\" for "
      "switch dimensions",
      {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather},
      {},
      &build};
  a.power_of_two = true;
  a.stage_steps = log2_steps;
  a.size = &size;
  return a;
}

}  // namespace collsim::collective
