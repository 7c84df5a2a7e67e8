#include "jobs/llm_iteration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <memory>

#include "collective/algorithm.hpp"
#include "core/error.hpp"
#include "jobs/workload_runner.hpp"
#include "network/backend.hpp"
#include "runtime/session.hpp"
#include "topology/builders.hpp"
#include "topology/dim_kind.hpp"
#include "workload/llm_graph.hpp"

namespace collsim::jobs {

namespace {

using collective::Collective;
using core::Time;
using workload::LlmConfig;
using workload::PipeSchedule;
using workload::Recompute;
using workload::Zero;

// The node of a GPU's standard cluster: NVLink bandwidth per GPU and direction through the
// NVSwitch, the NICs per node and their bandwidth.
struct NodeSpec {
  std::string_view gpu;
  std::string_view node;
  core::Bandwidth nvlink;
  std::uint32_t nics;
  core::Bandwidth nic;
  std::string_view source;
};

const NodeSpec& node_spec(std::string_view gpu) {
  static const NodeSpec specs[] = {
      {"a100-40gb", "DGX A100", core::Bandwidth{300e9}, 8, core::Bandwidth{25e9},
       "NVIDIA DGX A100 user guide: 12 NVLink3 links x 25 GB/s per direction per GPU through "
       "NVSwitch, 8 ConnectX-6 200 Gb/s HDR InfiniBand NICs"},
      {"a100-80gb", "DGX A100", core::Bandwidth{300e9}, 8, core::Bandwidth{25e9},
       "NVIDIA DGX A100 user guide: 12 NVLink3 links x 25 GB/s per direction per GPU through "
       "NVSwitch, 8 ConnectX-6 200 Gb/s HDR InfiniBand NICs"},
      {"h100-sxm", "DGX H100", core::Bandwidth{450e9}, 8, core::Bandwidth{50e9},
       "NVIDIA DGX H100 user guide: 18 NVLink4 links x 25 GB/s per direction per GPU, 8 "
       "ConnectX-7 400 Gb/s NDR InfiniBand NICs"},
      {"h200-sxm", "DGX H200", core::Bandwidth{450e9}, 8, core::Bandwidth{50e9},
       "NVIDIA DGX H200 datasheet: NVLink4 900 GB/s per GPU (both directions), 8 x 400 Gb/s"},
      {"b200", "DGX B200", core::Bandwidth{900e9}, 8, core::Bandwidth{50e9},
       "NVIDIA DGX B200 datasheet: NVLink5 1.8 TB/s per GPU (both directions), 8 x 400 Gb/s"},
  };
  for (const NodeSpec& s : specs) {
    if (s.gpu == gpu) return s;
  }
  return specs[1];
}

// t x k, rounded; core::InputError beyond the simulation horizon.
Time scale(Time t, double k) {
  return core::time_from_user(static_cast<double>(t.ps) * k, 1, "llm: a pass's time");
}

}  // namespace

double default_matmul_efficiency(const compute::GpuSpec&) { return kMatmulEfficiency; }

std::string hier_spec(const topology::Topology& t) {
  // Dimensions of one link each way per NPU (links_per_npu 0, the natural count) only: the hier
  // form with each dimension's link (topology/hierarchical.cpp) builds exactly those.
  if (t.name().rfind("hier:", 0) != 0 || t.dimensions().empty()) return t.name();
  std::string kinds, bws, lats;
  for (const auto& dim : t.dimensions()) {
    const topology::DimSpec& d = dim.spec;
    const auto natural = topology::traits(d.kind).natural_links_per_npu;
    if (d.links_per_npu != 0 && (!natural || d.links_per_npu != natural(d.size))) return t.name();
    kinds += fmt::format("{}{}{}", kinds.empty() ? "" : "x", topology::to_string(d.kind), d.size);
    bws += fmt::format("{}{}GB/s", bws.empty() ? "" : ",", d.bandwidth.bytes_per_s / 1e9);
    lats += fmt::format("{}{}ns", lats.empty() ? "" : ",", d.latency.ns());
  }
  return fmt::format("hier:{}:bw={}:lat={}", kinds, bws, lats);
}

LlmCluster llm_cluster(const LlmConfig& c, const compute::GpuSpec& gpu) {
  const std::uint32_t n = c.parallel.gpus();
  LlmCluster out;
  if (c.system.platform) {
    const auto& pl = *c.system.platform;
    out.topology = topology::from_compact(pl.topology, pl.link_bandwidth, pl.link_latency,
                                          "system.platform.topology");
    if (out.topology.num_npus() < n) {
      throw core::InputError(fmt::format(
          "system.platform.topology: {} has {} NPUs; the job needs tp x cp x dp x pp = {}",
          out.topology.name(), out.topology.num_npus(), n));
    }
    out.description = fmt::format("{} ({} NPUs, links {}, {})", out.topology.name(),
                                  out.topology.num_npus(), core::to_string(pl.link_bandwidth),
                                  core::to_string(pl.link_latency));
    out.spec = fmt::format("{} --link-bandwidth \"{}\" --link-latency \"{}\"", pl.topology,
                           core::to_string(pl.link_bandwidth), core::to_string(pl.link_latency));
    return out;
  }
  const NodeSpec& node = node_spec(gpu.name);
  const std::uint32_t gpn = c.system.gpus_per_node;
  const std::uint32_t nics = c.system.nics_per_node.value_or(node.nics);
  const core::Bandwidth nic = c.system.nic_bandwidth.value_or(node.nic);
  const std::uint32_t nodes = (n + gpn - 1) / gpn;
  // Each GPU's share of its node's NICs on its rail (nics x bandwidth / gpus_per_node).
  const core::Bandwidth per_gpu{nic.bytes_per_s * nics / gpn};
  const Time nvswitch_latency = Time::from_ns(500), ib_latency = Time::from_ns(2000);
  std::vector<topology::DimSpec> dims;
  if (nodes == 1) {
    dims.push_back({topology::DimKind::Switch, std::max(2u, n), node.nvlink, nvswitch_latency, 0});
  } else {
    if (gpn >= 2) dims.push_back({topology::DimKind::Switch, gpn, node.nvlink, nvswitch_latency, 0});
    dims.push_back({topology::DimKind::Switch, nodes, per_gpu, ib_latency, 0});
  }
  out.topology = topology::hierarchical(dims);
  out.standard = true;
  out.spec = hier_spec(out.topology);
  out.description = fmt::format(
      "{} node{} of {} x {} ({}: NVSwitch {} per GPU and direction, {} ns){}", nodes,
      nodes == 1 ? "" : "s", nodes == 1 ? std::min(n, gpn) : gpn, gpu.name, node.node,
      core::to_string(node.nvlink), nvswitch_latency.ns(),
      nodes == 1 ? std::string()
                 : fmt::format("; {} x {} NICs per node, rail-optimised InfiniBand ({} per GPU "
                               "on its rail, {} ns)",
                               nics, core::to_string(nic), core::to_string(per_gpu),
                               ib_latency.ns()));
  return out;
}

namespace {

// The schedule alone: every stage runs its ops in order, an op starting when the stage is free
// and the op before it in the pipeline (same micro-batch, the previous virtual stage; backward:
// the next) has ended. `dur(s, k)` is op k's time on stage s. Per stage: busy time and the end
// of its last op. No simulation: a longest-path pass over the schedule's graph.
struct StageSpan {
  Time busy, end;
};
std::vector<StageSpan> schedule_alone(const workload::LlmParallel& p,
                                      const std::vector<std::vector<workload::LlmOp>>& ops,
                                      const std::function<Time(std::uint32_t, std::size_t)>& dur) {
  const std::uint32_t V = p.pp * p.vpp, m = p.micro_batches();
  std::vector<Time> fwd_end(static_cast<std::size_t>(V) * m), bwd_end(fwd_end.size());
  std::vector<std::uint8_t> fwd_done(fwd_end.size(), 0), bwd_done(fwd_end.size(), 0);
  std::vector<std::size_t> next(p.pp, 0);
  std::vector<StageSpan> out(p.pp);
  std::size_t left = 0;
  for (const auto& o : ops) left += o.size();
  while (left > 0) {
    bool progress = false;
    for (std::uint32_t s = 0; s < p.pp; ++s) {
      while (next[s] < ops[s].size()) {
        const workload::LlmOp& op = ops[s][next[s]];
        const std::uint32_t v = op.chunk * p.pp + s;
        Time ready = out[s].end;
        if (!op.backward && v > 0) {
          const std::size_t k = static_cast<std::size_t>(v - 1) * m + op.micro_batch;
          if (!fwd_done[k]) break;
          ready = std::max(ready, fwd_end[k]);
        }
        if (op.backward && v + 1 < V) {
          const std::size_t k = static_cast<std::size_t>(v + 1) * m + op.micro_batch;
          if (!bwd_done[k]) break;
          ready = std::max(ready, bwd_end[k]);
        }
        const Time d = dur(s, next[s]);
        out[s].busy += d;
        out[s].end = ready + d;
        const std::size_t k = static_cast<std::size_t>(v) * m + op.micro_batch;
        (op.backward ? bwd_end : fwd_end)[k] = out[s].end;
        (op.backward ? bwd_done : fwd_done)[k] = 1;
        ++next[s];
        --left;
        progress = true;
      }
    }
    if (!progress) {
      throw core::SimulationError("llm: the pipeline schedule deadlocks (no stage can go on)");
    }
  }
  return out;
}

// The compute model's per-layer times split around the tensor-parallel collectives.
workload::LlmLayerTimes layer_times(const LlmConfig& c, const LlmCosts& k) {
  workload::LlmLayerTimes t;
  t.fwd_attention = k.attention_fwd;
  t.fwd_mlp = k.fwd.time - k.attention_fwd;
  // Selective recomputation redoes the attention core before the attention's backward (full
  // recomputation is the graph's: the layer's forward again, collectives included).
  t.bwd_attention = k.attention_bwd;
  t.bwd_mlp = k.bwd.time - k.attention_bwd;
  if (c.parallel.recompute == Recompute::Selective) t.bwd_attention += k.recompute.time;
  t.attention_core = k.attention_core_fwd;
  return t;
}

// Parameters per stage for the optimizer step, and its time.
std::vector<Time> optimizer_times(const LlmConfig& c, const LlmCosts& k) {
  const auto& p = c.parallel;
  const std::uint32_t V = p.pp * p.vpp, per_chunk = c.model.layers / V;
  const double shard = static_cast<double>(p.cp) * p.dp;
  std::vector<Time> out(p.pp);
  for (std::uint32_t s = 0; s < p.pp; ++s) {
    double params = 0, expert_params = 0;
    for (std::uint32_t ch = 0; ch < p.vpp; ++ch) {
      const std::uint32_t v = ch * p.pp + s;
      params += per_chunk * k.layer_dense_params + ((v == 0 || v == V - 1) ? k.embed_params : 0);
      expert_params += per_chunk * k.layer_expert_params;
    }
    // Expert parameters are sharded over their own data-parallel group (dp x cp / ep).
    const double opt = p.zero == Zero::None ? params + expert_params
                                            : params / shard + expert_params * p.ep / shard;
    out[s] = optimizer_time(opt, k);
  }
  return out;
}

workload::LlmGraphInput graph_input(const LlmConfig& c, const LlmCosts& k, bool one_rail) {
  workload::LlmGraphInput in;
  in.parallel = c.parallel;
  in.layers = c.model.layers;
  in.moe = c.model.experts > 0;
  in.layer = layer_times(c, k);
  in.embed_fwd = k.embed_fwd.time;
  in.embed_bwd = k.embed_bwd.time;
  in.head_fwd = k.head_fwd.time;
  in.head_bwd = k.head_bwd.time;
  in.tp_bytes = k.tp_bytes;
  in.tp_per_pass = k.tp_per_pass;
  in.pp_bytes = k.pp_bytes;
  in.ep_bytes = k.ep_bytes;
  in.cp_bytes = k.cp_bytes;
  in.layer_dense_params = k.layer_dense_params;
  in.layer_expert_params = k.layer_expert_params;
  in.embed_params = k.embed_params;
  in.optimizer = optimizer_times(c, k);
  in.one_rail = one_rail;
  return in;
}

// Each op's compute alone (no communication): the schedule's own bubble.
Time op_compute(const LlmConfig& c, const LlmCosts& k, const workload::LlmOp& op,
                std::uint32_t v) {
  const auto& p = c.parallel;
  const std::uint32_t V = p.pp * p.vpp;
  const double L = c.model.layers / V;
  Time t = op.backward ? scale(k.bwd.time + k.recompute.time, L) : scale(k.fwd.time, L);
  if (v == 0) t += op.backward ? k.embed_bwd.time : k.embed_fwd.time;
  if (v == V - 1) t += op.backward ? k.head_bwd.time : k.head_fwd.time;
  return t;
}

}  // namespace

LlmResult simulate_llm(const LlmConfig& c, bool keep_timeline, const LlmMachine* machine,
                       std::uint64_t max_work) {
  LlmRunOptions o;
  o.keep_timeline = keep_timeline;
  o.machine = machine;
  o.max_work = max_work;
  return simulate_llm(c, o);
}

LlmResult simulate_llm(const LlmConfig& c, const LlmRunOptions& options) {
  const bool keep_timeline = options.keep_timeline;
  const LlmMachine* machine = options.machine;
  const std::uint64_t max_work = options.max_work;
  const auto& p = c.parallel;
  const auto& m = c.model;
  const compute::GpuSpec& gpu = compute::find_gpu(c.system.gpu, "system.gpu");
  const double eff = c.system.matmul_efficiency.value_or(default_matmul_efficiency(gpu));
  const LlmCosts k = llm_costs(c, gpu, eff);
  const std::uint32_t gpus = p.gpus();

  LlmResult res;
  res.model = m.name;
  res.gpu = std::string(gpu.name);
  res.gpus = gpus;
  res.micro_batches = p.micro_batches();
  res.matmul_efficiency = eff;
  res.gpu_memory = static_cast<double>(gpu.memory.count);
  res.memory = llm_memory(c, k);

  LlmCluster cluster;
  if (machine && machine->topology) {
    if (machine->topology->num_npus() < gpus) {
      throw core::InputError(fmt::format(
          "platform {}: {} NPUs; the LLM job needs tp x cp x dp x pp = {}", machine->name,
          machine->topology->num_npus(), gpus));
    }
    cluster.topology = *machine->topology;
    cluster.description = fmt::format("platform {} ({}, {} NPUs)", machine->name,
                                      machine->topology->name(), machine->topology->num_npus());
    cluster.spec = hier_spec(*machine->topology);
  } else {
    cluster = llm_cluster(c, gpu);
  }
  res.cluster = cluster.description;
  res.topology = cluster.spec;
  const network::BackendInfo& backend =
      machine && machine->backend ? *machine->backend
                                  : network::find_backend(c.system.backend, "system.backend");
  const network::BackendOptions backend_options =
      machine ? machine->backend_options : network::BackendOptions{};

  // One TP rank stands for its group's others where their traffic meets nothing else: on the
  // standard cluster, when TP groups fill whole nodes (every other group then crosses nodes on
  // the rails, each GPU on its own). With smaller TP groups, data-parallel peers share a node
  // and its NVSwitch ports with the TP collectives of every rank, so every rank is walked.
  const bool one_rail = cluster.standard && !options.all_ranks &&
                        (p.tp == 1 || p.tp % c.system.gpus_per_node == 0);
  workload::LlmGraphInput gi = graph_input(c, k, one_rail);
  gi.all_ranks = options.all_ranks;
  // TP groups each filling a node: only TP traffic crosses the NVSwitch (every other group's
  // members sit at one GPU index on their rails), so one TP collective of a kind stands for all.
  gi.tp_alone = cluster.standard && p.tp > 1 && p.tp == c.system.gpus_per_node;
  workload::LlmGraph lg = workload::llm_graph(gi);
  lg.graph.name = fmt::format("llm {}", m.name);
  WorkloadRunOptions ro;
  const collective::AlgorithmChoice algo =
      collective::parse_algorithm(c.system.algorithm, "system.algorithm");
  for (const collective::Collective cc : collective::all_collectives()) ro.algorithms[cc] = algo;
  ro.record = true;
  ro.each_kind_once = options.each_kind_once;
  {  // The guard: the iteration's messages (or the backend's own unit of work) before running.
    std::uint64_t bytes = 0;
    const scheduler::WorkEstimate e = estimate_workload(cluster.topology, lg.graph, ro, &bytes);
    const std::uint64_t w =
        backend.work ? backend.work(backend_options, e.messages, bytes) : e.messages;
    if (w > max_work) {
      const char* unit = backend.work_unit ? backend.work_unit(backend_options) : "messages";
      throw core::ResourceError(fmt::format(
          "llm: the iteration's collectives and pipeline messages come to {}, more than {} {} "
          "on the {} backend (--max-messages {}); raise --max-messages, or use a backend that "
          "simulates less (flow, analytical)",
          w, max_work, unit, backend.name, max_work));
    }
  }
  runtime::MachineSpec spec;
  spec.topology = &cluster.topology;
  spec.backend = &backend;
  spec.backend_options = backend_options;
  runtime::Session session(spec);
  if (options.progress) {
    ro.tick = [&] { options.progress(session.now(), session.sim().events_processed()); };
  }
  const WorkloadResult wr = run_workload(session, lg.graph, ro);
  res.messages = wr.messages;
  res.events = wr.events;

  // The split of the iteration on the stage that finishes last.
  std::uint32_t crit = 0;
  for (std::uint32_t s = 0; s < p.pp; ++s) {
    if (wr.timelines[lg.stage_timeline[s]].finish > wr.timelines[lg.stage_timeline[crit]].finish) {
      crit = s;
    }
  }
  res.critical_stage = crit;
  res.iteration = wr.total;
  const TimelineTimes& tt = wr.timelines[lg.stage_timeline[crit]];
  res.compute = tt.busy[lg.c_compute];
  res.optimizer = tt.busy[lg.c_optimizer];
  res.tp = tt.exposed[lg.c_tp];
  res.ep = tt.exposed[lg.c_ep];
  res.cp = tt.exposed[lg.c_cp];
  res.dp = tt.exposed[lg.c_dp];
  // Waiting for the previous stage: the schedule's own bubble (the same ops, as long as they
  // took, with no time between stages), and the rest that the messages cost.
  const auto& times = wr.nodes;
  std::vector<std::vector<workload::LlmOp>> stage_ops;
  for (std::uint32_t s = 0; s < p.pp; ++s) stage_ops.push_back(lg.ops[lg.stage_timeline[s]]);
  const auto op_time = [&](std::uint32_t s, std::size_t i) {
    const workload::LlmOp& op = stage_ops[s][i];
    const auto& tl = times[lg.stage_timeline[s]];
    return tl[op.last].end - tl[op.first].end;
  };
  const std::vector<StageSpan> alone = schedule_alone(p, stage_ops, op_time);
  const Time waited = tt.exposed[lg.c_pp] + tt.idle;
  const Time ideal_idle = alone[crit].end - alone[crit].busy;
  res.bubble = std::min(waited, ideal_idle);
  res.pp = waited - res.bubble;

  const double secs = res.iteration.seconds();
  res.tokens_per_s = static_cast<double>(p.global_batch) * m.seq_len / secs;
  res.tflops_per_gpu = k.hardware_flops / secs / gpus / 1e12;
  res.model_tflops_per_gpu = k.model_flops / secs / gpus / 1e12;
  res.mfu = k.model_flops / secs / gpus / gpu.peak_16bit;
  if (keep_timeline) {
    res.timeline.resize(p.pp);
    for (std::uint32_t s = 0; s < p.pp; ++s) {
      const auto& tl = times[lg.stage_timeline[s]];
      for (const workload::LlmOp& op : stage_ops[s]) {
        res.timeline[s].push_back({op.backward ? 'B' : 'F', op.micro_batch, op.chunk,
                                   tl[op.first].end, tl[op.last].end});
      }
    }
  }
  if (options.graph) *options.graph = std::move(lg.graph);
  return res;
}

double compute_only_bubble_fraction(const LlmConfig& c) {
  const compute::GpuSpec& gpu = compute::find_gpu(c.system.gpu, "system.gpu");
  const double eff = c.system.matmul_efficiency.value_or(default_matmul_efficiency(gpu));
  const LlmCosts k = llm_costs(c, gpu, eff);
  const auto& p = c.parallel;
  std::vector<std::vector<workload::LlmOp>> ops(p.pp);
  for (std::uint32_t s = 0; s < p.pp; ++s) ops[s] = workload::stage_schedule(p, s);
  const std::vector<StageSpan> st = schedule_alone(p, ops, [&](std::uint32_t s, std::size_t i) {
    const workload::LlmOp& op = ops[s][i];
    return op_compute(c, k, op, op.chunk * p.pp + s);
  });
  return 1.0 - static_cast<double>(st[0].busy.ps) / static_cast<double>(st[0].end.ps);
}

}  // namespace collsim::jobs
