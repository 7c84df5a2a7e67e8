#include "jobs/training.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <tuple>

#include "collective/communicator.hpp"
#include "core/error.hpp"
#include "endpoint/endpoint.hpp"
#include "jobs/collective_sweep.hpp"
#include "jobs/training_limits.hpp"
#include "runtime/session.hpp"
#include "scheduler/hierarchical.hpp"

namespace collsim::jobs {

using collective::Collective;
using workload::Comm;
using workload::kPasses;
using workload::Layer;
using workload::Pass;
using workload::Scope;
using workload::Workload;

const char* to_string(Overlap o) { return o == Overlap::None ? "none" : "layer"; }
const char* to_string(IssueOrder o) { return o == IssueOrder::Lifo ? "lifo" : "fifo"; }

Overlap parse_overlap(std::string_view text, std::string_view field) {
  if (text == "none") return Overlap::None;
  if (text == "layer") return Overlap::Layer;
  throw core::InputError(
      fmt::format("{}: unknown overlap \"{}\"; valid: none (weight-gradient collectives after "
                  "back-propagation), layer (each as soon as its layer's gradient is computed)",
                  field, text));
}

IssueOrder parse_issue_order(std::string_view text, std::string_view field) {
  if (text == "fifo") return IssueOrder::Fifo;
  if (text == "lifo") return IssueOrder::Lifo;
  throw core::InputError(fmt::format(
      "{}: unknown order \"{}\"; valid: fifo (issue order), lifo (the latest issued first)", field,
      text));
}

namespace {

// One step of the compute timeline.
struct Action {
  enum class Kind { Compute, Issue, Wait, IssueDeferred, EndIteration } kind;
  std::uint32_t layer = 0;
  Pass pass = Pass::Forward;
  core::Time time;        // Compute
  bool previous = false;  // Wait: for the previous iteration's collective; Compute: an update
};

std::vector<Action> iteration_actions(const Workload& w, Overlap overlap, bool first) {
  std::vector<Action> a;
  const auto n = static_cast<std::uint32_t>(w.layers.size());
  // `previous` marks an update step on Compute actions.
  auto compute = [&](std::uint32_t i, core::Time t, Pass p = Pass::Forward, bool update = false) {
    if (t.ps > 0) a.push_back({Action::Kind::Compute, i, p, t, update});
  };
  auto comm = [&](std::uint32_t i, Pass p, bool blocking) {
    const Comm& c = w.layers[i].comm[static_cast<std::size_t>(p)];
    if (!c.collective) return;
    a.push_back({Action::Kind::Issue, i, p, {}, false});
    if (blocking && !c.overlapped) a.push_back({Action::Kind::Wait, i, p, {}, false});
  };
  // Overlapped forward collectives by the later layer that needs them (earlier layers first):
  // one pass, not one per layer (traces have 10^5-10^6 layers).
  std::vector<std::vector<std::uint32_t>> needed(n);
  for (std::uint32_t j = 0; j < n; ++j) {
    const Comm& f = w.layers[j].comm[0];
    if (f.collective && f.overlapped && f.needed_before > j && f.needed_before < n) {
      needed[f.needed_before].push_back(j);
    }
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    const Layer& l = w.layers[i];
    // Overlapped collectives of this iteration's earlier layers that this layer needs.
    for (std::uint32_t j : needed[i])
      a.push_back({Action::Kind::Wait, j, Pass::Forward, {}, false});
    if (!first && l.comm[2].collective) {
      a.push_back({Action::Kind::Wait, i, Pass::WeightGradient, {}, true});
    }
    if (!first && l.comm[1].collective && l.comm[1].overlapped) {
      a.push_back({Action::Kind::Wait, i, Pass::InputGradient, {}, true});
    }
    if (!first) compute(i, l.update, Pass::WeightGradient, true);
    compute(i, l.compute[0]);
    comm(i, Pass::Forward, true);
  }
  for (std::uint32_t j = n; j-- > 0;) {
    const Layer& l = w.layers[j];
    compute(j, l.compute[2], Pass::WeightGradient);
    if (overlap == Overlap::Layer) comm(j, Pass::WeightGradient, false);
    compute(j, l.compute[1], Pass::InputGradient);
    comm(j, Pass::InputGradient, true);
  }
  if (overlap == Overlap::None)
    a.push_back({Action::Kind::IssueDeferred, 0, Pass::Forward, {}, false});
  a.push_back({Action::Kind::EndIteration, 0, Pass::Forward, {}, false});
  return a;
}

// The last iteration's tail: every layer waits for its weight-gradient collective and updates.
std::vector<Action> final_actions(const Workload& w) {
  std::vector<Action> a;
  for (std::uint32_t i = 0; i < w.layers.size(); ++i) {
    const Layer& l = w.layers[i];
    if (l.comm[1].collective && l.comm[1].overlapped) {
      a.push_back({Action::Kind::Wait, i, Pass::InputGradient, {}, true});
    }
    if (!l.comm[2].collective) continue;
    a.push_back({Action::Kind::Wait, i, Pass::WeightGradient, {}, true});
    if (l.update.ps > 0)
      a.push_back({Action::Kind::Compute, i, Pass::WeightGradient, l.update, true});
  }
  a.push_back({Action::Kind::EndIteration, 0, Pass::Forward, {}, false});
  return a;
}

class Trainer final : public core::EventHandler {
 public:
  // `one_group`: hierarchical stages run on the first group of each dimension, standing for all
  // (scheduler/group_symmetry.hpp).
  Trainer(runtime::Session& session, const Workload& w, const TrainingOptions& o)
      : topo_(session.topology()), sim_(session.sim()), session_(session), w_(w), o_(o) {
    const std::uint32_t n = topo_.num_npus();
    m_ = w.model_parallel_npus == 0 ? n : w.model_parallel_npus;
    done_.assign(w.layers.size(), {});
    result_.layers.resize(w.layers.size());
    for (std::size_t i = 0; i < w.layers.size(); ++i) result_.layers[i].name = w.layers[i].name;
    check_collectives();
  }

  void start() {
    actions_ = iteration_actions(w_, o_.overlap, true);
    step();
  }
  bool finished() const { return finished_; }
  TrainingResult& result() { return result_; }

  void on_event(std::uint64_t) override {  // a compute step ended
    if (o_.timeline) {
      const Action& a = actions_[next_];
      result_.timeline.push_back({TimelineSlice::Kind::Compute, a.layer, a.pass, a.previous,
                                  Scope::All, sim_.now() - a.time, sim_.now()});
    }
    ++next_;
    step();
  }

 private:
  // A collective instance: (layer, pass) issued in iteration `iteration`.
  struct Instance {
    std::uint32_t layer = 0;
    Pass pass = Pass::Forward;
    core::Time issued, started;
    std::uint32_t remaining = 0;
  };
  // Scopes run flat collectives one at a time.
  struct ScopeQueue {
    std::deque<std::uint32_t> waiting;  // instance ids
    bool busy = false;
  };

  void step() {
    while (!finished_ && next_ < actions_.size()) {
      const Action& a = actions_[next_];
      switch (a.kind) {
        case Action::Kind::Compute:
          result_.compute += a.time;
          if (a.pass == Pass::Forward && !a.previous) result_.compute_forward += a.time;
          result_.layers[a.layer].compute += a.time;
          session_.after(a.time, *this);
          return;  // on_event goes on
        case Action::Kind::Issue:
          issue(a.layer, a.pass);
          break;
        case Action::Kind::IssueDeferred:
          for (std::uint32_t j = static_cast<std::uint32_t>(w_.layers.size()); j-- > 0;) {
            if (w_.layers[j].comm[2].collective) issue(j, Pass::WeightGradient);
          }
          break;
        case Action::Kind::Wait: {
          const std::uint32_t want = a.previous ? iteration_ : iteration_ + 1;
          if (done_[a.layer][static_cast<std::size_t>(a.pass)] < want) {
            waiting_ = true;
            wait_layer_ = a.layer;
            wait_pass_ = a.pass;
            wait_count_ = want;
            wait_since_ = sim_.now();
            return;  // complete() goes on
          }
          break;
        }
        case Action::Kind::EndIteration:
          result_.iteration_end.push_back(sim_.now());
          ++iteration_;
          if (iteration_ < o_.iterations) {
            actions_ = iteration_actions(w_, o_.overlap, false);
          } else if (iteration_ == o_.iterations) {
            actions_ = final_actions(w_);
            result_.iteration_end.pop_back();  // the iteration ends after the tail
          } else {
            finished_ = true;
            result_.total = sim_.now();
            return;
          }
          next_ = 0;
          continue;
      }
      ++next_;
    }
  }

  std::vector<collective::Communicator> groups(Scope s) const { return scope_groups(topo_, m_, s); }

  // Every collective the workload issues must be buildable: fail before simulating.
  void check_collectives() {
    for (const Layer& l : w_.layers) {
      for (std::size_t p = 0; p < kPasses; ++p) {
        const Comm& c = l.comm[p];
        if (!c.collective || o_.ideal) continue;
        try {
          runtime::check_request(topo_, request(c, {}));
        } catch (const core::InputError& e) {
          throw core::InputError(fmt::format("workload {}, layer {}, {} {}: {}", w_.name, l.name,
                                             to_string(static_cast<Pass>(p)),
                                             collective::to_string(*c.collective), e.what()));
        }
      }
    }
  }

  // Themis Table 3's ideal: the size over one NPU's bandwidth in the dimensions it spans.
  core::Time ideal_time(const Comm& c) const {
    const std::vector<std::uint32_t> dims =
        scope_dims(c.scope).value_or(std::vector<std::uint32_t>{});
    double bw = 0;
    for (topology::LinkId l : topo_.out_links(0)) {
      const auto& link = topo_.links()[l];
      if (dims.empty() || std::find(dims.begin(), dims.end(), link.dim) != dims.end()) {
        bw += link.bandwidth.bytes_per_s;
      }
    }
    return core::transfer_time(c.size, core::Bandwidth{bw});
  }

  // The dimensions a scope spans (empty: all), M being the product of the innermost ones;
  // nullopt when no prefix of the dimensions has M NPUs.
  std::optional<std::vector<std::uint32_t>> scope_dims(Scope s) const {
    const std::uint32_t n = topo_.num_npus();
    if (s == Scope::All || (s == Scope::ModelParallel && m_ == n) ||
        (s == Scope::DataParallel && m_ == 1)) {
      return std::vector<std::uint32_t>{};
    }
    const auto& dims = topo_.dimensions();
    std::uint32_t inner = 0, product = 1;
    while (inner < dims.size() && product < m_) product *= dims[inner++].spec.size;
    if (product != m_) return std::nullopt;
    std::vector<std::uint32_t> out;
    for (std::uint32_t d = 0; d < dims.size(); ++d) {
      if ((d < inner) == (s == Scope::ModelParallel)) out.push_back(d);
    }
    return out;
  }

  struct IdealTimer final : core::EventHandler {
    explicit IdealTimer(Trainer& t) : t(t) {}
    void on_event(std::uint64_t) override {
      auto& h = t.ideal_;
      while (!h.empty() && h.front().first <= t.sim_.now()) {
        std::pop_heap(h.begin(), h.end(), std::greater<>());
        const std::uint32_t id = h.back().second;
        h.pop_back();
        t.complete(id);
      }
    }
    Trainer& t;
  };

  // The algorithm of a collective: its override, else the run's.
  const collective::AlgorithmChoice& choice(Collective c) const {
    const auto it = o_.per_collective.find(c);
    return it == o_.per_collective.end() ? o_.algorithm : it->second;
  }

  // The collective of `c` on its scope: a flat algorithm on every group of the scope; a
  // hierarchical one over the scope's dimensions, where model-parallel groups must be the
  // innermost dimensions (M = their product) and data-parallel groups the others.
  runtime::CollectiveRequest request(const Comm& c, std::string label) const {
    runtime::CollectiveRequest r;
    r.collective = *c.collective;
    r.algorithm = choice(*c.collective);
    r.size = c.size;
    r.chunks = o_.chunks;
    r.label = std::move(label);
    if (r.algorithm.info->staged) {
      const auto dims = scope_dims(c.scope);
      if (!dims) {
        throw core::InputError(fmt::format(
            "a hierarchical {} collective needs the model-parallel group ({} NPUs) to be the "
            "innermost dimensions of {}; no prefix of its dimensions has {} NPUs",
            to_string(c.scope), m_, topo_.name(), m_));
      }
      r.dims = *dims;
    } else {
      const auto g = groups(c.scope);
      if (g.size() != 1 || !g[0].is_identity(topo_.num_npus())) r.groups = g;
    }
    return r;
  }

  void issue(std::uint32_t layer, Pass pass) {
    const auto id = static_cast<std::uint32_t>(instances_.size());
    instances_.push_back(Instance{layer, pass, sim_.now(), {}, 0});
    ++result_.collectives;
    const Comm& c = w_.layers[layer].comm[static_cast<std::size_t>(pass)];
    if (o_.ideal || o_.algorithm.info->staged) {
      launch(id);
      return;
    }
    ScopeQueue& q = scopes_[static_cast<std::size_t>(c.scope)];
    if (o_.order == IssueOrder::Lifo) {
      q.waiting.push_front(id);
    } else {
      q.waiting.push_back(id);
    }
    if (!q.busy) start_next(c.scope);
  }

  void start_next(Scope s) {
    ScopeQueue& q = scopes_[static_cast<std::size_t>(s)];
    if (q.waiting.empty()) return;
    const std::uint32_t id = q.waiting.front();
    q.waiting.pop_front();
    q.busy = true;
    launch(id);
  }

  void launch(std::uint32_t id) {
    Instance& in = instances_[id];
    in.started = sim_.now();
    if (active_++ == 0) comm_since_ = sim_.now();
    const Comm& c = w_.layers[in.layer].comm[static_cast<std::size_t>(in.pass)];
    const std::string label = fmt::format("{} {} {}", w_.layers[in.layer].name, to_string(in.pass),
                                          collective::to_string(*c.collective));
    if (o_.ideal) {
      in.remaining = 1;
      const core::Time end = sim_.now() + ideal_time(c);
      ideal_.push_back({end, id});
      std::push_heap(ideal_.begin(), ideal_.end(), std::greater<>());
      sim_.schedule_at(end, ideal_timer_, 0);  // one event per collective; each pops what is due
      return;
    }
    in.remaining = 1;
    session_.launch(request(c, label),
                    [this, id](runtime::LaunchId, const scheduler::CollectiveStats& s) {
                      result_.messages += s.messages;
                      result_.bytes += s.bytes;
                      complete(id);
                    });
  }

  void complete(std::uint32_t id) {
    const Instance& in = instances_[id];
    const core::Time now = sim_.now();
    result_.layers[in.layer].comm += now - in.started;
    if (o_.timeline) {
      result_.timeline.push_back({TimelineSlice::Kind::Collective, in.layer, in.pass, false,
                                  w_.layers[in.layer].comm[static_cast<std::size_t>(in.pass)].scope,
                                  in.started, now});
    }
    if (--active_ == 0) result_.comm += now - comm_since_;
    const auto p = static_cast<std::size_t>(in.pass);
    ++done_[in.layer][p];
    const Comm& c = w_.layers[in.layer].comm[p];
    if (!o_.ideal && !o_.algorithm.info->staged) {
      scopes_[static_cast<std::size_t>(c.scope)].busy = false;
      start_next(c.scope);
    }
    if (waiting_ && wait_layer_ == in.layer && wait_pass_ == in.pass &&
        done_[in.layer][p] >= wait_count_) {
      waiting_ = false;
      const core::Time stalled = now - wait_since_;
      result_.exposed += stalled;
      if (in.pass == Pass::WeightGradient) result_.exposed_weight_gradient += stalled;
      result_.layers[in.layer].exposed += stalled;
      if (o_.timeline) {
        result_.timeline.push_back(
            {TimelineSlice::Kind::Wait, in.layer, in.pass, false, Scope::All, wait_since_, now});
      }
      ++next_;
      step();
    }
  }

  const topology::Topology& topo_;
  core::Simulation& sim_;
  runtime::Session& session_;
  const Workload& w_;
  const TrainingOptions& o_;
  std::uint32_t m_ = 1;
  TrainingResult result_;

  std::vector<Action> actions_;
  std::size_t next_ = 0;
  std::uint32_t iteration_ = 0;
  bool finished_ = false;
  // Completed instances per (layer, pass); a wait wants a count.
  std::vector<std::array<std::uint32_t, kPasses>> done_;
  bool waiting_ = false;
  std::uint32_t wait_layer_ = 0;
  Pass wait_pass_ = Pass::Forward;
  std::uint32_t wait_count_ = 0;
  core::Time wait_since_;

  std::vector<Instance> instances_;
  std::array<ScopeQueue, 3> scopes_;
  std::uint32_t active_ = 0;
  core::Time comm_since_;
  std::vector<std::pair<core::Time, std::uint32_t>> ideal_;  // min-heap: end, instance
  IdealTimer ideal_timer_{*this};
};

}  // namespace

TrainingResult run_training(const topology::Topology& topo, const network::BackendInfo& backend,
                            const Workload& w, const TrainingOptions& options,
                            scheduler::ExecutionObserver* observer) {
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
  // Hierarchical collectives alone on the network: one group per dimension may stand for all.
  spec.group_symmetry = !options.ideal && options.algorithm.info->staged;
  runtime::Session session(spec);
  // Timelines record the hierarchical collectives' chunk-stages.
  struct Stages final : scheduler::ExecutionObserver {
    std::vector<scheduler::StageInfo> stages;
    void on_stage(const scheduler::StageInfo& s) override { stages.push_back(s); }
    bool watches_messages() const override { return false; }
  } recorder;
  if (options.timeline) session.add_observer(&recorder);
  session.add_observer(observer);
  Trainer t(session, w, options);
  t.start();
  runtime::RunOptions ro;
  ro.max_time = options.max_time;
  if (options.progress) {
    ro.tick = [&] { options.progress(session.now(), session.sim().events_processed()); };
  }
  session.run(ro);
  if (!t.finished() && options.max_time) {
    throw core::SimulationError(fmt::format(
        "training {}: not finished within the time bound of {} (--max-time, max_time); raise it "
        "or leave it out",
        w.name, core::to_string(*options.max_time)));
  }
  if (!t.finished()) {
    throw core::SimulationError(
        fmt::format("training {}: stopped at {} with the compute timeline waiting", w.name,
                    core::to_string(session.now())));
  }
  TrainingResult r = std::move(t.result());
  r.events = session.sim().events_processed();
  r.stages = std::move(recorder.stages);
  // Chunk-stages the hierarchical collectives started and their time in the queues, summed.
  std::uint64_t stages = 0;
  core::Time queuing;
  for (runtime::LaunchId i = 0; i < session.launches(); ++i) {
    stages += session.launch_stats(i).stages_started;
    queuing += session.launch_stats(i).chunk_queuing;
  }
  runtime::SessionReport report = session.report();
  r.endpoint_metrics = jobs::endpoint_metrics(report.endpoint, stages, queuing);
  r.links = std::move(report.links);
  r.resources = std::move(report.resources);
  return r;
}

}  // namespace collsim::jobs
