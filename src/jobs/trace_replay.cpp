// Replaying a Chakra trace rank by rank (jobs/trace_replay.hpp): its graph on the workload runner.
#include "jobs/trace_replay.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "runtime/session.hpp"

namespace collsim::jobs {

const char* to_string(ReplaySlice::Kind k) {
  switch (k) {
    case ReplaySlice::Kind::Compute:
      return "compute";
    case ReplaySlice::Kind::Collective:
      return "collective";
    case ReplaySlice::Kind::Send:
      return "send";
    case ReplaySlice::Kind::Recv:
      return "recv";
    case ReplaySlice::Kind::Memory:
      return "memory";
  }
  return "?";
}

ReplayResult replay(const topology::Topology& topo, const network::BackendInfo& backend,
                    const std::vector<workload::chakra::RankTrace>& ranks,
                    const ReplayOptions& options) {
  if (ranks.empty()) throw core::InputError("trace: no ranks");
  workload::chakra::ReplayGraphOptions go;
  if (!options.algorithms.empty()) go.staged = options.algorithms.begin()->second.info->staged;
  for (const auto& [c, a] : options.algorithms) {
    if (a.info->staged != go.staged) {
      throw core::InputError(fmt::format("the {} algorithm {} must be {} like the others",
                                         collective::to_string(c), a.label,
                                         go.staged ? "hierarchical" : "flat"));
    }
    go.runnable.insert(c);
  }
  go.serial = options.serial;
  go.data_deps_only = options.data_deps_only;
  go.compute = options.compute;
  go.groups = options.groups;
  go.memory = options.memory.kind != RemoteMemory::Kind::None;
  std::vector<std::uint32_t> dims;
  for (const auto& d : topo.dimensions()) dims.push_back(d.spec.size);
  const workload::Graph g = workload::chakra::replay_graph(ranks, dims, topo.num_npus(), go);

  runtime::MachineSpec spec;
  spec.topology = &topo;
  spec.backend = &backend;
  spec.backend_options = options.backend_options;
  spec.endpoint = options.endpoint;
  spec.endpoint_params = options.endpoint_params;
  runtime::Session session(spec);
  WorkloadRunOptions ro;
  ro.algorithms = options.algorithms;
  ro.chunks = options.chunks;
  ro.memory = options.memory;
  ro.max_time = options.max_time;
  ro.record = options.timeline;
  if (options.progress) {
    ro.tick = [&] { options.progress(session.now(), session.sim().events_processed()); };
  }
  WorkloadResult wr = run_workload(session, g, ro);

  ReplayResult r;
  for (const TimelineTimes& t : wr.timelines) r.ranks.push_back({t.finish, t.compute, t.nodes});
  r.total = wr.total;
  r.collectives = wr.collectives;
  r.sends = wr.sends;
  r.memory_ops = wr.memory_ops;
  r.messages = wr.messages;
  r.bytes = wr.bytes;
  r.events = wr.events;
  r.links = session.report().links;
  if (options.timeline) {
    // A slice per node that shows (not launch records, metadata or other zero-time nodes), in
    // the order they finished.
    std::vector<std::pair<std::uint64_t, ReplaySlice>> slices;
    for (std::uint32_t t = 0; t < g.timelines.size(); ++t) {
      const workload::Program& p = g.programs[g.timelines[t].program];
      for (std::uint32_t i = 0; i < p.nodes.size(); ++i) {
        const std::uint32_t c = p.nodes[i].category;
        if (c >= 5) continue;  // "none"
        static constexpr ReplaySlice::Kind kinds[] = {
            ReplaySlice::Kind::Compute, ReplaySlice::Kind::Collective, ReplaySlice::Kind::Send,
            ReplaySlice::Kind::Recv, ReplaySlice::Kind::Memory};
        const NodeTimes& nt = wr.nodes[t][i];
        slices.push_back({nt.order, {kinds[c], t, i, nt.issued, nt.end}});
      }
    }
    std::sort(slices.begin(), slices.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [o, s] : slices) r.timeline.push_back(s);
  }
  return r;
}

}  // namespace collsim::jobs
