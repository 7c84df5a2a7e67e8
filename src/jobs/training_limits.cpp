#include "jobs/training_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "core/error.hpp"
#include "jobs/replay_limits.hpp"
#include "scheduler/group_symmetry.hpp"
#include "workload/formats/chakra.hpp"

namespace collsim::jobs {
namespace {

std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) {
  return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

}  // namespace

scheduler::WorkEstimate estimate_training(const topology::Topology& topo, const workload::Workload& w,
                                          const TrainingOptions& o, std::uint64_t* moved,
                                          bool every_group) {
  scheduler::WorkEstimate e;
  e.links = topo.links().size();
  std::uint64_t bytes = 0;
  if (o.ideal) return e;
  // Per (scope, collective): the closed-form bound of one collective and the ranks per group;
  // programs are kept per (scope, collective, size), as the run caches them.
  struct Bound {
    scheduler::WorkEstimate one;
    std::vector<std::uint32_t> ranks;
    bool ok = false;
  };
  std::map<std::pair<int, int>, Bound> bounds;
  std::map<std::tuple<int, int, std::uint64_t>, bool> programs;
  for (const workload::Layer& l : w.layers) {
    for (const workload::Comm& c : l.comm) {
      if (!c.collective) continue;
      const auto it = o.per_collective.find(*c.collective);
      const collective::AlgorithmChoice& a =
          it == o.per_collective.end() ? o.algorithm : it->second;
      const std::pair<int, int> key{static_cast<int>(c.scope), static_cast<int>(*c.collective)};
      auto b = bounds.find(key);
      if (b == bounds.end()) {
        Bound nb;
        const auto groups = scope_groups(topo, w.model_parallel_npus, c.scope);
        for (const auto& g : groups) nb.ranks.push_back(g.size());
        try {
          nb.one = scheduler::bound_work(a, topo, groups, *c.collective, o.chunks, every_group);
          nb.ok = true;
        } catch (const core::InputError&) {
          // The run names the layer when it refuses this collective.
        }
        b = bounds.emplace(key, std::move(nb)).first;
      }
      if (!b->second.ok) continue;
      e.messages = sat_add(e.messages, b->second.one.messages);
      for (std::uint32_t r : b->second.ranks) {
        bytes = sat_add(bytes, scheduler::moved_bytes(*c.collective, r, c.size));
      }
      if (programs.emplace(std::tuple{key.first, key.second, c.size.count}, true).second) {
        e.stored_ops = sat_add(e.stored_ops, b->second.one.stored_ops);
      }
    }
  }
  e.messages = sat_mul(e.messages, o.iterations);
  if (moved) *moved = sat_mul(bytes, o.iterations);
  return e;
}

void check_training(const topology::Topology& topo, const network::BackendInfo& backend,
                    const workload::Workload& w, const TrainingOptions& o, const scheduler::RunLimits& limits,
                    const std::string& what) {
  std::uint64_t bytes = 0;
  // Staged collectives: one group per dimension stands for all only where the run allows it.
  std::string why;
  if (!o.ideal && o.algorithm.info && o.algorithm.info->staged) {
    why = scheduler::planned_blocker(topo, backend, o.backend_options,
                                     endpoint::endpoint_or_default(o.endpoint), o.endpoint_params);
  }
  scheduler::WorkEstimate e;
  if (w.trace) {  // run rank by rank: its nodes' work
    ReplayOptions ro;
    for (const collective::Collective c : collective::all_collectives()) {
      const auto it = o.per_collective.find(c);
      if (o.algorithm.info) ro.algorithms[c] = it == o.per_collective.end() ? o.algorithm : it->second;
    }
    ro.chunks = o.chunks;
    e = estimate_replay(topo, w.trace->ranks, ro, &bytes);
  } else {
    e = estimate_training(topo, w, o, &bytes, !why.empty());
  }
  scheduler::check_limits(e, limits,
                          why.empty() ? what : fmt::format("{} (every group simulated: {})", what, why));
  scheduler::check_backend_work(backend, o.backend_options, topo, e.messages, bytes, limits, what);
}

}  // namespace collsim::jobs
