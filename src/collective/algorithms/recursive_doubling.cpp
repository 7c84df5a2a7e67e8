// Recursive doubling: log2(N) steps, partner r XOR d for d = 1, 2, ..., N/2.
//   all-reduce: every step exchanges and reduces the whole vector, T = log2(N)(alpha + S/B):
//   latency-optimal, bandwidth log2(N)/2 (N-1)/N times worse than halving-doubling;
//   all-gather: every step exchanges the gathered block range, T = log2(N) alpha + (N-1)/N S/B.
// Power-of-two rank counts only.
#include "collective/algorithm.hpp"
#include "collective/algorithms/doubling.hpp"

namespace collsim::collective {

void recursive_doubling_all_gather(Program& p, std::uint32_t chunks) {
  const std::uint32_t n = p.num_ranks;
  std::vector<Transfer> step;
  for (std::uint32_t d = 1; d < n; d *= 2) {
    step.clear();
    for (std::uint32_t c = 0; c < chunks; ++c) {
      for (Rank r = 0; r < n; ++r) step.push_back(Transfer{r, r ^ d, c * n + (r & ~(d - 1)), d});
    }
    add_step(p, step, false);
  }
}

namespace {

Program build(const BuildRequest& req) {
  const std::uint32_t n = req.ranks();
  require_power_of_two("recursive-doubling", n);
  Program p = make_program("recursive-doubling", req.collective, n, req.size, req.chunks);
  if (req.collective == Collective::AllGather) {
    recursive_doubling_all_gather(p, req.chunks);
    return p;
  }
  std::vector<Transfer> step;
  for (std::uint32_t d = 1; d < n; d *= 2) {
    step.clear();
    for (std::uint32_t c = 0; c < req.chunks; ++c) {
      for (Rank r = 0; r < n; ++r) step.push_back(Transfer{r, r ^ d, c * n, n});
    }
    add_step(p, step, true);
  }
  return p;
}

// log2 N steps of N sends, stored.
ProgramSize size(const BuildRequest& req) {
  const std::uint64_t n = req.ranks(), sends = n * ceil_log2(n);
  return {sends, 2 * sends};
}

}  // namespace

AlgorithmInfo recursive_doubling_info() {
  AlgorithmInfo a{
      "recursive-doubling",
      "Recursive doubling: log2(N) exchanges with partner r XOR 2^k; all-reduce exchanges the "
      "whole vector each step (power-of-two ranks)",
      "Thakur, Rabenseifner & Gropp 2005",
      {Collective::AllReduce, Collective::AllGather},
      {},
      &build};
  a.power_of_two = true;
  a.stage_steps = log2_steps;
  a.size = &size;
  return a;
}

}  // namespace collsim::collective
