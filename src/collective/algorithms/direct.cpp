// Direct collectives: every rank talks to every other rank in one step.
//   reduce-scatter: each rank sends every peer that peer's 1/N slice, which the peer reduces;
//   all-gather: each rank sends its slice to every peer; all-reduce = both;
//   all-to-all: each rank sends every peer its S/N block.
// On a fully connected topology T(all-reduce) = 2(alpha + S/(N B)) (Themis Table 1 "Direct").
// Rank r visits its peers in the order r+1, r+2, ... so that no rank is everyone's first target.
// The ops are generated, not stored (DirectGenerator).
#include "collective/algorithm.hpp"

namespace collsim::collective {
namespace {

// Ops generated on demand (program.hpp OpGenerator): a stored direct program has 2 N (N-1) ops per
// chunk and phase, 67 M at 4096 NPUs, so it is computed from (rank, index) instead. Rank r's ops in
// one phase: its sends to r+1, r+2, ... for each chunk, then its receives from every other rank in
// increasing order for each chunk (what add_step would emit for the step's transfers).
class DirectGenerator final : public OpGenerator {
 public:
  DirectGenerator(Collective c, std::uint32_t n, std::uint32_t chunks)
      : c_(c), n_(n), half_(chunks * (n - 1)), phases_(c == Collective::AllReduce ? 2 : 1) {}

  std::uint32_t size(Lane) const override { return phases_ * 2 * half_; }

  Op at(Lane r, std::uint32_t i) const override {
    const std::uint32_t phase = i / (2 * half_);
    const std::uint32_t j = i - phase * 2 * half_;
    const bool reduce =
        c_ == Collective::ReduceScatter || (c_ == Collective::AllReduce && phase == 0);
    if (j < half_) {
      const std::uint32_t c = j / (n_ - 1);
      const std::uint32_t d = j - c * (n_ - 1) + 1;
      const Rank peer = r + d < n_ ? r + d : r + d - n_;
      return Op{Op::Kind::Send, peer, piece(c, r, peer, reduce), 1, reduce};
    }
    const std::uint32_t k = j - half_;
    const std::uint32_t c = k / (n_ - 1);
    const std::uint32_t idx = k - c * (n_ - 1);
    const Rank from = idx < r ? idx : idx + 1;
    return Op{reduce ? Op::Kind::RecvReduce : Op::Kind::Recv, from, piece(c, from, r, reduce), 1};
  }

 private:
  // The piece chunk c's message from `from` to `to` carries.
  std::uint32_t piece(std::uint32_t c, Rank from, Rank to, bool reduce) const {
    if (c_ == Collective::AllToAll) return (c * n_ + from) * n_ + to;
    return c * n_ + (reduce ? to : from);
  }

  Collective c_;
  std::uint32_t n_, half_, phases_;
};

Program build(const BuildRequest& req) {
  const std::uint32_t n = req.ranks();
  Program p = make_program("direct", req.collective, n, req.size, req.chunks);
  p.ops.clear();
  p.generator = std::make_shared<DirectGenerator>(req.collective, n, req.chunks);
  return p;
}

// Every rank sends to every other once per phase (all-reduce: two phases); generated.
ProgramSize size(const BuildRequest& req) {
  const std::uint64_t n = req.ranks();
  return {n * (n - 1) * (req.collective == Collective::AllReduce ? 2 : 1), 0};
}

}  // namespace

AlgorithmInfo direct_info() {
  AlgorithmInfo a{
      "direct",
      "Every rank exchanges its 1/N slices with every other rank in one step (all-to-all: its "
      "S/N blocks)",
      "Themis (ISCA'22) Table 1 \"Direct\" for fully connected dimensions",
      {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather,
       Collective::AllToAll},
      {},
      &build};
  // Every slice goes straight to its rank: one step whatever the rank count.
  a.stage_steps = [](Collective, std::uint32_t, const ParamValues&) -> std::uint32_t { return 1; };
  a.size = &size;
  return a;
}

}  // namespace collsim::collective
