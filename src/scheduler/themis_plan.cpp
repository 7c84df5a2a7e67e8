#include "scheduler/themis_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/error.hpp"

namespace collsim::scheduler {

const char* to_string(InterDimPolicy p) {
  return p == InterDimPolicy::Themis            ? "themis"
         : p == InterDimPolicy::PerDimAllReduce ? "per-dim-all-reduce"
         : p == InterDimPolicy::AstraLocalBw    ? "astra-localbw"
         : p == InterDimPolicy::AceTable5       ? "ace"
                                                : "baseline";
}

InterDimPolicy parse_inter_dim_policy(std::string_view text, std::string_view field) {
  if (text == "baseline") return InterDimPolicy::Baseline;
  if (text == "themis") return InterDimPolicy::Themis;
  if (text == "per-dim-all-reduce") return InterDimPolicy::PerDimAllReduce;
  if (text == "astra-localbw") return InterDimPolicy::AstraLocalBw;
  if (text == "ace") return InterDimPolicy::AceTable5;
  throw core::InputError(fmt::format(
      "{}: unknown schedule \"{}\"; valid: baseline (dims 1..D for every chunk), themis "
      "(Themis Algorithm 1: least-loaded dimension first), per-dim-all-reduce (a full all-reduce "
      "in each dimension: the authors' ASTRA-sim baseline), astra-localbw (RS over dims 1..D-1, "
      "an all-reduce on D, AG back: ASTRA-sim 2.x's localBWAware), ace (RS on dim 1, an "
      "all-reduce on each other dimension, AG on dim 1: ACE Table 5)",
      field, text));
}

double stage_load(const DimModel& dim, collective::Collective op, double bytes) {
  const double p = dim.size;
  using collective::Collective;
  const double sent = op == Collective::ReduceScatter || op == Collective::AllToAll
                          ? bytes * (p - 1) / p
                      : op == Collective::AllGather ? bytes * (p - 1)
                                                    : 2 * bytes * (p - 1) / p;
  return sent / dim.bandwidth.bytes_per_s;
}

double after_stage(collective::Collective op, std::uint32_t size, double bytes) {
  return op == collective::Collective::ReduceScatter ? bytes / size
         : op == collective::Collective::AllGather   ? bytes * size
                                                     : bytes;
}

namespace {

// Walks `order` from a chunk of `bytes` per NPU, adding each stage's load; returns the bytes per
// NPU after the last stage.
double charge(const std::vector<DimModel>& dims, const std::vector<std::uint32_t>& order,
              collective::Collective op, double bytes, std::vector<double>& loads) {
  for (std::uint32_t d : order) {
    loads[d] += stage_load(dims[d], op, bytes);
    bytes = after_stage(op, dims[d].size, bytes);
  }
  return bytes;
}

}  // namespace

Plan plan_chunks(const std::vector<DimModel>& dims, collective::Collective c, core::Bytes size,
                 std::uint32_t chunks, InterDimPolicy policy) {
  if (chunks == 0) throw core::InputError("chunks: must be >= 1, got 0");
  std::vector<std::uint32_t> involved;  // dimensions of size > 1, innermost first
  for (std::uint32_t d = 0; d < dims.size(); ++d) {
    if (dims[d].size > 1) involved.push_back(d);
  }
  if (involved.empty()) throw core::InputError("hierarchical: the platform has no dimension");
  Plan plan;
  plan.loads.assign(dims.size(), 0.0);
  for (std::uint32_t d : involved) plan.loads[d] = dims[d].fixed_delay.seconds();

  const bool gather_only = c == collective::Collective::AllGather;
  // Bytes per NPU of one chunk when its first stage starts: an all-gather starts from the NPU's
  // own share of the gathered chunk.
  double chunk = static_cast<double>(size.count) / chunks;
  if (gather_only) {
    for (std::uint32_t d : involved) chunk /= dims[d].size;
  }
  for (std::uint32_t i = 0; i < chunks; ++i) {
    std::vector<std::uint32_t> order = involved;  // the baseline: dim 1 first
    if (gather_only) std::reverse(order.begin(), order.end());
    if (policy == InterDimPolicy::Themis) {
      auto [lo, hi] = std::minmax_element(
          involved.begin(), involved.end(),
          [&](std::uint32_t a, std::uint32_t b) { return plan.loads[a] < plan.loads[b]; });
      // Sec. 5.3: the predicted time of an RS of chunkSize / 16 on the least-loaded dimension.
      const double threshold =
          stage_load(dims[*lo], collective::Collective::ReduceScatter, chunk / 16);
      if (plan.loads[*hi] - plan.loads[*lo] >= threshold) {
        std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
          return gather_only ? plan.loads[a] > plan.loads[b] : plan.loads[a] < plan.loads[b];
        });
      }
    }
    using collective::Collective;
    ChunkPlan cp;
    cp.dims = order;
    if (gather_only) {
      charge(dims, order, Collective::AllGather, chunk, plan.loads);
      cp.ops.assign(order.size(), Collective::AllGather);
    } else if (c == Collective::AllToAll) {
      // ACE Table 5: an all-to-all in every dimension; the per-NPU bytes do not change.
      charge(dims, order, Collective::AllToAll, chunk, plan.loads);
      cp.ops.assign(order.size(), Collective::AllToAll);
    } else if (c == Collective::AllReduce && policy == InterDimPolicy::PerDimAllReduce) {
      charge(dims, order, Collective::AllReduce, chunk, plan.loads);
      cp.ops.assign(order.size(), Collective::AllReduce);
    } else if (c == Collective::AllReduce && policy == InterDimPolicy::AstraLocalBw) {
      // RS on every dimension but the last, the last as one all-reduce, AG back.
      std::vector<std::uint32_t> inner(order.begin(), order.end() - 1);
      const double reduced = charge(dims, inner, Collective::ReduceScatter, chunk, plan.loads);
      charge(dims, {order.back()}, Collective::AllReduce, reduced, plan.loads);
      std::vector<std::uint32_t> back(inner.rbegin(), inner.rend());
      charge(dims, back, Collective::AllGather, reduced, plan.loads);
      cp.dims = inner;
      cp.ops.assign(inner.size(), Collective::ReduceScatter);
      cp.dims.push_back(order.back());
      cp.ops.push_back(Collective::AllReduce);
      cp.dims.insert(cp.dims.end(), back.begin(), back.end());
      cp.ops.insert(cp.ops.end(), back.size(), Collective::AllGather);
    } else if (c == Collective::AllReduce && policy == InterDimPolicy::AceTable5 &&
               order.size() > 1) {
      // ACE Table 5: RS in the package (dim 1), an all-reduce on each outer dimension, AG back in
      // the package.
      const std::uint32_t local = order.front();
      const double reduced = charge(dims, {local}, Collective::ReduceScatter, chunk, plan.loads);
      const std::vector<std::uint32_t> outer(order.begin() + 1, order.end());
      charge(dims, outer, Collective::AllReduce, reduced, plan.loads);
      charge(dims, {local}, Collective::AllGather, reduced, plan.loads);
      cp.dims = {local};
      cp.ops = {Collective::ReduceScatter};
      cp.dims.insert(cp.dims.end(), outer.begin(), outer.end());
      cp.ops.insert(cp.ops.end(), outer.size(), Collective::AllReduce);
      cp.dims.push_back(local);
      cp.ops.push_back(Collective::AllGather);
    } else {
      const double reduced = charge(dims, order, Collective::ReduceScatter, chunk, plan.loads);
      cp.ops.assign(order.size(), Collective::ReduceScatter);
      if (c == Collective::AllReduce) {
        std::vector<std::uint32_t> back(order.rbegin(), order.rend());
        charge(dims, back, Collective::AllGather, reduced, plan.loads);
        cp.dims.insert(cp.dims.end(), back.begin(), back.end());
        cp.ops.insert(cp.ops.end(), back.size(), Collective::AllGather);
      }
    }
    plan.chunks.push_back(std::move(cp));
  }
  return plan;
}

}  // namespace collsim::scheduler
