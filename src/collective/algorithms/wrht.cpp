// WRHT all-reduce (WRHT (PPoPP'23) Sec. 2; the plan is in wrht.hpp). Ranks are taken in
// communicator order as positions along the ring. Every transfer carries the whole buffer (each
// chunk's N pieces), so on the optical backend a step costs set-up + propagation + S / B when
// its wavelengths suffice:
//   reduce stage     members -> their group's middle node (RecvReduce), L - 1 levels;
//   top              all-to-all among the m* representatives (RecvReduce), or one more
//                    reduce level and its broadcast when the all-to-all does not fit in w;
//   broadcast stage  representative -> its members (Recv), the reduce levels in reverse.
#include "collective/algorithms/wrht.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "collective/algorithm.hpp"
#include "core/error.hpp"

namespace collsim::collective {

WrhtPlan wrht_plan(std::uint32_t n, std::uint32_t m, std::uint32_t w, std::uint32_t receivers) {
  WrhtPlan p;
  p.m = m > n ? n : m;
  // L = ceil(log_m N): the smallest L with m^L >= N; m^(L-1) kept for m*.
  std::uint64_t below = 1;  // m^(L-1)
  p.levels = 1;
  while (below * p.m < n) {
    below *= p.m;
    ++p.levels;
  }
  p.top_nodes = static_cast<std::uint32_t>((n + below - 1) / below);
  p.group_wavelengths = p.levels > 1 ? p.m / 2 : 0;
  const std::uint64_t a2a = (std::uint64_t{p.top_nodes} * p.top_nodes + 7) / 8;
  p.all_to_all = a2a <= w && (receivers == 0 || p.top_nodes - 1 <= receivers);
  p.top_wavelengths = p.all_to_all ? static_cast<std::uint32_t>(a2a) : p.top_nodes / 2;
  p.steps = 2 * p.levels - (p.all_to_all ? 1 : 0);
  return p;
}

namespace {
// The largest group size a plan may use.
std::uint64_t max_m(std::uint32_t n, std::uint32_t w, std::uint32_t receivers) {
  std::uint64_t hi = std::min<std::uint64_t>(n, 2 * std::uint64_t{w} + 1);
  if (receivers > 0) hi = std::min<std::uint64_t>(hi, std::uint64_t{receivers} + 1);
  return std::max<std::uint64_t>(hi, 2);
}
}  // namespace

std::uint32_t wrht_default_m(std::uint32_t n, std::uint32_t w, std::uint32_t receivers) {
  const std::uint64_t hi = max_m(n, w, receivers);
  std::uint32_t best = 2;
  std::uint32_t best_steps = wrht_plan(n, 2, w, receivers).steps;
  for (std::uint32_t m = 3; m <= hi; ++m) {
    const std::uint32_t s = wrht_plan(n, m, w, receivers).steps;
    if (s < best_steps) {
      best_steps = s;
      best = m;
    }
  }
  return best;
}

std::uint32_t wrht_stripes(const WrhtPlan& plan, std::uint32_t w) {
  const std::uint32_t need = std::max(1u, plan.wavelengths());
  return std::max(1u, w / need);
}

std::uint32_t wrht_striped_m(std::uint32_t n, std::uint32_t w, std::uint32_t receivers) {
  const std::uint64_t hi = max_m(n, w, receivers);
  std::uint32_t best = 2;
  double best_cost = 1e300;
  for (std::uint32_t m = 2; m <= hi; ++m) {
    const WrhtPlan p = wrht_plan(n, m, w, receivers);
    const double cost = double(p.steps) / wrht_stripes(p, w);
    if (cost < best_cost * (1 - 1e-12)) {
      best_cost = cost;
      best = m;
    }
  }
  return best;
}

namespace {

// The representative of group [first, first + len) of `nodes`: its middle node.
std::uint32_t middle(std::uint32_t first, std::uint32_t len) { return first + len / 2; }

// The wavelength budget: the parameter, else the optical ring's (an electrical topology has none:
// plan as for the default optical ring).
std::uint32_t wavelengths(const BuildRequest& req) {
  const auto w = static_cast<std::uint32_t>(req.params.at("wavelengths"));
  if (w != 0) return w;
  const topology::OpticalSpec* o = req.topology.optical();
  return o != nullptr ? o->wavelengths : topology::OpticalSpec{}.wavelengths;
}

Program build(const BuildRequest& req) {
  const std::uint32_t n = req.ranks();
  const std::uint32_t w = wavelengths(req);
  std::uint32_t m = static_cast<std::uint32_t>(req.params.at("m"));
  if (m == 1) throw core::InputError("algorithm wrht: m must be 0 (choose) or >= 2, got 1");
  const bool stripe = req.params.at("stripe") != 0;
  const auto rx = static_cast<std::uint32_t>(req.params.at("receivers"));
  if (m == 0) m = stripe ? wrht_striped_m(n, w, rx) : wrht_default_m(n, w, rx);
  const WrhtPlan plan = wrht_plan(n, m, w, rx);
  // Stripes are chunks on streams of their own (program.hpp), so that a rank's transfers of one
  // step go at once, each on its own lightpath; chunk c runs on stream c % stripes.
  const std::uint32_t stripes = stripe ? wrht_stripes(plan, w) : 1;
  const std::uint32_t chunks = req.chunks * stripes;

  Program p = make_program("wrht", req.collective, n, req.size, chunks);
  p.streams = stripes;
  p.ops.resize(p.num_lanes());
  auto add_step = [&](const std::vector<Transfer>& st, bool reduce) {
    auto lane = [&](Rank r, const Transfer& t) { return p.lane(r, t.first / n % stripes); };
    for (const Transfer& t : st) {
      p.ops[lane(t.from, t)].push_back(Op{Op::Kind::Send, t.to, t.first, t.count, reduce});
    }
    const Op::Kind k = reduce ? Op::Kind::RecvReduce : Op::Kind::Recv;
    for (const Transfer& t : st) p.ops[lane(t.to, t)].push_back(Op{k, t.from, t.first, t.count});
  };
  std::vector<Transfer> step;
  auto whole = [&](Rank from, Rank to, std::uint32_t c) { return Transfer{from, to, c * n, n}; };
  // levels[k]: the nodes active at reduce level k, and each one's representative.
  std::vector<Rank> active(n);
  for (Rank r = 0; r < n; ++r) active[r] = r;
  struct Level {
    std::vector<Rank> nodes;
    std::vector<Rank> rep;  // rep[i] of nodes[i]
  };
  std::vector<Level> levels;
  const std::uint32_t reduce_levels = plan.levels - 1 + (plan.all_to_all ? 0 : 1);
  for (std::uint32_t k = 0; k < reduce_levels; ++k) {
    Level lv{active, std::vector<Rank>(active.size())};
    std::vector<Rank> next;
    const std::uint32_t size = k + 1 == plan.levels ? plan.top_nodes : plan.m;
    for (std::uint32_t g = 0; g < active.size(); g += size) {
      const auto len = std::min<std::uint32_t>(size, static_cast<std::uint32_t>(active.size()) - g);
      const Rank rep = active[middle(g, len)];
      for (std::uint32_t i = g; i < g + len; ++i) lv.rep[i] = rep;
      next.push_back(rep);
    }
    step.clear();
    for (std::uint32_t c = 0; c < chunks; ++c) {
      for (std::size_t i = 0; i < lv.nodes.size(); ++i) {
        if (lv.nodes[i] != lv.rep[i]) step.push_back(whole(lv.nodes[i], lv.rep[i], c));
      }
    }
    add_step(step, true);
    levels.push_back(std::move(lv));
    active = std::move(next);
  }
  if (plan.all_to_all && active.size() > 1) {
    step.clear();
    for (std::uint32_t c = 0; c < chunks; ++c) {
      for (Rank a : active) {
        for (Rank b : active) {
          if (a != b) step.push_back(whole(a, b, c));
        }
      }
    }
    add_step(step, true);
  }
  for (auto lv = levels.rbegin(); lv != levels.rend(); ++lv) {
    step.clear();
    for (std::uint32_t c = 0; c < chunks; ++c) {
      for (std::size_t i = 0; i < lv->nodes.size(); ++i) {
        if (lv->nodes[i] != lv->rep[i]) step.push_back(whole(lv->rep[i], lv->nodes[i], c));
      }
    }
    add_step(step, false);
  }
  return p;
}

// Reduce and broadcast along the group levels: under N sends each; the top all-to-all among m*
// nodes fits the wavelengths, m*^2 <= 8 w; each transfer striped over at most w lightpaths.
ProgramSize size(const BuildRequest& req) {
  const std::uint64_t n = req.ranks();
  const std::uint64_t w = wavelengths(req);
  const std::uint64_t stripes = req.params.at("stripe") != 0 ? w : 1;
  const std::uint64_t sends = (2 * n + std::min(n * n, 8 * w + 8)) * stripes;
  return {sends, 2 * sends};
}

}  // namespace

AlgorithmInfo wrht_info() {
  AlgorithmInfo a{
      "wrht",
      "WRHT: hierarchical tree over groups of m ring neighbours, members send the whole buffer "
      "to the group's middle node on floor(m/2) wavelengths, all-to-all at the top when "
      "ceil(m*^2/8) wavelengths fit, then broadcast back; 2 ceil(log_m N) - 1 or 2 ceil(log_m N) "
      "steps",
      "WRHT (PPoPP'23) Sec. 2",
      {Collective::AllReduce},
      {count_param(
           "m", 0, 0, 1 << 20,
           "group size, >= 2; 0: the fewest steps that fit the wavelengths (smallest such m)"),
       count_param(
           "wavelengths", 0, 0, 4096,
           "wavelength budget that decides m and the top all-to-all; 0: the optical ring's (on "
           "other topologies 64)"),
       count_param(
           "receivers", 0, 0, 1 << 20,
           "lightpaths a node can sink at once (the optical backend's --receivers), which bounds m "
           "and the top all-to-all; 0: no bound"),
       count_param(
           "stripe", 0, 0, 1,
           "1: split every transfer over the wavelengths a step leaves free, floor(w / needed) "
           "lightpaths of a slice each (collsim's option, not in the poster); m then minimizes "
           "steps per stripe")},
      &build,
      /*staged=*/false,
      // Made for optical rings: "all" includes it only on a topology with wavelengths.
      [](const topology::Topology& t) { return t.optical() != nullptr; }};
  a.size = &size;
  // "all" lists the striped WRHT next to the plain one, as it does the striped ring.
  a.all_variants = [](const topology::Topology&) { return std::vector<std::string>{"stripe=1"}; };
  return a;
}

}  // namespace collsim::collective
