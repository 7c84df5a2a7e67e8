// PAT, "Parallel Aggregated Trees": NCCL's all-gather and reduce-scatter for one GPU per node
// at scale (NCCL 2.23+; src/include/collectives.h PatAGAlgorithm / PatRSAlgorithm; tuning in
// src/graph/tuning.cc). Every rank's shard travels its own binomial tree over the ranks at
// power-of-two distances, so a rank talks to log2(n) peers and the latency grows with log2(n)
// hops instead of a ring's n-1, while each rank still sends and receives (n-1)/n S:
//   all-gather: the data of rank q reaches rank q-s (mod n, 0 < s < n) from rank q-s+2^b, b the
//     lowest set bit of s: a rank sends its own shard to the ranks 2^d below it, and passes the
//     shard that came from distance s' on to the ranks 2^d below it for every d below the lowest
//     set bit of s' (the widest jump first, as NCCL's PatAGAlgorithm, whose send on dimension d
//     forwards data received on a higher dimension);
//   reduce-scatter: the same trees reversed (PatRSAlgorithm): rank t-s adds what rank t-s-2^d
//     sent it for every d below the lowest set bit of s, then sends the sum to rank t-s+2^b; rank
//     t ends with shard t reduced over every rank.
// Unlike NCCL, which aggregates several trees' steps into one message when its buffers allow
// (aggFactor), collsim sends one shard per message; the bytes each link carries are the same.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <tuple>

#include "collective/algorithm.hpp"

namespace collsim::collective {
namespace {

std::uint32_t low_bit(std::uint32_t s) { return static_cast<std::uint32_t>(std::countr_zero(s)); }

struct Hop {
  std::uint32_t key0, key1, key2;  // order in the lane
  Rank peer;
  std::uint32_t piece;  // within the chunk
};

Program build(const BuildRequest& req) {
  const std::uint32_t n = req.ranks();
  const bool gather = req.collective == Collective::AllGather;
  Program p = make_program("pat", req.collective, n, req.size, req.chunks);
  std::vector<Hop> recvs, sends;
  for (Rank x = 0; x < n; ++x) {
    recvs.clear();
    sends.clear();
    for (std::uint32_t s = 1; s < n; ++s) {
      const std::uint32_t d = low_bit(s);
      const std::uint32_t up = 1u << d;
      if (gather) {
        // Receive shard x+s from x+2^d (which had it at distance s-2^d); send shard x+s-2^d,
        // which came from distance s-2^d, to x-2^d.
        const std::uint32_t from_dist = s - up;
        recvs.push_back({d, static_cast<std::uint32_t>(std::popcount(from_dist)), s, (x + up) % n,
                         (x + s) % n});
        sends.push_back({static_cast<std::uint32_t>(std::popcount(from_dist)), 31 - d, from_dist,
                         (x + n - up) % n, (x + from_dist) % n});
      } else {
        // Shard t = x+s (x at distance s from its root t): once its parts are in (below), send
        // the sum to x+2^d.
        sends.push_back({d, s, 0, (x + up) % n, (x + s) % n});
      }
    }
    if (!gather) {
      // What x receives: for every shard t at distance s from x (s = 0: its own) and every
      // e below s's lowest set bit (every e when s = 0) with s+2^e < n, a part from x-2^e.
      for (std::uint32_t s = 0; s < n; ++s) {
        const std::uint32_t top = s == 0 ? 32 : low_bit(s);
        for (std::uint32_t e = 0; e < top && s + (1ull << e) < n; ++e) {
          recvs.push_back({e, s, 0, (x + n - (1u << e)) % n, (x + s) % n});
        }
      }
    }
    std::sort(recvs.begin(), recvs.end(), [](const Hop& a, const Hop& b) {
      return std::tie(a.key0, a.key1, a.key2) < std::tie(b.key0, b.key1, b.key2);
    });
    std::sort(sends.begin(), sends.end(), [](const Hop& a, const Hop& b) {
      return std::tie(a.key0, a.key1, a.key2) < std::tie(b.key0, b.key1, b.key2);
    });
    auto& ops = p.ops[x];
    ops.reserve(std::size_t{req.chunks} * (recvs.size() + sends.size()));
    const Op::Kind recv_kind = gather ? Op::Kind::Recv : Op::Kind::RecvReduce;
    // Every recv is posted first (a forwarded send waits for its data), then the sends in the
    // order their data can arrive.
    for (std::uint32_t c = 0; c < req.chunks; ++c) {
      for (const Hop& h : recvs) ops.emplace_back(recv_kind, h.peer, c * n + h.piece, 1);
    }
    for (std::uint32_t c = 0; c < req.chunks; ++c) {
      for (const Hop& h : sends) {
        ops.emplace_back(Op::Kind::Send, h.peer, c * n + h.piece, 1, !gather);
      }
    }
  }
  return p;
}

ProgramSize size(const BuildRequest& req) {
  const std::uint64_t n = req.ranks();
  return {n * (n - 1), 2 * n * (n - 1)};
}

}  // namespace

AlgorithmInfo pat_info() {
  AlgorithmInfo a{
      "pat",
      "Parallel Aggregated Trees: each rank's shard goes down its own binomial tree over ranks "
      "at power-of-two distances (all-gather), reduce-scatter the trees reversed; log2(N) peers "
      "per rank, (N-1)/N S sent",
      "NCCL 2.23+ PAT (src/include/collectives.h PatAGAlgorithm, PatRSAlgorithm)",
      {Collective::ReduceScatter, Collective::AllGather},
      {},
      &build};
  // Hops on the longest path of a tree: ceil(log2 N).
  a.stage_steps = [](Collective, std::uint32_t ranks, const ParamValues&) {
    return static_cast<std::uint32_t>(ceil_log2(ranks));
  };
  a.size = &size;
  return a;
}

}  // namespace collsim::collective
