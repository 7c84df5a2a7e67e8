#include "scheduler/hierarchical.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "core/error.hpp"

namespace collsim::scheduler {

using collective::Collective;

const char* to_string(IntraDimPolicy p) {
  switch (p) {
    case IntraDimPolicy::Fifo:
      return "fifo";
    case IntraDimPolicy::Lifo:
      return "lifo";
    case IntraDimPolicy::Scf:
      return "scf";
    case IntraDimPolicy::ScfAstra:
      return "scf-astra";
  }
  return "?";
}

IntraDimPolicy parse_intra_dim_policy(std::string_view text, std::string_view field) {
  for (IntraDimPolicy p : {IntraDimPolicy::Fifo, IntraDimPolicy::Lifo, IntraDimPolicy::Scf,
                           IntraDimPolicy::ScfAstra}) {
    if (text == to_string(p)) return p;
  }
  throw core::InputError(fmt::format(
      "{}: unknown intra-dimension policy \"{}\"; valid: fifo, lifo, scf (smallest chunk first)",
      field, text));
}

collective::AlgorithmChoice default_dim_algorithm(topology::DimKind kind, Collective c,
                                                  InterDimPolicy schedule, std::uint32_t size) {
  // The kind's entry says it (topology/dim_kind.cpp): one algorithm per kind of stage.
  const topology::DefaultAlgorithms& d = topology::traits(kind).hierarchical;
  const std::string_view name =
      c == Collective::AllToAll                                                   ? d.all_to_all
      : c == Collective::AllGather                                                ? d.all_gather
      : c == Collective::AllReduce && schedule == InterDimPolicy::PerDimAllReduce ? d.all_reduce
                                                                                  : d.split;
  collective::AlgorithmChoice a = collective::parse_algorithm(name, "hierarchical");
  // Halving-doubling needs a power of two: a switch of 10 nodes takes direct instead (one step,
  // every NPU's uplink busy with (P - 1) / P of the data: as fast in bandwidth).
  if (a.info->power_of_two && size > 1 && (size & (size - 1)) != 0) {
    a = collective::parse_algorithm("direct", "hierarchical");
  }
  return a;
}

namespace {

// Steps of one stage on P ranks (Sec. 4.4 "number_of_steps"), as the algorithm's entry says.
std::uint32_t stage_steps(const collective::AlgorithmChoice& a, Collective c, std::uint32_t p) {
  return a.info->stage_steps ? a.info->stage_steps(c, p, a.params) : p - 1;
}

}  // namespace

std::vector<DimModel> dim_models(const topology::Topology& topo, Collective c,
                                 const std::vector<collective::AlgorithmChoice>& algorithms,
                                 const std::vector<std::uint32_t>& involved) {
  std::vector<DimModel> out;
  const auto& dims = topo.dimensions();
  for (std::uint32_t d = 0; d < dims.size(); ++d) {
    const auto& group = dims[d].groups.front();
    DimModel m;
    m.size = static_cast<std::uint32_t>(group.size());
    if (!involved.empty() && std::find(involved.begin(), involved.end(), d) == involved.end()) {
      m.size = 1;  // not spanned: the plan skips it
      m.bandwidth = core::Bandwidth{1};
      out.push_back(m);
      continue;
    }
    double bw = 0;
    for (topology::LinkId l : topo.out_links(group[0])) {
      if (topo.links()[l].dim == d) bw += topo.links()[l].bandwidth.bytes_per_s;
    }
    // A one-way ring on a bidirectional ring uses half the NPU's links in the dimension.
    const auto& a = algorithms[d];
    // (Not for all-to-all, whose ring steps go the short way round.)
    if (a.info->one_way && a.info->one_way(a.params) && c != Collective::AllToAll &&
        dims[d].spec.kind == topology::DimKind::Ring && m.size > 2) {
      bw /= 2;
    }
    m.bandwidth = core::Bandwidth{bw};
    core::Time step;
    for (topology::LinkId l : topo.route(group[0], group[1])) step += topo.links()[l].latency;
    const std::uint32_t phases = c == Collective::AllReduce ? 2 : 1;
    m.fixed_delay =
        step * static_cast<std::int64_t>(phases * stage_steps(algorithms[d], c, m.size));
    out.push_back(m);
  }
  return out;
}

std::vector<double> activity_share(const std::vector<DimActivity>& activity, core::Time start,
                                   core::Time end) {
  std::vector<double> out;
  const double span = static_cast<double>((end - start).ps);
  for (const DimActivity& a : activity) {
    auto busy = a.busy;
    std::sort(busy.begin(), busy.end());
    std::int64_t covered = 0;
    core::Time reach = start;
    for (const auto& [b, e] : busy) {  // union of the intervals
      const core::Time from = std::max(b, reach);
      if (e > from) covered += (e - from).ps;
      reach = std::max(reach, e);
    }
    out.push_back(span > 0 ? static_cast<double>(covered) / span : 0.0);
  }
  return out;
}

struct HierarchicalCollective::Running {
  StagingBarrier copy_in;  // the chunk's TX DMA before its first stage
  std::uint32_t dim = 0;
  std::uint32_t chunk = 0;
  std::uint32_t slot = 0;
  core::Time begin;
  std::uint32_t remaining = 0;  // groups still running
  std::uint64_t scale = 1;      // groups each program stands for (group_symmetry.hpp)
  std::deque<collective::Program> programs;
};

void prepare(const topology::Topology& topo, HierarchicalSpec& spec) {
  const auto& dims = topo.dimensions();
  if (spec.dims.empty()) {
    std::size_t real = 0;
    for (const auto& d : dims) real += d.spec.size > 1 ? 1 : 0;
    if (real < 2 && !(spec.one_dimension && real == 1)) {
      throw core::InputError(fmt::format(
          "algorithm hierarchical needs a platform of two or more dimensions; {} has {}",
          topo.name(), real));
    }
  } else {
    std::vector<bool> seen(dims.size(), false);
    std::size_t real = 0;
    for (std::uint32_t d : spec.dims) {
      if (d >= dims.size() || seen[d]) {
        throw core::InputError(fmt::format(
            "algorithm hierarchical: dimension {} is out of range or repeated ({} has dim0..dim{})",
            d, topo.name(), dims.size() - 1));
      }
      seen[d] = true;
      real += dims[d].spec.size > 1 ? 1 : 0;
    }
    if (real == 0) {
      throw core::InputError(fmt::format(
          "algorithm hierarchical: the chosen dimensions of {} have one NPU each", topo.name()));
    }
  }
  if (spec.active_chunks == 0) throw core::InputError("active_chunks: must be >= 1, got 0");
  if (spec.chunks == 0) throw core::InputError("chunks: must be >= 1, got 0");
  if (spec.dim_algorithms.size() > dims.size()) {
    throw core::InputError(
        fmt::format("algorithm hierarchical: dim{} is set but {} has {} dimension{} (dim0..dim{})",
                    spec.dim_algorithms.size() - 1, topo.name(), dims.size(),
                    dims.size() == 1 ? "" : "s", dims.size() - 1));
  }
  spec.dim_algorithms.resize(dims.size());
  for (std::uint32_t d = 0; d < dims.size(); ++d) {
    auto& a = spec.dim_algorithms[d];
    if (!a.info) {
      a = default_dim_algorithm(dims[d].spec.kind, spec.collective, spec.schedule,
                                dims[d].spec.size);
    }
    // The stages this collective needs, tried on the dimension's first group.
    const collective::Communicator g{dims[d].groups.front(), ""};
    std::vector<Collective> stages;
    if (spec.schedule == InterDimPolicy::PerDimAllReduce &&
        spec.collective == Collective::AllReduce) {
      stages.push_back(Collective::AllReduce);  // the only stage of such a walk
    } else {
      if ((spec.schedule == InterDimPolicy::AstraLocalBw ||
           spec.schedule == InterDimPolicy::AceTable5) &&
          spec.collective == Collective::AllReduce) {
        stages.push_back(Collective::AllReduce);  // the last (ace: the outer) dimensions' stage
      }
      if (spec.collective == Collective::AllToAll)
        stages.push_back(Collective::AllToAll);
      else if (spec.collective != Collective::AllGather)
        stages.push_back(Collective::ReduceScatter);
      if (spec.collective == Collective::AllReduce || spec.collective == Collective::AllGather) {
        stages.push_back(Collective::AllGather);
      }
    }
    for (Collective stage : stages) {
      try {
        collective::build_program(a, topo, g, stage, core::Bytes{1}, 1);
      } catch (const core::InputError& e) {
        throw core::InputError(fmt::format("algorithm hierarchical, dim{} ({} of {} NPUs): {}", d,
                                           topology::to_string(dims[d].spec.kind),
                                           dims[d].spec.size, e.what()));
      }
    }
  }
}

HierarchicalSpec spec_from_choice(const collective::AlgorithmChoice& choice, Collective c,
                                  core::Bytes size, std::uint32_t chunks) {
  HierarchicalSpec s;
  s.collective = c;
  s.size = size;
  s.chunks = chunks;
  const std::int64_t schedule = choice.params.at("schedule");
  s.schedule = schedule == 1   ? InterDimPolicy::Themis
               : schedule == 2 ? InterDimPolicy::PerDimAllReduce
               : schedule == 3 ? InterDimPolicy::AstraLocalBw
               : schedule == 4 ? InterDimPolicy::AceTable5
                               : InterDimPolicy::Baseline;
  const std::int64_t intra = choice.params.at("intra");
  s.intra = intra == 3   ? IntraDimPolicy::ScfAstra
            : intra == 2 ? IntraDimPolicy::Scf
            : intra == 1 ? IntraDimPolicy::Lifo
                         : IntraDimPolicy::Fifo;
  s.active_chunks = static_cast<std::uint32_t>(choice.params.at("active_chunks"));
  s.all_groups = choice.params.at("groups") == 1;
  s.one_dimension = choice.params.at("flat") == 1;
  // dimK=NAME overrides, for any K; prepare() checks K against the platform's dimensions. NAME is
  // a registered algorithm, "default" (choice 0: the kind's) or ring-both, which stands for
  // ring:directions=2 (':' separates the hierarchical algorithm's own parameters).
  const auto dim_param =
      std::find_if(choice.info->params.begin(), choice.info->params.end(),
                   [](const collective::ParamSpec& p) { return p.indexed && p.key == "dimK"; });
  for (const auto& entry : choice.params) {
    const auto d = dim_param == choice.info->params.end()
                       ? std::nullopt
                       : core::param_index(*dim_param, entry.first);
    if (!d || entry.second == 0) continue;
    s.dim_algorithms.resize(std::max<std::size_t>(s.dim_algorithms.size(), *d + 1));
    const std::string_view name = dim_param->choices[static_cast<std::size_t>(entry.second)];
    s.dim_algorithms[*d] = collective::parse_algorithm(
        name == "ring-both" ? "ring:directions=2" : name, fmt::format("hierarchical: dim{}", *d));
  }
  return s;
}

DimensionQueues::DimensionQueues(std::size_t dims, IntraDimPolicy intra,
                                 std::uint32_t active_chunks, bool one_group)
    : intra_(intra), active_chunks_(active_chunks), one_group_(one_group), waiting_(dims) {
  if (active_chunks == 0) throw core::InputError("active_chunks: must be >= 1, got 0");
  slot_weight_.assign(dims, std::vector<double>(active_chunks, 0.0));
  used_.assign(dims, 0.0);
}

void DimensionQueues::push(std::uint32_t dim, const Entry& e) {
  auto& q = waiting_[dim];
  switch (intra_) {
    case IntraDimPolicy::Fifo:
      q.push_back(e);
      break;
    case IntraDimPolicy::Lifo:
      q.push_front(e);
      break;
    case IntraDimPolicy::Scf: {
      // Ahead of the first waiting stage at least as large (ahead of equal ones); a chunk's last
      // stage goes to the tail (the authors' insertion rule).
      auto it = q.end();
      if (!e.last) {
        it = std::find_if(q.begin(), q.end(), [&](const Entry& w) { return w.size >= e.size; });
      }
      q.insert(it, e);
      break;
    }
    case IntraDimPolicy::ScfAstra: {
      // ASTRA-sim 2.x's Sys::insert_stream: the second-to-last stage and all-reduce stages to
      // the tail, the others ahead of the first waiting stage at least as large.
      auto it = q.end();
      if (!e.second_last && !e.all_reduce) {
        it = std::find_if(q.begin(), q.end(), [&](const Entry& w) { return w.size >= e.size; });
      }
      q.insert(it, e);
      break;
    }
  }
  start_waiting(dim);
}

void DimensionQueues::finish(std::uint32_t dim, std::uint32_t slot) {
  used_[dim] -= slot_weight_[dim][slot];
  slot_weight_[dim][slot] = 0;
  // No drift: an idle dimension holds nothing.
  if (std::all_of(slot_weight_[dim].begin(), slot_weight_[dim].end(),
                  [](double w) { return w == 0; })) {
    used_[dim] = 0;
  }
}

void DimensionQueues::start_all_waiting() {
  // A stage an engine admits on one dimension may free room another dimension's stages wait
  // for (its chunk leaves its previous partition): again until nothing starts.
  bool started = true;
  while (started) {
    started = false;
    for (std::uint32_t d = 0; d < waiting_.size(); ++d) started |= start_waiting(d);
  }
}

// With an engine's admission (ACE), a chunk-stage its engine refuses waits, and so do the stages
// behind it that wait for the same phase of the same collective (a state machine takes its
// phase's chunks in order, Sec. 4.3.2); stages of other phases may go ahead of it (they wait on
// other state machines). Without, the queue is strictly in order.
bool DimensionQueues::start_waiting(std::uint32_t dim) {
  auto& slots = slot_weight_[dim];
  auto& q = waiting_[dim];
  bool started = false;
  refused_.clear();
  std::size_t i = 0;
  while (i < q.size()) {
    // One pipelining rule for every endpoint: at most active_chunks places per dimension
    // (ASTRA-sim's active chunks per dimension), a stage of a finer-split collective holding a
    // share of one; an engine's state machines and SRAM can only lower it (ACE Sec. 4.3.2).
    const double weight = q[i].owner->stage_weight_;
    if (used_[dim] > 0 && used_[dim] + weight > active_chunks_ + 1e-9) return started;
    auto free = std::find(slots.begin(), slots.end(), 0.0);
    if (free == slots.end()) free = slots.insert(slots.end(), 0.0);
    const Entry e = q[i];
    if (!e.owner->admission_) {
      if (i > 0) return started;  // behind a refused stage: in order
    } else {
      const std::pair<const HierarchicalCollective*, std::uint32_t> key{
          e.owner, e.owner->waiting_phase(e.chunk)};
      if (std::find(refused_.begin(), refused_.end(), key) != refused_.end() ||
          !e.owner->admit(e.chunk)) {
        if (std::find(refused_.begin(), refused_.end(), key) == refused_.end()) {
          refused_.push_back(key);
        }
        ++i;
        continue;
      }
    }
    q.erase(q.begin() + static_cast<std::ptrdiff_t>(i));
    e.owner->chunk_queuing_ += e.owner->ex_.sim().now() - e.since;
    ++e.owner->stages_started_;
    *free = weight;
    used_[dim] += weight;
    started = true;
    e.owner->launch(dim, e.chunk, static_cast<std::uint32_t>(free - slots.begin()));
    // The admitted chunk may have left room a refused stage ahead of it waits for: rescan.
    if (i > 0) {
      refused_.clear();
      i = 0;
    }
  }
  return started;
}

HierarchicalCollective::HierarchicalCollective(const topology::Topology& topo, Executor& executor,
                                               HierarchicalSpec spec, DimensionQueues* shared)
    : topo_(topo), ex_(executor), spec_(std::move(spec)) {
  prepare(topo, spec_);
  const auto& dims = topo.dimensions();
  plan_ = plan_chunks(dim_models(topo, spec_.collective, spec_.dim_algorithms, spec_.dims),
                      spec_.collective, spec_.size, spec_.chunks, spec_.schedule);
  if (!shared) {
    own_queues_ = std::make_unique<DimensionQueues>(dims.size(), spec_.intra, spec_.active_chunks);
  }
  queues_ = shared ? shared : own_queues_.get();
  activity_.resize(dims.size());
  endpoint::Endpoint& e = ex_.endpoint();
  staging_ = e.stages_memory();
  admission_ = e.admission();
  // An engine with a chunk limit (ACE Table 4: 64 KB) takes the payload in chunks no larger.
  if (const std::uint64_t limit = e.chunk_limit().count; limit > 0) {
    const std::uint64_t need = (spec_.size.count + limit - 1) / limit;
    if (need > spec_.chunks) {
      const double asked = spec_.chunks;
      spec_.chunks = static_cast<std::uint32_t>(std::min<std::uint64_t>(need, UINT32_MAX));
      stage_weight_ = asked / spec_.chunks;
      plan_ = plan_chunks(dim_models(topo, spec_.collective, spec_.dim_algorithms, spec_.dims),
                          spec_.collective, spec_.size, spec_.chunks, spec_.schedule);
    }
  }
  if (admission_) shape_admission();
}

// ACE Sec. 6's partition sizes need, per phase, its bandwidth and the chunk (what a chunk holds
// in the phase: the larger of the stage's input and output; and the chunk's size as it entered);
// the results partition takes the last phase's bandwidth and the chunk's final size. From the
// first chunk's walk, in units of the chunk's size (every chunk of a schedule walks the same way).
void HierarchicalCollective::shape_admission() {
  const auto models = dim_models(topo_, spec_.collective, spec_.dim_algorithms, spec_.dims);
  const ChunkPlan& cp = plan_.chunks.front();
  std::vector<endpoint::PartitionDemand> demands;
  double bytes = 1, bw = 0;
  for (std::size_t k = 0; k < cp.dims.size(); ++k) {
    const std::uint32_t p = topo_.dimensions()[cp.dims[k]].spec.size;
    const double after = after_stage(cp.ops[k], p, bytes);
    bw = models[cp.dims[k]].bandwidth.bytes_per_s;
    demands.push_back({bw, std::max(bytes, after), 1});
    bytes = after;
  }
  demands.push_back({bw, bytes, 1});
  admission_->shape(demands);
}

std::uint32_t HierarchicalCollective::phase(std::uint32_t stage) const {
  const std::uint32_t phases = admission_->phases();
  return std::min(stage, phases == 0 ? 0 : phases - 1);
}

std::uint32_t HierarchicalCollective::waiting_phase(std::uint32_t c) const {
  return admission_ ? phase(chunks_[c].stage) : 0;
}

bool HierarchicalCollective::admit(std::uint32_t c) {
  if (!admission_) return true;
  Chunk& ch = chunks_[c];
  const ChunkPlan& cp = plan_.chunks[c];
  const std::uint32_t p = topo_.dimensions()[cp.dims[ch.stage]].spec.size;
  const double after = after_stage(cp.ops[ch.stage], p, ch.bytes);
  const double need = std::max(ch.bytes, after);
  const std::uint32_t ph = phase(ch.stage);
  const bool last = ch.stage + 1 == cp.dims.size();
  // The last stage writes its results into the results partition: room there first.
  if (last && !admission_->try_enter(admission_->phases(), after)) return false;
  // Bytes the chunk holds from its previous stage (Sec. 4.3.1: they stay in SRAM until the
  // chunk moves on): its own room if the stage stays in the same partition.
  const bool same = ch.held > 0 && ch.held_phase == ph;
  if (!admission_->try_enter(ph, need, same ? ch.held : 0)) {
    if (last) admission_->leave(admission_->phases(), after);
    return false;
  }
  if (ch.held > 0 && !same) admission_->leave(ch.held_phase, ch.held);
  if (last) ch.result = after;
  ch.held = need;
  ch.held_phase = ph;
  return true;
}

HierarchicalCollective::~HierarchicalCollective() = default;

void HierarchicalCollective::start(std::function<void(const CollectiveStats&)> on_done) {
  on_done_ = std::move(on_done);
  stats_ = CollectiveStats{};
  stats_.start = stats_.end = ex_.sim().now();
  // Bytes per NPU of each chunk before its first stage: the chunks split the buffer exactly; an
  // all-gather starts from the NPU's share of its chunk.
  double share = 1;
  if (spec_.collective == Collective::AllGather) {
    const auto& dims = topo_.dimensions();
    for (std::uint32_t d = 0; d < dims.size(); ++d) {
      if (spec_.dims.empty() ||
          std::find(spec_.dims.begin(), spec_.dims.end(), d) != spec_.dims.end()) {
        share *= static_cast<double>(dims[d].groups.front().size());
      }
    }
  }
  const std::uint64_t s = spec_.size.count, n = spec_.chunks;
  chunks_.assign(n, Chunk{});
  for (std::uint64_t i = 0; i < n; ++i) {
    chunks_[i].bytes = static_cast<double>(s * (i + 1) / n - s * i / n) / share;
  }
  for (std::uint32_t i = 0; i < n; ++i) enqueue(i);
}

void HierarchicalCollective::enqueue(std::uint32_t c) {
  const ChunkPlan& cp = plan_.chunks[c];
  const Chunk& ch = chunks_[c];
  const std::uint32_t dim = cp.dims[ch.stage];
  // A stage's size: the larger of its input and output per NPU.
  const double size = cp.ops[ch.stage] == Collective::AllGather
                          ? ch.bytes * static_cast<double>(topo_.dimensions()[dim].spec.size)
                          : ch.bytes;
  DimensionQueues::Entry e;
  e.owner = this;
  e.chunk = c;
  e.size = size;
  e.last = ch.stage + 1 == cp.dims.size();
  e.second_last = ch.stage + 2 == cp.dims.size();
  e.all_reduce = cp.ops[ch.stage] == Collective::AllReduce;
  e.since = ex_.sim().now();
  queues_->push(dim, e);
}

void HierarchicalCollective::launch(std::uint32_t dim, std::uint32_t c, std::uint32_t slot) {
  const Chunk& ch = chunks_[c];
  const Collective op = plan_.chunks[c].ops[ch.stage];
  const auto& d = topo_.dimensions()[dim];
  const double p = static_cast<double>(d.spec.size);
  // Reduce-scatter or all-reduce of the chunk's bytes; all-gather whose result is P times them.
  const auto size = core::Bytes{static_cast<std::uint64_t>(
      std::llround(op == Collective::AllGather ? ch.bytes * p : ch.bytes))};
  in_flight_.push_back(std::make_unique<Running>());
  Running* r = in_flight_.back().get();
  r->dim = dim;
  r->chunk = c;
  r->slot = slot;
  r->begin = ex_.sim().now();
  // One group stands for all when they are interchangeable (staging is per NPU: never then).
  const std::size_t groups = queues_->one_group() && !staging_ ? 1 : d.groups.size();
  r->remaining = static_cast<std::uint32_t>(groups);
  r->scale = d.groups.size() / groups;
  const auto& algo = spec_.dim_algorithms[dim];
  for (std::size_t g = 0; g < groups; ++g) {
    r->programs.push_back(collective::build_program(
        algo, topo_, collective::Communicator{d.groups[g], ""}, op, size, 1));
  }
  if (staging_ && ch.stage == 0) {
    std::vector<topology::NodeId> npus;
    for (const auto& group : d.groups) npus.insert(npus.end(), group.begin(), group.end());
    r->copy_in.start(ex_.endpoint(), npus,
                     core::Bytes{static_cast<std::uint64_t>(std::llround(ch.bytes))}, false,
                     [this, r] { start_programs(r); });
    return;
  }
  start_programs(r);
}

void HierarchicalCollective::start_programs(Running* r) {
  const std::uint32_t c = r->chunk, dim = r->dim;
  const Collective op = plan_.chunks[c].ops[chunks_[c].stage];
  for (std::size_t g = 0; g < r->programs.size(); ++g) {
    ex_.start(
        r->programs[g],
        [this, r](CollectiveId, const CollectiveStats& s) {
          stats_.messages += s.messages * r->scale;
          stats_.bytes += s.bytes * r->scale;
          if (--r->remaining == 0) stage_done(r);
        },
        fmt::format("chunk {} {} dim{}[{}]", c, collective::to_string(op), dim, g));
  }
}

void HierarchicalCollective::stage_done(Running* r) {
  const core::Time now = ex_.sim().now();
  activity_[r->dim].busy.emplace_back(r->begin, now);
  queues_->finish(r->dim, r->slot);
  Chunk& ch = chunks_[r->chunk];
  const ChunkPlan& cp = plan_.chunks[r->chunk];
  if (ExecutionObserver* o = ex_.observer()) {
    o->on_stage(StageInfo{r->dim, r->slot, r->chunk, cp.ops[ch.stage], ch.bytes, r->begin, now});
  }
  const double p = static_cast<double>(topo_.dimensions()[r->dim].spec.size);
  ch.bytes = after_stage(cp.ops[ch.stage], static_cast<std::uint32_t>(p), ch.bytes);
  if (admission_) {
    // The state machine is free; the chunk's bytes stay until its next stage takes them on
    // (admit), or, after its last, they are in the results partition.
    admission_->finish(phase(ch.stage));
    if (ch.stage + 1 == cp.dims.size()) {
      admission_->leave(ch.held_phase, ch.held);
      ch.held = 0;
    }
  }
  ++ch.stage;
  const std::uint32_t dim = r->dim, chunk = r->chunk;
  std::vector<topology::NodeId> npus;
  if (staging_ && ch.stage == cp.dims.size()) {
    for (const auto& group : topo_.dimensions()[dim].groups) {
      npus.insert(npus.end(), group.begin(), group.end());
    }
  }
  // The stage's programs are finished and never read again: free them now.
  in_flight_.erase(std::find_if(in_flight_.begin(), in_flight_.end(),
                                [r](const auto& x) { return x.get() == r; }));
  if (ch.stage < cp.dims.size()) {
    enqueue(chunk);
  } else if (staging_) {
    // RX DMA of the result; the chunk is done when every NPU has written it back.
    if (copies_out_.size() <= chunk) copies_out_.resize(plan_.chunks.size());
    copies_out_[chunk] = std::make_unique<StagingBarrier>();
    copies_out_[chunk]->start(ex_.endpoint(), npus,
                              core::Bytes{static_cast<std::uint64_t>(std::llround(ch.bytes))}, true,
                              [this, chunk, dim] {
                                if (admission_)
                                  admission_->leave(admission_->phases(), chunks_[chunk].result);
                                chunk_done(dim);
                              });
  } else {
    chunk_done(dim);
    return;
  }
  if (admission_) {
    queues_->start_all_waiting();
  } else {
    queues_->start_waiting(dim);
  }
}

void HierarchicalCollective::chunk_done(std::uint32_t dim) {
  ++chunks_done_;
  DimensionQueues* queues = queues_;
  const bool any = admission_ != nullptr;
  if (finished()) {
    stats_.end = ex_.sim().now();
    if (on_done_) on_done_(stats_);  // may end this collective's life: touch nothing after
  }
  // Other stages may wait for this place (or, with an engine, for the room it freed).
  if (any) {
    queues->start_all_waiting();
  } else {
    queues->start_waiting(dim);
  }
}

}  // namespace collsim::scheduler
