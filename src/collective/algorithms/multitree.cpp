// MultiTree all-reduce (MultiTree (ISCA'21) Sec. III, Algorithm 1 lines 15-18 and Fig. 3): the
// trees of multitree_build.hpp carry one chunk each (chunk r = tree r's 1/N of the data).
// Reduce-scatter runs every tree bottom-up: the edge built in all-gather step t sends child ->
// parent at step T - t + 1, after the child has reduced what its own children sent; all-gather
// runs them top-down, parent -> child at step T + t. Op.step carries these steps (the NI's
// schedule-table step and the network priority, Sec. IV-A). With lockstep=1 every rank also waits
// at a barrier after each step (the NI's global time-step counter); without it a message goes as
// soon as its data is ready. C chunks repeat the schedule on each chunk's pieces.
#include <fmt/format.h>

#include <memory>

#include "collective/algorithm.hpp"
#include "collective/algorithms/multitree_build.hpp"
#include "core/error.hpp"

namespace collsim::collective {
namespace {

Program build(const BuildRequest& req) {
  const std::uint32_t n = req.ranks();
  if (!req.communicator.is_identity(req.topology.num_npus())) {
    throw core::InputError(
        "algorithm multitree: builds its trees on the whole platform; use "
        "group all");
  }
  const auto mode = req.params.at("mode") == 0 ? MultiTreeMode::Reference : MultiTreeMode::Paper;
  const MultiTreePlan plan =
      build_multitree(req.topology, mode, static_cast<std::uint32_t>(req.params.at("kary")));
  const bool lockstep = req.params.at("lockstep") != 0;
  const std::uint32_t T = plan.steps;
  Program p = make_program("multitree", req.collective, n, req.size, req.chunks);
  p.step_schedule = true;  // an edge's message depends only on edges of earlier steps
  // Per step s (1 .. 2T): the transfers of every tree and chunk.
  std::vector<std::vector<Transfer>> rs(T + 1), ag(T + 1);
  for (std::uint32_t c = 0; c < req.chunks; ++c) {
    for (std::uint32_t r = 0; r < n; ++r) {
      for (const TreeEdge& e : plan.trees[r]) {
        rs[T - e.step + 1].push_back(Transfer{e.child, e.parent, c * n + r, 1});
        ag[e.step].push_back(Transfer{e.parent, e.child, c * n + r, 1});
      }
    }
  }
  auto emit = [&](const std::vector<Transfer>& step, bool reduce, std::uint32_t s) {
    for (const Transfer& t : step) {
      p.ops[t.from].push_back(
          Op{Op::Kind::Send, t.to, t.first, t.count, reduce, static_cast<std::uint16_t>(s)});
    }
    const Op::Kind k = reduce ? Op::Kind::RecvReduce : Op::Kind::Recv;
    for (const Transfer& t : step) {
      p.ops[t.to].push_back(Op{k, t.from, t.first, t.count, false, static_cast<std::uint16_t>(s)});
    }
    if (lockstep) {
      for (auto& lane : p.ops) lane.push_back(Op{Op::Kind::Barrier, 0, 0, 0});
    }
  };
  const bool do_rs = req.collective != Collective::AllGather;
  const bool do_ag = req.collective != Collective::ReduceScatter;
  // Edges that reserved a path of their own (switched networks, reference mode): their messages
  // take it, parent -> child in the all-gather and reversed in the reduce-scatter.
  auto routes = std::make_shared<topology::PinnedRoutes>();
  std::vector<topology::LinkId> back;
  for (std::uint32_t r = 0; r < n; ++r) {
    for (const TreeEdge& e : plan.trees[r]) {
      if (e.path.empty()) continue;
      if (do_ag) routes->add(e.parent, e.child, (do_rs ? T : 0) + e.step, e.path);
      if (do_rs) {
        back.clear();
        for (auto it = e.path.rbegin(); it != e.path.rend(); ++it) {
          const topology::Link& l = req.topology.links()[*it];
          back.push_back(req.topology.link_between(l.dst, l.src));
        }
        routes->add(e.child, e.parent, T - e.step + 1, back);
      }
    }
  }
  if (routes->size() > 0) {
    routes->seal();
    p.routes = std::move(routes);
  }
  if (do_rs) {
    for (std::uint32_t s = 1; s <= T; ++s) emit(rs[s], true, s);
  }
  if (do_ag) {
    for (std::uint32_t t = 1; t <= T; ++t) emit(ag[t], false, (do_rs ? T : 0) + t);
  }
  return p;
}

// A tree per root over every rank: N (N - 1) edges, used once per phase (all-reduce: reduce and
// broadcast), stored.
ProgramSize size(const BuildRequest& req) {
  const std::uint64_t n = req.ranks();
  const std::uint64_t sends = n * (n - 1) * (req.collective == Collective::AllReduce ? 2 : 1);
  return {sends, 2 * sends};
}

}  // namespace

constexpr std::string_view kModes[] = {"reference", "paper"};

AlgorithmInfo multitree_info() {
  AlgorithmInfo a{
      "multitree",
      "MultiTree: one spanning tree per NPU built top-down over the topology's links, no directed "
      "link carrying two tree edges in a time step; reduce-scatter up the trees, all-gather down",
      "MultiTree (ISCA'21) Sec. III, Algorithm 1",
      {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather},
      {choice_param("mode", kModes,
                    "reference (the authors' simulator: round-boundary rule, root re-ordering) or "
                    "paper (Algorithm 1 as printed)"),
       count_param("kary", 5, 2, 65,
                   "tree edges an NPU may send and receive per time step, plus one"),
       count_param("lockstep", 0, 0, 1,
                   "1: every rank waits for every other at the end of each time step")},
      &build};
  a.size = &size;
  return a;
}

}  // namespace collsim::collective
