// Training runs (jobs/training.hpp): the training generator's graph on the workload runner, and
// the report from its node times.
#include "jobs/training.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "jobs/collective_sweep.hpp"
#include "jobs/trace_replay.hpp"
#include "jobs/workload_runner.hpp"
#include "runtime/session.hpp"

namespace collsim::jobs {

using collective::Collective;
using workload::Comm;
using workload::kPasses;
using workload::Layer;
using workload::Pass;
using workload::Scope;
using workload::TrainingNodeInfo;
using workload::Workload;

namespace {

// The algorithm of a collective: its override, else the run's.
const collective::AlgorithmChoice& choice(const TrainingOptions& o, Collective c) {
  const auto it = o.per_collective.find(c);
  return it == o.per_collective.end() ? o.algorithm : it->second;
}

// Every collective the workload issues must be buildable: fail before simulating, naming the
// layer and pass.
void check_collectives(const topology::Topology& topo, const Workload& w,
                       const TrainingOptions& o) {
  if (o.ideal) return;
  const std::uint32_t m = w.model_parallel_npus == 0 ? topo.num_npus() : w.model_parallel_npus;
  for (const Layer& l : w.layers) {
    for (std::size_t p = 0; p < kPasses; ++p) {
      const Comm& c = l.comm[p];
      if (!c.collective) continue;
      try {
        runtime::CollectiveRequest r;
        r.collective = *c.collective;
        r.algorithm = choice(o, *c.collective);
        r.size = c.size;
        r.chunks = o.chunks;
        if (r.algorithm.info->staged) {
          const auto dims = workload::scope_dims(topo, m, c.scope);
          if (!dims) {
            throw core::InputError(fmt::format(
                "a hierarchical {} collective needs the model-parallel group ({} NPUs) to be the "
                "innermost dimensions of {}; no prefix of its dimensions has {} NPUs",
                to_string(c.scope), m, topo.name(), m));
          }
          r.dims = *dims;
        } else {
          const auto g = workload::scope_groups(topo, m, c.scope);
          if (g.size() != 1 || !g[0].is_identity(topo.num_npus())) r.groups = g;
        }
        runtime::check_request(topo, r);
      } catch (const core::InputError& e) {
        throw core::InputError(fmt::format("workload {}, layer {}, {} {}: {}", w.name, l.name,
                                           to_string(static_cast<Pass>(p)),
                                           collective::to_string(*c.collective), e.what()));
      }
    }
  }
}

// Themis Table 3's ideal: the size over one NPU's bandwidth in the dimensions it spans.
core::Time ideal_time(const topology::Topology& topo, std::uint64_t bytes,
                      const std::vector<std::uint32_t>& dims) {
  double bw = 0;
  for (topology::LinkId l : topo.out_links(0)) {
    const auto& link = topo.links()[l];
    if (dims.empty() || std::find(dims.begin(), dims.end(), link.dim) != dims.end()) {
      bw += link.bandwidth.bytes_per_s;
    }
  }
  return core::transfer_time(core::Bytes{bytes}, core::Bandwidth{bw});
}

// The run's figures from the runner's node times.
TrainingResult report(const Workload& w, const workload::TrainingGraph& tg,
                      const WorkloadResult& wr, const TrainingOptions& o) {
  TrainingResult r;
  const workload::Program& prog = tg.graph.programs.front();
  const std::vector<NodeTimes>& times = wr.nodes.front();
  r.layers.resize(w.layers.size());
  for (std::size_t i = 0; i < w.layers.size(); ++i) r.layers[i].name = w.layers[i].name;
  // Slices in the order the timeline saw them end (a wait right after the collective it waited
  // for): sorted by (finish order, kind) at the end.
  struct Ordered {
    std::uint64_t order;
    int after;
    TimelineSlice slice;
  };
  std::vector<Ordered> slices;
  std::vector<std::pair<core::Time, core::Time>> comm;  // collectives' (start, end)
  for (std::size_t i = 0; i < prog.nodes.size(); ++i) {
    const workload::Node& n = prog.nodes[i];
    const TrainingNodeInfo& in = tg.info[i];
    const NodeTimes& t = times[i];
    switch (in.kind) {
      case TrainingNodeInfo::Kind::Compute:
        r.compute += n.duration;
        if (in.pass == Pass::Forward && !in.update) r.compute_forward += n.duration;
        r.layers[in.layer].compute += n.duration;
        if (o.timeline) {
          slices.push_back({t.order, 0,
                            {TimelineSlice::Kind::Compute, in.layer, in.pass, in.update,
                             Scope::All, t.end - n.duration, t.end}});
        }
        break;
      case TrainingNodeInfo::Kind::Collective: {
        r.layers[in.layer].comm += t.end - t.issued;
        comm.emplace_back(t.issued, t.end);
        if (o.timeline) {
          const Scope scope = w.layers[in.layer].comm[static_cast<std::size_t>(in.pass)].scope;
          slices.push_back({t.order, 0,
                            {TimelineSlice::Kind::Collective, in.layer, in.pass, false, scope,
                             t.issued, t.end}});
        }
        break;
      }
      case TrainingNodeInfo::Kind::IterationEnd:
        break;
    }
  }
  for (const Wait& wt : wr.waits) {
    const TrainingNodeInfo& in = tg.info[wt.dep];
    const core::Time stalled = wt.to - wt.from;
    r.exposed += stalled;
    if (in.pass == Pass::WeightGradient) r.exposed_weight_gradient += stalled;
    r.layers[in.layer].exposed += stalled;
    if (o.timeline) {
      slices.push_back({times[wt.dep].order, 1,
                        {TimelineSlice::Kind::Wait, in.layer, in.pass, false, Scope::All, wt.from,
                         wt.to}});
    }
  }
  // Time at least one collective was running: the union of their spans.
  std::sort(comm.begin(), comm.end());
  core::Time since, until;
  bool open = false;
  for (const auto& [b, e] : comm) {
    if (!open || b > until) {
      if (open) r.comm += until - since;
      since = b;
      until = e;
      open = true;
    } else {
      until = std::max(until, e);
    }
  }
  if (open) r.comm += until - since;
  // Iteration ends: every iteration's marker but the last one's, whose iteration ends after the
  // final updates (the tail's marker).
  for (std::size_t k = 0; k + 2 < tg.iteration_ends.size(); ++k) {
    r.iteration_end.push_back(times[tg.iteration_ends[k]].end);
  }
  r.iteration_end.push_back(times[tg.iteration_ends.back()].end);
  r.total = times[tg.iteration_ends.back()].end;
  if (o.timeline) {
    std::stable_sort(slices.begin(), slices.end(), [](const Ordered& a, const Ordered& b) {
      return a.order != b.order ? a.order < b.order : a.after < b.after;
    });
    for (Ordered& s : slices) r.timeline.push_back(s.slice);
  }
  r.collectives = wr.collectives;
  r.messages = wr.messages;
  r.bytes = wr.bytes;
  r.events = wr.events;
  return r;
}

// A trace that is not one SPMD iteration, rank by rank (trace_replay.hpp): the iteration ends
// with the last rank; compute and exposed communication are rank 0's (ASTRA-sim's: its finish
// less its GPU compute).
TrainingResult run_trace(const topology::Topology& topo, const network::BackendInfo& backend,
                         const Workload& w, const TrainingOptions& o) {
  if (o.ideal) {
    throw core::InputError(fmt::format(
        "workload {}: the ideal collectives need a layer table; this trace runs rank by rank",
        w.name));
  }
  ReplayOptions ro;
  for (const Collective c : collective::all_collectives()) ro.algorithms[c] = choice(o, c);
  ro.chunks = o.chunks;
  ro.compute = w.trace->compute;
  ro.backend_options = o.backend_options;
  ro.endpoint = o.endpoint;
  ro.endpoint_params = o.endpoint_params;
  ro.max_time = o.max_time;
  ro.timeline = true;  // rank 0's communication spans
  ro.progress = o.progress;
  const ReplayResult rr = replay(topo, backend, w.trace->ranks, ro);
  TrainingResult r;
  r.total = rr.total;
  r.iteration_end = {rr.total};
  if (!rr.ranks.empty()) {
    // A trace is one pass, as the SPMD path reads it (chakra.hpp to_workload): its compute is
    // forward compute.
    r.compute = r.compute_forward = rr.ranks.front().compute;
    r.exposed = rr.ranks.front().finish - rr.ranks.front().compute;
  }
  // Time rank 0 had communication running: the union of its collectives', sends', receives' and
  // memory nodes' spans.
  std::vector<std::pair<core::Time, core::Time>> spans;
  for (const ReplaySlice& sl : rr.timeline) {
    if (sl.rank == 0 && sl.kind != ReplaySlice::Kind::Compute) spans.emplace_back(sl.begin, sl.end);
  }
  std::sort(spans.begin(), spans.end());
  core::Time until;
  for (const auto& [b, e] : spans) {
    if (e <= until) continue;
    r.comm += e - std::max(b, until);
    until = e;
  }
  r.collectives = rr.collectives;
  r.messages = rr.messages;
  r.bytes = rr.bytes;
  r.events = rr.events;
  r.links = rr.links;
  return r;
}

}  // namespace

TrainingResult run_training(const topology::Topology& topo, const network::BackendInfo& backend,
                            const Workload& w, const TrainingOptions& options,
                            scheduler::ExecutionObserver* observer) {
  if (w.trace) return run_trace(topo, backend, w, options);
  validate(w, topo.num_npus());
  if (!options.algorithm.info && !options.ideal) throw core::InputError("training: no algorithm");
  for (const auto& [c, a] : options.per_collective) {
    if (!options.ideal && (!a.info || a.info->staged != options.algorithm.info->staged)) {
      throw core::InputError(fmt::format(
          "training: the {} algorithm {} must be {} like {}", collective::to_string(c), a.label,
          options.algorithm.info->staged ? "hierarchical" : "flat", options.algorithm.label));
    }
  }
  if (options.iterations == 0) throw core::InputError("iterations: must be >= 1, got 0");
  runtime::MachineSpec spec;
  spec.topology = &topo;
  spec.backend = &backend;
  spec.backend_options = options.backend_options;
  spec.endpoint = options.endpoint;
  spec.endpoint_params = options.endpoint_params;
  const bool staged = !options.ideal && options.algorithm.info->staged;
  // Hierarchical collectives alone on the network: one group per dimension may stand for all.
  spec.group_symmetry = staged;
  runtime::Session session(spec);
  // Timelines record the hierarchical collectives' chunk-stages.
  struct Stages final : scheduler::ExecutionObserver {
    std::vector<scheduler::StageInfo> stages;
    void on_stage(const scheduler::StageInfo& s) override { stages.push_back(s); }
    bool watches_messages() const override { return false; }
  } recorder;
  if (options.timeline) session.add_observer(&recorder);
  session.add_observer(observer);
  check_collectives(topo, w, options);

  workload::TrainingGraphOptions go;
  go.staged = staged;
  go.ideal = options.ideal;
  go.overlap = options.overlap;
  go.order = options.order;
  go.iterations = options.iterations;
  const workload::TrainingGraph tg = workload::training_graph(w, topo, go);

  WorkloadRunOptions ro;
  if (!options.ideal) {
    for (const Collective c : collective::all_collectives()) ro.algorithms[c] = choice(options, c);
  } else {
    ro.ideal_time = [&topo](const workload::Node& n, const workload::Group& g) {
      return ideal_time(topo, n.bytes, g.dims);
    };
  }
  ro.chunks = options.chunks;
  ro.max_time = options.max_time;
  ro.record = true;
  if (options.progress) {
    ro.tick = [&] { options.progress(session.now(), session.sim().events_processed()); };
  }
  const WorkloadResult wr = run_workload(session, tg.graph, ro);
  TrainingResult r = report(w, tg, wr, options);
  r.stages = std::move(recorder.stages);
  runtime::SessionReport rep = session.report();
  r.endpoint_metrics = jobs::endpoint_metrics(rep.endpoint, wr.stages, wr.chunk_queuing);
  r.links = std::move(rep.links);
  r.resources = std::move(rep.resources);
  return r;
}

}  // namespace collsim::jobs
