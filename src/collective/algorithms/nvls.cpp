// NVLS: all-reduce, reduce-scatter and all-gather through a switch that reduces and multicasts
// in the network (NVSwitch NVLink SHARP, NCCL's NVLS algorithm; Hopper architecture whitepaper,
// "NVLink SHARP"; NCCL src/device/all_reduce.h runTreeSplit/NVLS). Rank i owns shard i:
//   reduce-scatter: every rank ships shard i of its buffer to the switch (SwitchReduce to i), which
//     merges the n contributions and forwards one result to rank i (NCCL's multimem.ld_reduce):
//     every up-link carries S, every down-link S/n;
//   all-gather: rank i sends its shard once (Multicast) and the switch writes it to every other
//     rank (NCCL's multimem.st): every up-link carries S/n, every down-link S (n-1)/n;
//   all-reduce: both, pipelined over `slices` slices of every chunk, the multicast of slice k
//     after the reduction of slice k+1 is issued: (n+1)/n S each way, so busbw 2(n-1)/(n+1) of
//     the port rate (1.56 at n = 8), above a ring's 1 (docs/nccl.md "nvls").
// Needs every rank on one switch that offers in-network reduction (topology.hpp SwitchReduction,
// e.g. nvswitch:8); backends without group messages (packet) refuse it at run time.
#include <fmt/format.h>

#include "collective/algorithm.hpp"
#include "collective/algorithms/in_network.hpp"
#include "core/error.hpp"

namespace collsim::collective {
namespace {

std::string requires_switch(const topology::Topology& topo) {
  if (topo.has_in_network()) return "";
  return fmt::format(
      "needs a switch that offers in-network reduction and multicast (NVLS), e.g. "
      "nvswitch:8:system=h100; the switches of {} offer none",
      topo.name());
}

Program build(const BuildRequest& req) {
  const std::uint32_t n = req.ranks();
  const auto& npus = req.communicator.npus;
  const std::uint32_t sw = reduction_switch(req.topology, npus);
  if (sw == kNoSwitch) {
    throw core::InputError(fmt::format(
        "algorithm nvls: {}",
        req.topology.has_in_network()
            ? fmt::format("no switch of {} that offers in-network reduction links every "
                          "rank (one per node: nvls-tree)",
                          req.topology.name())
            : requires_switch(req.topology)));
  }
  const auto slices = static_cast<std::uint32_t>(req.params.at("slices"));
  Program p = make_program("nvls", req.collective, n, req.size, req.chunks);
  const std::uint64_t pieces = std::uint64_t{req.chunks} * slices * n;
  if (pieces > UINT32_MAX / 2) {
    throw core::InputError(fmt::format(
        "algorithm nvls: {} chunks x {} slices x {} ranks is too many pieces", req.chunks, slices,
        n));
  }
  p.num_pieces = static_cast<std::uint32_t>(pieces);
  p.npus = npus;
  p.in_network_switch = sw;
  const bool reduce = req.collective != Collective::AllGather;
  const bool gather = req.collective != Collective::ReduceScatter;
  const std::uint32_t steps = req.chunks * slices;  // slice k: pieces [k n, (k+1) n)
  for (Rank r = 0; r < n; ++r) {
    auto& ops = p.ops[r];
    ops.reserve(std::size_t{steps} * (2 * n + 1));
    for (std::uint32_t k = 0; k <= steps; ++k) {
      if (k < steps) {
        const std::uint32_t base = k * n;
        if (reduce) {
          // Shards in the order r+1, r+2, ..., r: no shard is everyone's first.
          for (std::uint32_t d = 1; d <= n; ++d) {
            const Rank to = (r + d) % n;
            ops.emplace_back(Op::Kind::SwitchReduce, to, base + to, 1);
          }
          ops.emplace_back(Op::Kind::RecvSwitch, r, base + r, 1);
        }
        if (gather) {
          for (Rank from = 0; from < n; ++from) {
            if (from != r) ops.emplace_back(Op::Kind::Recv, from, base + from, 1);
          }
        }
        if (!reduce) ops.emplace_back(Op::Kind::Multicast, r, base + r, 1);
      }
      // All-reduce: the multicast of slice k-1 once the reduction of slice k is under way.
      if (reduce && gather && k > 0) ops.emplace_back(Op::Kind::Multicast, r, (k - 1) * n + r, 1);
    }
  }
  return p;
}

ProgramSize size(const BuildRequest& req) {
  const std::uint64_t n = req.ranks();
  const std::uint64_t steps = std::uint64_t{req.chunks} * req.params.at("slices");
  const bool reduce = req.collective != Collective::AllGather;
  const bool gather = req.collective != Collective::ReduceScatter;
  const std::uint64_t sends = (reduce ? n : 0) + (gather ? 1 : 0);
  const std::uint64_t recvs = (reduce ? 1 : 0) + (gather ? n - 1 : 0);
  return {n * steps * sends, n * steps * (sends + recvs)};
}

}  // namespace

AlgorithmInfo nvls_info() {
  AlgorithmInfo a{
      "nvls",
      "NVLink SHARP: every rank sends each shard once to a switch that reduces it (reduce-"
      "scatter) and multicasts each reduced shard to every rank (all-gather); all-reduce "
      "pipelines both over slices. Needs a switch with in-network reduction (nvswitch:N)",
      "NCCL's NVLS algorithm (NCCL 2.17+); Hopper architecture whitepaper (NVLink SHARP)",
      {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather},
      {count_param("slices", 32, 1, 4096,
                   "slices each chunk's shards are streamed through the switch in; all-reduce "
                   "multicasts slice k while slice k+1 is reduced (NCCL streams NVLS in small "
                   "chunks)")},
      &build};
  // One step: every shard goes through the switch once each way.
  a.stage_steps = [](Collective c, std::uint32_t, const ParamValues&) -> std::uint32_t {
    return c == Collective::AllReduce ? 2 : 1;
  };
  // In "all" where one reducing switch links every NPU (not on railfat:...:reduce=..., whose
  // nodes each have their own: nvls-tree).
  a.in_all = [](const topology::Topology& t) {
    if (!t.has_in_network()) return false;
    std::vector<std::uint32_t> npus(t.num_npus());
    for (std::uint32_t i = 0; i < t.num_npus(); ++i) npus[i] = i;
    return reduction_switch(t, npus) != kNoSwitch;
  };
  a.requires_topology = &requires_switch;
  a.size = &size;
  return a;
}

}  // namespace collsim::collective
