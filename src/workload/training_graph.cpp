// The training generator (workload/training_graph.hpp).
#include "workload/training_graph.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace collsim::workload {

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

std::vector<collective::Communicator> scope_groups(const topology::Topology& topo, std::uint32_t m,
                                                   Scope s) {
  const std::uint32_t n = topo.num_npus();
  if (m == 0) m = n;
  const bool whole = s == Scope::All || (s == Scope::ModelParallel && m == n) ||
                     (s == Scope::DataParallel && m == 1);
  if (whole) return {collective::whole(topo)};
  std::vector<collective::Communicator> out;
  if (s == Scope::ModelParallel) {
    for (std::uint32_t k = 0; k < n / m; ++k) {
      collective::Communicator c{{}, fmt::format("model[{}]", k)};
      for (std::uint32_t r = 0; r < m; ++r) c.npus.push_back(k * m + r);
      out.push_back(std::move(c));
    }
  } else {
    for (std::uint32_t r = 0; r < m; ++r) {
      collective::Communicator c{{}, fmt::format("data[{}]", r)};
      for (std::uint32_t k = 0; k < n / m; ++k) c.npus.push_back(k * m + r);
      out.push_back(std::move(c));
    }
  }
  return out;
}

std::optional<std::vector<std::uint32_t>> scope_dims(const topology::Topology& topo,
                                                     std::uint32_t m, Scope s) {
  const std::uint32_t n = topo.num_npus();
  if (m == 0) m = n;
  if (s == Scope::All || (s == Scope::ModelParallel && m == n) ||
      (s == Scope::DataParallel && m == 1)) {
    return std::vector<std::uint32_t>{};
  }
  const auto& dims = topo.dimensions();
  std::uint32_t inner = 0, product = 1;
  while (inner < dims.size() && product < m) product *= dims[inner++].spec.size;
  if (product != m) return std::nullopt;
  std::vector<std::uint32_t> out;
  for (std::uint32_t d = 0; d < dims.size(); ++d) {
    if ((d < inner) == (s == Scope::ModelParallel)) out.push_back(d);
  }
  return out;
}

namespace {

class Builder {
 public:
  Builder(const Workload& w, const topology::Topology& topo, const TrainingGraphOptions& o)
      : w_(w), topo_(topo), o_(o), b_(program()) {
    Graph& g = out_.graph;
    g.name = w.name;
    g.source = w.source;
    g.spmd = true;
    g.timelines.push_back({0, 0, {}});
    g.programs.front().source = fmt::format("training {}", w.name);
    compute_ = g.stream("compute");
    const bool queued = !o.ideal && !o.staged;
    for (std::size_t s = 0; s < 3; ++s) {
      const auto scope = static_cast<Scope>(s);
      scope_stream_[s] = queued ? g.stream(fmt::format("comm:{}", to_string(scope)), true,
                                           o.order == IssueOrder::Lifo)
                                : g.stream("comm", false);
    }
    c_compute_ = g.category("compute");
    for (std::size_t p = 0; p < kPasses; ++p) {
      c_pass_[p] = g.category(to_string(static_cast<Pass>(p)));
    }
    c_marker_ = g.category("iteration");
    m_ = w.model_parallel_npus == 0 ? topo.num_npus() : w.model_parallel_npus;
    latest_.assign(w.layers.size(), {kNone, kNone, kNone});
  }

  TrainingGraph build() {
    if (o_.iterations == 0) throw core::InputError("iterations: must be >= 1, got 0");
    for (std::uint32_t k = 0; k < o_.iterations; ++k) iteration(k == 0);
    tail();
    return std::move(out_);
  }

 private:
  Program& program() {
    out_.graph.programs.emplace_back();
    return out_.graph.programs.back();
  }

  std::uint32_t group(Scope s) {
    auto& slot = groups_[static_cast<std::size_t>(s)];
    if (slot != kNone) return slot;
    Group gr;
    gr.name = to_string(s);
    gr.participants = {0};
    if (o_.ideal) {
      gr.dims = scope_dims(topo_, m_, s).value_or(std::vector<std::uint32_t>{});
    } else if (o_.staged) {
      const auto dims = scope_dims(topo_, m_, s);
      if (!dims) {
        throw core::InputError(fmt::format(
            "a hierarchical {} collective needs the model-parallel group ({} NPUs) to be the "
            "innermost dimensions of {}; no prefix of its dimensions has {} NPUs",
            to_string(s), m_, topo_.name(), m_));
      }
      gr.dims = *dims;
    } else {
      gr.comms = scope_groups(topo_, m_, s);
    }
    out_.graph.groups.push_back(std::move(gr));
    slot = static_cast<std::uint32_t>(out_.graph.groups.size() - 1);
    return slot;
  }

  std::uint32_t add(Node n, TrainingNodeInfo info) {
    const std::uint32_t i = b_.add(n, frontier_);
    out_.info.push_back(info);
    return i;
  }

  void compute(std::uint32_t layer, core::Time t, Pass p, bool update = false) {
    if (t.ps == 0) return;
    Node n;
    n.kind = NodeKind::Compute;
    n.stream = static_cast<std::uint16_t>(compute_);
    n.category = c_compute_;
    n.duration = t;
    const std::uint32_t i =
        add(n, {TrainingNodeInfo::Kind::Compute, layer, p, update});
    frontier_.assign(1, i);
  }

  void issue(std::uint32_t layer, Pass p) {
    const Comm& c = w_.layers[layer].comm[static_cast<std::size_t>(p)];
    Node n;
    n.kind = NodeKind::Collective;
    n.collective = *c.collective;
    n.bytes = c.size.count;
    n.group = group(c.scope);
    n.stream = static_cast<std::uint16_t>(scope_stream_[static_cast<std::size_t>(c.scope)]);
    n.category = c_pass_[static_cast<std::size_t>(p)];
    n.name = out_.graph.intern(fmt::format("{} {} {}", w_.layers[layer].name, to_string(p),
                                           collective::to_string(*c.collective)));
    latest_[layer][static_cast<std::size_t>(p)] =
        add(n, {TrainingNodeInfo::Kind::Collective, layer, p, false});
  }

  void wait(std::uint32_t layer, Pass p) {
    const std::uint32_t i = latest_[layer][static_cast<std::size_t>(p)];
    if (i != kNone) frontier_.push_back(i);
  }

  void comm(std::uint32_t i, Pass p, bool blocking) {
    const Comm& c = w_.layers[i].comm[static_cast<std::size_t>(p)];
    if (!c.collective) return;
    issue(i, p);
    if (blocking && !c.overlapped) wait(i, p);
  }

  void end_iteration() {
    Node n;
    n.kind = NodeKind::Delay;
    n.stream = static_cast<std::uint16_t>(compute_);
    n.category = c_marker_;
    const std::uint32_t i = add(n, {TrainingNodeInfo::Kind::IterationEnd, 0, Pass::Forward});
    out_.iteration_ends.push_back(i);
    frontier_.assign(1, i);
  }

  void iteration(bool first) {
    const auto n = static_cast<std::uint32_t>(w_.layers.size());
    // Overlapped forward collectives by the later layer that needs them (earlier layers first).
    std::vector<std::vector<std::uint32_t>> needed(n);
    for (std::uint32_t j = 0; j < n; ++j) {
      const Comm& f = w_.layers[j].comm[0];
      if (f.collective && f.overlapped && f.needed_before > j && f.needed_before < n) {
        needed[f.needed_before].push_back(j);
      }
    }
    for (std::uint32_t i = 0; i < n; ++i) {
      const Layer& l = w_.layers[i];
      for (std::uint32_t j : needed[i]) wait(j, Pass::Forward);
      if (!first && l.comm[2].collective) wait(i, Pass::WeightGradient);
      if (!first && l.comm[1].collective && l.comm[1].overlapped) wait(i, Pass::InputGradient);
      if (!first) compute(i, l.update, Pass::WeightGradient, true);
      compute(i, l.compute[0], Pass::Forward);
      comm(i, Pass::Forward, true);
    }
    for (std::uint32_t j = n; j-- > 0;) {
      const Layer& l = w_.layers[j];
      compute(j, l.compute[2], Pass::WeightGradient);
      if (o_.overlap == Overlap::Layer) comm(j, Pass::WeightGradient, false);
      compute(j, l.compute[1], Pass::InputGradient);
      comm(j, Pass::InputGradient, true);
    }
    if (o_.overlap == Overlap::None) {
      for (std::uint32_t j = n; j-- > 0;) {
        if (w_.layers[j].comm[2].collective) issue(j, Pass::WeightGradient);
      }
    }
    end_iteration();
  }

  // The last iteration's tail: every layer waits for its weight-gradient collective and updates.
  void tail() {
    for (std::uint32_t i = 0; i < w_.layers.size(); ++i) {
      const Layer& l = w_.layers[i];
      if (l.comm[1].collective && l.comm[1].overlapped) wait(i, Pass::InputGradient);
      if (!l.comm[2].collective) continue;
      wait(i, Pass::WeightGradient);
      compute(i, l.update, Pass::WeightGradient, true);
    }
    end_iteration();
  }

  const Workload& w_;
  const topology::Topology& topo_;
  const TrainingGraphOptions& o_;
  TrainingGraph out_;
  ProgramBuilder b_;
  std::uint32_t compute_ = 0, c_compute_ = 0, c_marker_ = 0;
  std::array<std::uint32_t, 3> scope_stream_{};
  std::array<std::uint32_t, kPasses> c_pass_{};
  std::array<std::uint32_t, 3> groups_{kNone, kNone, kNone};
  std::uint32_t m_ = 1;
  std::vector<std::uint32_t> frontier_;
  std::vector<std::array<std::uint32_t, kPasses>> latest_;
};

}  // namespace

TrainingGraph training_graph(const Workload& w, const topology::Topology& topo,
                             const TrainingGraphOptions& options) {
  return Builder(w, topo, options).build();
}

}  // namespace collsim::workload
