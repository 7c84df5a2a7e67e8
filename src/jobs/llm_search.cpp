#include "jobs/llm_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "compute/gpu_specs.hpp"
#include "core/error.hpp"
#include "jobs/llm_cost.hpp"

namespace collsim::jobs {

namespace {

using workload::LlmConfig;
using workload::LlmParallel;
using workload::Recompute;
using workload::Zero;

std::vector<std::uint32_t> divisors(std::uint32_t n) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t d = 1; d <= n; ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

template <typename T>
std::vector<T> held_or(bool given, T value, std::vector<T> all) {
  return given ? std::vector<T>{value} : all;
}

// What the kernel costs of a split depend on (the rest only changes the schedule).
using CostKey = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, bool, int>;
CostKey cost_key(const LlmParallel& p) {
  return {p.tp, p.cp, p.ep, p.micro_batch, p.sequence_parallel, static_cast<int>(p.recompute)};
}

bool better(const LlmCandidate& a, const LlmCandidate& b) {
  if (a.result.iteration != b.result.iteration) return a.result.iteration < b.result.iteration;
  return a.label < b.label;
}

}  // namespace

std::string llm_split_label(const LlmParallel& p) {
  std::string s = fmt::format("tp{} pp{} dp{}", p.tp, p.pp, p.dp);
  if (p.cp > 1) s += fmt::format(" cp{}", p.cp);
  if (p.ep > 1) s += fmt::format(" ep{}", p.ep);
  s += fmt::format(" mb{}", p.micro_batch);
  if (p.vpp > 1) s += fmt::format(" vpp{}", p.vpp);
  if (p.sequence_parallel) s += " sp";
  s += fmt::format(" zero{} {}", workload::to_string(p.zero), workload::to_string(p.recompute));
  return s;
}

double llm_gpu_memory(const LlmConfig& c) {
  if (c.system.gpu_memory) return static_cast<double>(c.system.gpu_memory->count);
  return static_cast<double>(compute::find_gpu(c.system.gpu, "system.gpu").memory.count);
}

std::vector<LlmConfig> llm_search_space(const LlmConfig& job) {
  const auto& m = job.model;
  const auto& g = job.given;
  const LlmParallel& jp = job.parallel;
  const std::uint32_t gpus = job.system.gpus ? job.system.gpus : jp.gpus();
  std::vector<std::uint32_t> tps, cps, mbs;
  for (std::uint32_t t : divisors(m.heads)) {
    if (t <= job.system.gpus_per_node && gpus % t == 0) tps.push_back(t);
  }
  for (std::uint32_t cp = 1; m.seq_len / cp >= 2048 && m.seq_len % (2 * cp) == 0 && cp <= gpus;
       cp *= 2) {
    cps.push_back(cp);
  }
  if (cps.empty()) cps.push_back(1);
  for (std::uint32_t mb : {1u, 2u, 4u, 8u, 16u}) mbs.push_back(mb);
  std::vector<LlmConfig> out;
  for (std::uint32_t tp : held_or(g.tp, jp.tp, tps)) {
    for (std::uint32_t cp : held_or(g.cp, jp.cp, cps)) {
      for (std::uint32_t pp : held_or(g.pp, jp.pp, divisors(m.layers))) {
        const std::uint64_t model = std::uint64_t{tp} * cp * pp;
        if (gpus % model != 0) continue;
        const auto dp = static_cast<std::uint32_t>(gpus / model);
        if (g.dp && dp != jp.dp) continue;
        const std::vector<std::uint32_t> eps =
            m.experts == 0 ? std::vector<std::uint32_t>{1} : divisors(m.experts);
        for (std::uint32_t ep : held_or(g.ep, jp.ep, eps)) {
          for (std::uint32_t mb : held_or(g.micro_batch, jp.micro_batch, mbs)) {
            for (std::uint32_t vpp : held_or(g.vpp, jp.vpp, divisors(m.layers / pp))) {
              for (Recompute rc : held_or(g.recompute, jp.recompute,
                                          {Recompute::None, Recompute::Selective, Recompute::Full})) {
                for (bool sp : held_or(g.sequence_parallel, jp.sequence_parallel, {false, true})) {
                  if (sp && tp == 1) continue;
                  for (Zero z : held_or(g.zero, jp.zero,
                                        {Zero::None, Zero::One, Zero::Two, Zero::Three})) {
                    LlmConfig c = job;
                    LlmParallel& p = c.parallel;
                    p.tp = tp;
                    p.cp = cp;
                    p.pp = pp;
                    p.dp = dp;
                    p.ep = ep;
                    p.micro_batch = mb;
                    p.vpp = vpp;
                    p.recompute = rc;
                    p.sequence_parallel = sp;
                    p.zero = z;
                    c.complete = true;
                    if (workload::valid_split(c)) out.push_back(std::move(c));
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  return out;
}

double llm_iteration_lower_bound(const LlmConfig& c, const LlmCosts& k) {
  const auto& p = c.parallel;
  const std::uint32_t V = p.pp * p.vpp;
  const double L = static_cast<double>(c.model.layers) / V;
  const double m = p.micro_batches();
  std::vector<double> fwd(V), bwd(V);
  for (std::uint32_t v = 0; v < V; ++v) {
    fwd[v] = L * k.fwd.time.seconds();
    bwd[v] = L * (k.bwd.time.seconds() + k.recompute.time.seconds());
    if (v == 0) {
      fwd[v] += k.embed_fwd.time.seconds();
      bwd[v] += k.embed_bwd.time.seconds();
    }
    if (v == V - 1) {
      fwd[v] += k.head_fwd.time.seconds();
      bwd[v] += k.head_bwd.time.seconds();
    }
  }
  double chain = 0, best = 0;
  for (std::uint32_t s = 0; s < p.pp; ++s) {
    double work = 0;
    for (std::uint32_t ch = 0; ch < p.vpp; ++ch) work += m * (fwd[ch * p.pp + s] + bwd[ch * p.pp + s]);
    best = std::max(best, chain + work);
    chain += fwd[s] + bwd[s];  // virtual stage s (chunk 0 of stage s) before stage s + 1
  }
  // Stage 0's optimizer step, over the parameters the iteration gives it.
  const double shard = static_cast<double>(p.dp) * p.cp;
  double params = 0, expert = 0;
  for (std::uint32_t ch = 0; ch < p.vpp; ++ch) {
    const std::uint32_t v = ch * p.pp;
    params += L * k.layer_dense_params + ((v == 0 || v == V - 1) ? k.embed_params : 0);
    expert += L * k.layer_expert_params;
  }
  const double opt =
      p.zero == Zero::None ? params + expert : params / shard + expert * p.ep / shard;
  // Less a millionth: the iteration rounds each pass to the picosecond.
  return (best + optimizer_cost(opt, k).seconds) * (1 - 1e-6);
}

LlmSearchResult search_llm(const LlmConfig& job, const LlmSearchOptions& o) {
  if (job.system.gpus == 0) {
    throw core::InputError(
        "--search: the config needs system.gpus (the job's GPU count) to search its split");
  }
  if (o.top == 0) throw core::InputError("--top: must be at least 1");
  const compute::GpuSpec& gpu = compute::find_gpu(job.system.gpu, "system.gpu");
  const double eff = job.system.matmul_efficiency.value_or(default_matmul_efficiency(gpu));
  const double capacity = llm_gpu_memory(job);
  LlmSearchResult res;
  std::map<CostKey, LlmCosts> costs;
  std::vector<LlmCandidate> fit;
  for (LlmConfig& c : llm_search_space(job)) {
    ++res.splits;
    auto it = costs.find(cost_key(c.parallel));
    if (it == costs.end()) it = costs.emplace(cost_key(c.parallel), llm_costs(c, gpu, eff)).first;
    if (llm_memory(c, it->second).total() > capacity) continue;
    LlmCandidate cand;
    cand.label = llm_split_label(c.parallel);
    cand.bound = llm_iteration_lower_bound(c, it->second);
    cand.config = std::move(c);
    fit.push_back(std::move(cand));
  }
  res.fit = fit.size();
  if (fit.empty()) {
    throw core::InputError(fmt::format(
        "--search: none of the {} splits of {} on {} x {} fits in {:.1f} GiB per GPU", res.splits,
        job.model.name, job.system.gpus, gpu.name, capacity / 1073741824.0));
  }
  std::stable_sort(fit.begin(), fit.end(), [](const LlmCandidate& a, const LlmCandidate& b) {
    if (a.bound != b.bound) return a.bound < b.bound;
    return a.label < b.label;
  });
  std::vector<LlmCandidate> top;
  std::size_t next = 0;
  while (next < fit.size()) {
    if (!o.exhaustive && top.size() == o.top &&
        fit[next].bound > top.back().result.iteration.seconds()) {
      break;
    }
    const std::size_t end = std::min(fit.size(), next + kSearchBatch);
    std::vector<LlmConfig> batch;
    for (std::size_t i = next; i < end; ++i) batch.push_back(fit[i].config);
    std::vector<LlmResult> results = o.run_batch(batch);
    for (std::size_t i = next; i < end; ++i) {
      fit[i].result = std::move(results[i - next]);
      fit[i].result.gpu_memory = capacity;
      top.push_back(std::move(fit[i]));
    }
    std::stable_sort(top.begin(), top.end(), better);
    if (top.size() > o.top) top.resize(o.top);
    res.simulated += end - next;
    next = end;
  }
  res.top = std::move(top);
  return res;
}

}  // namespace collsim::jobs
