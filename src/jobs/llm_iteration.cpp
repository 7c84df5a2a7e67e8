#include "jobs/llm_iteration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>

#include "collective/algorithm.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "network/backend.hpp"
#include "runtime/session.hpp"
#include "topology/builders.hpp"

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

// Megatron rank order: TP innermost, then CP, EP / DP, PP outermost. A communicator kind is a
// stride and a size in that order: rank g is in the group based at g - k x stride.
struct GroupKind {
  std::uint32_t stride = 1, size = 1;
  auto operator<=>(const GroupKind&) const = default;
};

class CommTimer {
 public:
  CommTimer(const topology::Topology& topo, const network::BackendInfo& backend,
            network::BackendOptions options, collective::AlgorithmChoice algo, bool one_group,
            std::uint32_t gpus, std::uint64_t max_work)
      : topo_(topo), backend_(backend), options_(std::move(options)), algo_(std::move(algo)),
        one_group_(one_group), gpus_(gpus), max_work_(max_work) {}

  // Count `messages` of `bytes` in all against the limit before simulating them.
  void charge(std::uint64_t messages, double bytes) {
    const auto b = static_cast<std::uint64_t>(std::min(bytes, 1e19));
    const std::uint64_t w = backend_.work ? backend_.work(options_, messages, b) : messages;
    work_ = w > UINT64_MAX - work_ ? UINT64_MAX : work_ + w;
    if (work_ > max_work_) {
      const char* unit = backend_.work_unit ? backend_.work_unit(options_) : "messages";
      throw core::ResourceError(fmt::format(
          "llm: the iteration's collectives and pipeline messages come to more than {} {} on the "
          "{} backend (--max-messages {}); raise --max-messages, or use a backend that simulates "
          "less (flow, analytical)",
          max_work_, unit, backend_.name, max_work_));
    }
  }

  Time collective(Collective c, GroupKind g, core::Bytes size) {
    if (g.size < 2 || size.count == 0) return Time::zero();
    const auto key = std::make_tuple(static_cast<int>(c), g.stride, g.size, size.count);
    if (const auto it = cache_.find(key); it != cache_.end()) return it->second;
    runtime::CollectiveRequest r;
    r.collective = c;
    r.algorithm = algo_;
    r.size = size;
    r.groups = groups(g);
    charge(scheduler::bound_work(algo_, topo_, r.groups, c, 1).messages,
           static_cast<double>(size.count) * collective::busbw_factor(c, g.size) * g.size *
               static_cast<double>(r.groups.size()));
    runtime::Session s(machine());
    r.label = fmt::format("{} on {} ranks", collective::to_string(c), g.size);
    const runtime::LaunchId id = s.launch(r);
    s.run();
    events_ += s.report().events;
    const Time t = s.launch_stats(id).stats.time();
    cache_.emplace(key, t);
    return t;
  }

  // Every rank of each group sends `size` to the next rank at once (a ring-attention step).
  Time ring_step(GroupKind g, core::Bytes size) {
    if (g.size < 2 || size.count == 0) return Time::zero();
    const auto key = std::make_tuple(-1, g.stride, g.size, size.count);
    if (const auto it = cache_.find(key); it != cache_.end()) return it->second;
    const auto all = groups(g);
    charge(std::uint64_t{g.size} * all.size(),
           static_cast<double>(size.count) * g.size * static_cast<double>(all.size()));
    runtime::Session s(machine());
    for (const collective::Communicator& comm : all) {
      for (std::size_t k = 0; k < comm.npus.size(); ++k) {
        s.send(comm.npus[k], comm.npus[(k + 1) % comm.npus.size()], size);
      }
    }
    s.run();
    events_ += s.report().events;
    cache_.emplace(key, s.now());
    return s.now();
  }

  std::uint64_t events() const { return events_; }

 private:
  runtime::MachineSpec machine() const {
    runtime::MachineSpec m;
    m.topology = &topo_;
    m.backend = &backend_;
    m.backend_options = options_;
    return m;
  }
  std::vector<collective::Communicator> groups(GroupKind g) const {
    std::vector<collective::Communicator> out;
    for (std::uint32_t base = 0; base < gpus_; ++base) {
      if ((base / g.stride) % g.size != 0) continue;
      if (base + std::uint64_t{g.size - 1} * g.stride >= gpus_) continue;  // ends: stage 0 only
      collective::Communicator comm;
      for (std::uint32_t k = 0; k < g.size; ++k) comm.npus.push_back(base + k * g.stride);
      comm.label = fmt::format("group@{}", base);
      out.push_back(std::move(comm));
      if (one_group_) break;  // the standard cluster's groups are symmetric: one stands for all
    }
    return out;
  }

  const topology::Topology& topo_;
  const network::BackendInfo& backend_;
  network::BackendOptions options_;
  collective::AlgorithmChoice algo_;
  bool one_group_;
  std::uint32_t gpus_;
  std::uint64_t max_work_;
  std::uint64_t work_ = 0;
  std::map<std::tuple<int, std::uint32_t, std::uint32_t, std::uint64_t>, Time> cache_;
  std::uint64_t events_ = 0;
};

// What one op (a forward or backward pass of one virtual stage for one micro-batch) costs,
// split by kind.
struct OpParts {
  Time compute, tp, ep, cp, dp;
  Time total() const { return compute + tp + ep + cp + dp; }
};

struct PipeOp {
  bool backward;
  std::uint32_t mb, chunk;
};

std::vector<PipeOp> stage_ops(const workload::LlmParallel& p, std::uint32_t s) {
  const std::uint32_t m = p.micro_batches(), pp = p.pp, vpp = p.vpp;
  std::vector<PipeOp> ops;
  if (p.schedule == PipeSchedule::GPipe) {
    for (std::uint32_t i = 0; i < m; ++i) ops.push_back({false, i, 0});
    for (std::uint32_t i = 0; i < m; ++i) ops.push_back({true, i, 0});
    return ops;
  }
  const std::uint32_t total = m * vpp;
  std::uint32_t warmup = 0;
  if (vpp == 1) {
    warmup = std::min(pp - s - 1, m);
  } else {
    warmup = std::min((pp - s - 1) * 2 + (vpp - 1) * pp, total);
  }
  const auto fwd = [&](std::uint32_t k) {
    if (vpp == 1) return PipeOp{false, k, 0};
    const std::uint32_t group = pp * vpp;
    return PipeOp{false, (k / group) * pp + k % pp, (k % group) / pp};
  };
  const auto bwd = [&](std::uint32_t k) {
    if (vpp == 1) return PipeOp{true, k, 0};
    const std::uint32_t group = pp * vpp;
    return PipeOp{true, (k / group) * pp + k % pp, vpp - 1 - (k % group) / pp};
  };
  for (std::uint32_t k = 0; k < warmup; ++k) ops.push_back(fwd(k));
  for (std::uint32_t k = 0; k < total - warmup; ++k) {
    ops.push_back(fwd(warmup + k));
    ops.push_back(bwd(k));
  }
  for (std::uint32_t k = total - warmup; k < total; ++k) ops.push_back(bwd(k));
  return ops;
}

// The pipeline of one data-parallel replica, event by event: each stage runs its ops in order,
// an op starting when the stage is free and its input has arrived.
class Pipeline final : public core::EventHandler {
 public:
  struct StageLog {
    std::vector<PipeOp> ops;
    std::vector<Time> start, end;
    std::size_t next = 0;
    bool busy = false;
    Time busy_time;
  };

  Pipeline(const workload::LlmParallel& p, const std::vector<OpParts>& fwd,
           const std::vector<OpParts>& bwd, core::Simulation& sim, runtime::Session* session,
           core::Bytes pp_bytes, std::uint32_t senders)
      : p_(p), fwd_(fwd), bwd_(bwd), sim_(sim), session_(session), bytes_(pp_bytes),
        senders_(senders), stages_(p.pp) {
    const std::uint32_t V = p.pp * p.vpp, m = p.micro_batches();
    fwd_in_.assign(static_cast<std::size_t>(V) * m, 0);
    bwd_in_.assign(static_cast<std::size_t>(V) * m, 0);
    for (std::uint32_t s = 0; s < p.pp; ++s) {
      stages_[s].ops = stage_ops(p, s);
      stages_[s].start.resize(stages_[s].ops.size());
      stages_[s].end.resize(stages_[s].ops.size());
    }
  }

  void run() {
    for (std::uint32_t s = 0; s < p_.pp; ++s) try_start(s);
    if (session_) {
      session_->run();
    } else {
      sim_.run();
    }
    for (std::uint32_t s = 0; s < p_.pp; ++s) {
      if (stages_[s].next != stages_[s].ops.size()) {
        throw core::SimulationError(fmt::format(
            "llm: pipeline stage {} stopped after {} of {} passes (a schedule deadlock)", s,
            stages_[s].next, stages_[s].ops.size()));
      }
    }
  }

  const std::vector<StageLog>& stages() const { return stages_; }
  std::uint64_t messages() const { return messages_; }

  void on_event(std::uint64_t tag) override {
    const auto s = static_cast<std::uint32_t>(tag);
    StageLog& st = stages_[s];
    const PipeOp op = st.ops[st.next];
    st.end[st.next] = sim_.now();
    st.busy = false;
    ++st.next;
    const std::uint32_t V = p_.pp * p_.vpp;
    const std::uint32_t v = op.chunk * p_.pp + s;
    if (!op.backward && v + 1 < V) deliver(s, v + 1, op.mb, false);
    if (op.backward && v > 0) deliver(s, v - 1, op.mb, true);
    try_start(s);
  }

 private:
  std::size_t slot(std::uint32_t v, std::uint32_t mb) const {
    return static_cast<std::size_t>(v) * p_.micro_batches() + mb;
  }

  void deliver(std::uint32_t from, std::uint32_t v, std::uint32_t mb, bool backward) {
    const std::uint32_t to = v % p_.pp;
    std::uint8_t& flag = (backward ? bwd_in_ : fwd_in_)[slot(v, mb)];
    if (!session_ || from == to || bytes_.count == 0) {
      flag = static_cast<std::uint8_t>(senders_);
      try_start(to);
      return;
    }
    // One message per TP x CP rank, each to the same rank of the next stage.
    const std::uint32_t stride = p_.tp * p_.cp * p_.dp;
    for (std::uint32_t k = 0; k < senders_; ++k) {
      ++messages_;
      session_->send(from * stride + k, to * stride + k, bytes_,
                     [this, &flag, to](runtime::LaunchId, const scheduler::CollectiveStats&) {
                       ++flag;
                       try_start(to);
                     });
    }
  }

  void try_start(std::uint32_t s) {
    StageLog& st = stages_[s];
    if (st.busy || st.next == st.ops.size()) return;
    const PipeOp op = st.ops[st.next];
    const std::uint32_t V = p_.pp * p_.vpp;
    const std::uint32_t v = op.chunk * p_.pp + s;
    if (!op.backward && v > 0 && fwd_in_[slot(v, op.mb)] < senders_) return;
    if (op.backward && v + 1 < V && bwd_in_[slot(v, op.mb)] < senders_) return;
    const Time d = (op.backward ? bwd_ : fwd_)[v].total();
    st.busy = true;
    st.start[st.next] = sim_.now();
    st.busy_time += d;
    sim_.schedule_in(d, *this, s);
  }

  const workload::LlmParallel& p_;
  const std::vector<OpParts>& fwd_;
  const std::vector<OpParts>& bwd_;
  core::Simulation& sim_;
  runtime::Session* session_;
  core::Bytes bytes_;
  std::uint32_t senders_;
  std::vector<StageLog> stages_;
  std::vector<std::uint8_t> fwd_in_, bwd_in_;
  std::uint64_t messages_ = 0;
};

// t x k, rounded; core::InputError beyond the simulation horizon.
Time scale(Time t, double k) {
  return core::time_from_user(static_cast<double>(t.ps) * k, 1, "llm: a pass's time");
}

struct Plan {
  std::vector<OpParts> fwd, bwd;  // by virtual stage
};

}  // namespace

double default_matmul_efficiency(const compute::GpuSpec&) { return kMatmulEfficiency; }

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

LlmResult simulate(const LlmConfig& c, bool keep_timeline, bool compute_only_fraction,
                   double* fraction, const LlmMachine* machine, std::uint64_t max_work) {
  const auto& p = c.parallel;
  const auto& m = c.model;
  const compute::GpuSpec& gpu = compute::find_gpu(c.system.gpu, "system.gpu");
  const double eff = c.system.matmul_efficiency.value_or(default_matmul_efficiency(gpu));
  const LlmCosts k = llm_costs(c, gpu, eff);
  const std::uint32_t gpus = p.gpus();
  const std::uint32_t V = p.pp * p.vpp;
  const std::uint32_t layers_per_chunk = m.layers / V;

  LlmResult res;
  res.model = m.name;
  res.gpu = std::string(gpu.name);
  res.gpus = gpus;
  res.micro_batches = p.micro_batches();
  res.matmul_efficiency = eff;
  res.gpu_memory = static_cast<double>(gpu.memory.count);
  res.memory = llm_memory(c, k);

  // Per-op costs by virtual stage.
  Plan plan;
  plan.fwd.resize(V);
  plan.bwd.resize(V);
  std::unique_ptr<LlmCluster> cluster;
  std::unique_ptr<CommTimer> timer;
  const network::BackendInfo& backend =
      machine && machine->backend ? *machine->backend
                                  : network::find_backend(c.system.backend, "system.backend");
  const network::BackendOptions backend_options =
      machine ? machine->backend_options : network::BackendOptions{};
  OpParts lf, lb;  // one layer
  lf.compute = k.fwd.time;
  lb.compute = k.bwd.time + k.recompute.time;
  Time zero_ag, zero_rs;
  if (!compute_only_fraction) {
    if (machine && machine->topology) {
      if (machine->topology->num_npus() < gpus) {
        throw core::InputError(fmt::format(
            "platform {}: {} NPUs; the LLM job needs tp x cp x dp x pp = {}", machine->name,
            machine->topology->num_npus(), gpus));
      }
      cluster = std::make_unique<LlmCluster>(LlmCluster{*machine->topology, "", false});
      cluster->description = fmt::format("platform {} ({}, {} NPUs)", machine->name,
                                         machine->topology->name(),
                                         machine->topology->num_npus());
    } else {
      cluster = std::make_unique<LlmCluster>(llm_cluster(c, gpu));
    }
    res.cluster = cluster->description;
    timer = std::make_unique<CommTimer>(
        cluster->topology, backend, backend_options,
        collective::parse_algorithm(c.system.algorithm, "system.algorithm"), cluster->standard,
        gpus, max_work);
    const GroupKind tpg{1, p.tp}, cpg{p.tp, p.cp}, epg{p.tp, p.ep};
    const GroupKind dpg{p.tp, p.cp * p.dp}, edpg{p.tp * p.ep, p.cp * p.dp / p.ep};
    Time tp_pass;
    if (p.tp > 1) {
      tp_pass = p.sequence_parallel
                    ? scale(timer->collective(Collective::AllGather, tpg, k.tp_bytes) +
                                timer->collective(Collective::ReduceScatter, tpg, k.tp_bytes),
                            2)
                    : scale(timer->collective(Collective::AllReduce, tpg, k.tp_bytes), 2);
    }
    lf.tp = tp_pass;
    lb.tp = p.recompute == Recompute::Full ? scale(tp_pass, 2) : tp_pass;
    if (m.experts > 0 && p.ep > 1) {
      const Time a2a = scale(timer->collective(Collective::AllToAll, epg, k.ep_bytes), 2);
      lf.ep = a2a;
      lb.ep = p.recompute == Recompute::Full ? scale(a2a, 2) : a2a;
    }
    if (p.cp > 1) {
      const Time f_step = timer->ring_step(cpg, k.cp_bytes);
      const Time b_step = timer->ring_step(cpg, core::Bytes{2 * k.cp_bytes.count});
      const Time core_step = scale(k.attention_core_fwd, 1.0 / p.cp);
      const auto exposed = [&](Time step, Time overlap) {
        return step > overlap ? scale(step - overlap, p.cp - 1) : Time::zero();
      };
      lf.cp = exposed(f_step, core_step);
      lb.cp = exposed(b_step, scale(core_step, 2)) +
              (p.recompute == Recompute::Full ? lf.cp : Time::zero());
    }
    if (p.zero == Zero::Three || p.zero == Zero::Fsdp) {
      const core::Bytes dense{static_cast<std::uint64_t>(k.layer_dense_params * 2)};
      const core::Bytes expert{static_cast<std::uint64_t>(k.layer_expert_params * 2)};
      zero_ag = timer->collective(Collective::AllGather, dpg, dense) +
                timer->collective(Collective::AllGather, edpg, expert);
      zero_rs = timer->collective(Collective::ReduceScatter, dpg, dense) +
                timer->collective(Collective::ReduceScatter, edpg, expert);
    }
  }
  for (std::uint32_t v = 0; v < V; ++v) {
    OpParts f, b;
    const double L = layers_per_chunk;
    f.compute = scale(lf.compute, L);
    f.tp = scale(lf.tp, L);
    f.ep = scale(lf.ep, L);
    f.cp = scale(lf.cp, L);
    b.compute = scale(lb.compute, L);
    b.tp = scale(lb.tp, L);
    b.ep = scale(lb.ep, L);
    b.cp = scale(lb.cp, L);
    if (zero_ag > Time::zero()) {  // ZeRO-3 / FSDP: gather one layer ahead, scatter behind
      const Time cf = lf.total(), cb = lb.total();
      const Time fwd_total = zero_ag + scale(std::max(cf, zero_ag), L - 1) + cf;
      const Time bwd_total = zero_ag + scale(std::max(cb, zero_ag + zero_rs), L - 1) + cb + zero_rs;
      f.dp = fwd_total - scale(cf, L);
      b.dp = bwd_total - scale(cb, L);
    }
    if (v == 0) {
      f.compute += k.embed_fwd.time;
      b.compute += k.embed_bwd.time;
    }
    if (v == V - 1) {
      f.compute += k.head_fwd.time;
      b.compute += k.head_bwd.time;
    }
    plan.fwd[v] = f;
    plan.bwd[v] = b;
  }

  // The schedule without communication: its idle time is the bubble.
  core::Simulation quiet;
  Pipeline ideal(p, plan.fwd, plan.bwd, quiet, nullptr, k.pp_bytes, k.pp_senders);
  ideal.run();
  if (compute_only_fraction) {
    const auto& st = ideal.stages()[0];
    const Time span = st.end.back();
    *fraction = 1.0 - static_cast<double>(st.busy_time.ps) / static_cast<double>(span.ps);
    return res;
  }
  // The schedule with its activations and gradients sent through the Session.
  {
    const std::uint64_t senders = cluster->standard ? 1 : k.pp_senders;
    const std::uint64_t sends = p.pp > 1 ? 2ull * p.micro_batches() * (V - 1) * senders : 0;
    timer->charge(sends, static_cast<double>(sends) * static_cast<double>(k.pp_bytes.count));
  }
  runtime::MachineSpec spec;
  spec.topology = &cluster->topology;
  spec.backend = &backend;
  spec.backend_options = backend_options;
  runtime::Session session(spec);
  // On the standard cluster the TP x CP ranks of a stage send on their own rails (their own NIC
  // share and NVSwitch port): one message stands for all of them (the groups' symmetry).
  Pipeline pipe(p, plan.fwd, plan.bwd, session.sim(), &session, k.pp_bytes,
                cluster->standard ? 1 : k.pp_senders);
  pipe.run();
  res.messages = pipe.messages();
  res.events = session.report().events + timer->events();

  // Data parallel per stage: gradient buckets overlapped with the last backward of each chunk,
  // the optimizer step, ZeRO-1/2's parameter all-gather.
  const GroupKind dpg{p.tp, p.cp * p.dp}, edpg{p.tp * p.ep, p.cp * p.dp / p.ep};
  const double shard = static_cast<double>(p.cp) * p.dp;
  const double bucket_params = std::max(40e6, 1e6 * shard);  // Megatron DDP's default
  const Collective grad_coll = p.zero == Zero::None ? Collective::AllReduce : Collective::ReduceScatter;
  const bool sharded_params = p.zero == Zero::Three || p.zero == Zero::Fsdp;
  std::vector<Time> stage_end(p.pp), last_bwd(p.pp), dp_tail(p.pp), opt_time(p.pp);
  for (std::uint32_t s = 0; s < p.pp; ++s) {
    const auto& st = pipe.stages()[s];
    last_bwd[s] = st.end.back();
    double params = 0, expert_params = 0;
    struct Bucket {
      Time ready;
      bool expert;
      double params;
    };
    std::vector<Bucket> buckets;
    for (std::uint32_t ch = 0; ch < p.vpp; ++ch) {
      // The last backward op of this chunk.
      std::size_t idx = st.ops.size();
      for (std::size_t i = 0; i < st.ops.size(); ++i) {
        if (st.ops[i].backward && st.ops[i].chunk == ch) idx = i;
      }
      const std::uint32_t v = ch * p.pp + s;
      const Time b0 = st.start[idx], b1 = st.end[idx];
      double dense = 0, expert = 0;
      const double extra = (v == 0 || v == V - 1) ? k.embed_params : 0;
      params += layers_per_chunk * k.layer_dense_params + extra;
      expert_params += layers_per_chunk * k.layer_expert_params;
      for (std::uint32_t l = 0; l < layers_per_chunk; ++l) {
        const Time ready = p.overlap_grad_reduce
                               ? b0 + scale(b1 - b0, double(l + 1) / layers_per_chunk)
                               : last_bwd[s];
        dense += k.layer_dense_params + (l + 1 == layers_per_chunk ? extra : 0);
        expert += k.layer_expert_params;
        if (dense >= bucket_params || l + 1 == layers_per_chunk) {
          buckets.push_back({ready, false, dense});
          dense = 0;
        }
        if (expert > 0 && (expert >= bucket_params || l + 1 == layers_per_chunk)) {
          buckets.push_back({ready, true, expert});
          expert = 0;
        }
      }
    }
    std::stable_sort(buckets.begin(), buckets.end(),
                     [](const Bucket& a, const Bucket& b) { return a.ready < b.ready; });
    Time t = last_bwd[s];
    Time ag_total;
    if (!sharded_params) {
      Time stream;
      for (const Bucket& b : buckets) {
        const core::Bytes bytes{static_cast<std::uint64_t>(b.params * 2)};
        const GroupKind g = b.expert ? edpg : dpg;
        stream = std::max(stream, b.ready) + timer->collective(grad_coll, g, bytes);
        if (p.zero != Zero::None) ag_total += timer->collective(Collective::AllGather, g, bytes);
      }
      t = std::max(t, stream);
    }
    // The tied word embedding lives on the first and the last stage: Megatron all-reduces its
    // gradient between them after the data-parallel reduction (finalize_model_grads).
    if (p.pp > 1 && (s == 0 || s + 1 == p.pp)) {
      const GroupKind ends{p.tp * p.cp * p.dp * (p.pp - 1), 2};
      t += timer->collective(Collective::AllReduce, ends,
                             core::Bytes{static_cast<std::uint64_t>(k.embed_params * 2)});
    }
    dp_tail[s] = t - last_bwd[s] + ag_total;
    // Expert parameters are sharded over their own data-parallel group (dp x cp / ep).
    const double opt_params = p.zero == Zero::None
                                  ? params + expert_params
                                  : params / shard + expert_params * p.ep / shard;
    opt_time[s] = optimizer_time(opt_params, k);
    stage_end[s] = t + opt_time[s] + ag_total;
  }
  const auto crit = static_cast<std::uint32_t>(
      std::max_element(stage_end.begin(), stage_end.end()) - stage_end.begin());
  res.critical_stage = crit;
  res.iteration = stage_end[crit];
  // The split on the critical stage.
  const auto& st = pipe.stages()[crit];
  for (const PipeOp& op : st.ops) {
    const OpParts& o = (op.backward ? plan.bwd : plan.fwd)[op.chunk * p.pp + crit];
    res.compute += o.compute;
    res.tp += o.tp;
    res.ep += o.ep;
    res.cp += o.cp;
    res.dp += o.dp;
  }
  const Time idle = last_bwd[crit] - st.busy_time;
  const auto& ist = ideal.stages()[crit];
  const Time ideal_idle = ist.end.back() - ist.busy_time;
  res.bubble = std::min(idle, ideal_idle);
  res.pp = idle - res.bubble;
  res.dp += dp_tail[crit];
  res.optimizer = opt_time[crit];

  const double secs = res.iteration.seconds();
  res.tokens_per_s = static_cast<double>(p.global_batch) * m.seq_len / secs;
  res.tflops_per_gpu = k.hardware_flops / secs / gpus / 1e12;
  res.model_tflops_per_gpu = k.model_flops / secs / gpus / 1e12;
  res.mfu = k.model_flops / secs / gpus / gpu.peak_16bit;
  if (keep_timeline) {
    res.timeline.resize(p.pp);
    for (std::uint32_t s = 0; s < p.pp; ++s) {
      const auto& ss = pipe.stages()[s];
      for (std::size_t i = 0; i < ss.ops.size(); ++i) {
        res.timeline[s].push_back({ss.ops[i].backward ? 'B' : 'F', ss.ops[i].mb, ss.ops[i].chunk,
                                   ss.start[i], ss.end[i]});
      }
    }
  }
  return res;
}

}  // namespace

LlmResult simulate_llm(const LlmConfig& c, bool keep_timeline, const LlmMachine* machine,
                       std::uint64_t max_work) {
  return simulate(c, keep_timeline, false, nullptr, machine, max_work);
}

double compute_only_bubble_fraction(const LlmConfig& c) {
  double f = 0;
  simulate(c, false, true, &f, nullptr, UINT64_MAX);
  return f;
}

}  // namespace collsim::jobs
