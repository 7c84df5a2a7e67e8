#include "jobs/llm_cost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace collsim::jobs {

namespace {

using workload::LlmConfig;
using workload::Recompute;

constexpr double kB = 2;  // bytes per bf16 element

// Throws core::InputError beyond the simulation horizon (core/units.hpp).
core::Time seconds(double s) { return core::time_from_user(s, 1e12, "llm: an operation's time"); }

PassCost pass(const std::vector<LlmKernel>& ks, const compute::GpuSpec& gpu, double eff) {
  const KernelsTime t = time_kernels(ks, gpu, eff);
  PassCost p;
  p.time = seconds(t.seconds);
  p.flops = t.model_flops;
  p.split = t.by_class;
  p.kernels = t.kernels;
  return p;
}

// The kernels of a layer pass on one side of the kernel named `boundary`: the attention block's
// share (forward: before the post-attention norm; backward: after the MLP's and that norm's
// gradients), where its tensor-parallel collective falls.
std::vector<LlmKernel> attention_block(const std::vector<LlmKernel>& ks, std::string_view boundary,
                                       bool backward) {
  std::size_t at = ks.size();
  for (std::size_t i = 0; i < ks.size(); ++i) {
    if (ks[i].name == boundary) {
      at = i;
      break;
    }
  }
  if (!backward) return {ks.begin(), ks.begin() + static_cast<std::ptrdiff_t>(at)};
  // The norm's backward and the residual gradient sum that follows it belong to the MLP block.
  const std::size_t from = std::min(ks.size(), at + 2);
  return {ks.begin() + static_cast<std::ptrdiff_t>(from), ks.end()};
}

}  // namespace

KernelsTime optimizer_cost(double params, const LlmCosts& k) {
  KernelsTime t;
  if (params <= 0) return t;
  const double body = params * k.optimizer.bytes_per_param / k.hbm.bytes_per_s;
  const double launches = k.optimizer.passes * std::ceil(params / kMultiTensorElements);
  t.by_class[static_cast<std::size_t>(KernelClass::Optimizer)] = body;
  t.by_class[static_cast<std::size_t>(KernelClass::Launch)] = launches * k.launch.seconds();
  t.seconds = body + launches * k.launch.seconds();
  t.kernels = static_cast<std::uint32_t>(std::min(launches, 4e9));
  return t;
}

core::Time optimizer_time(double params, const LlmCosts& k) {
  return seconds(optimizer_cost(params, k).seconds);
}

LlmCosts llm_costs(const LlmConfig& c, const compute::GpuSpec& spec, double eff) {
  if (!(eff > 0 && eff <= 1)) {
    throw core::InputError(fmt::format("matmul_efficiency: must be in (0, 1], got {}", eff));
  }
  compute::GpuSpec gpu = spec;
  gpu.memory_efficiency = c.system.memory_efficiency.value_or(kMemoryEfficiency);
  const auto& m = c.model;
  const auto& p = c.parallel;
  LlmCosts k;
  k.hbm = core::Bandwidth{gpu.hbm.bytes_per_s * gpu.memory_efficiency};
  k.launch = gpu.launch;
  k.optimizer = optimizer_step(c);
  const double t = p.tp, h = m.hidden, d = m.head_dim();
  const double T = static_cast<double>(p.micro_batch) * m.seq_len / p.cp;
  const std::vector<LlmKernel> fwd = layer_forward_kernels(c), bwd = layer_backward_kernels(c);
  k.fwd = pass(fwd, gpu, eff);
  k.bwd = pass(bwd, gpu, eff);
  k.attention_fwd = pass(attention_block(fwd, "post-attention norm", false), gpu, eff).time;
  k.attention_bwd =
      pass(attention_block(bwd, "post-attention norm backward", true), gpu, eff).time;
  k.recompute = pass(layer_recompute_kernels(c), gpu, eff);
  LlmConfig core_only = c;
  core_only.parallel.recompute = Recompute::Selective;
  const PassCost core = pass(layer_recompute_kernels(core_only), gpu, eff);
  k.attention_core_fwd = core.time;
  k.head_fwd = pass(head_kernels(c, false), gpu, eff);
  k.head_bwd = pass(head_kernels(c, true), gpu, eff);
  k.embed_fwd = pass(embedding_kernels(c, false), gpu, eff);
  k.embed_bwd = pass(embedding_kernels(c, true), gpu, eff);

  const double V = static_cast<double>(workload::padded_vocab(m.vocab, p.tp)) / t;
  k.tp_bytes = core::Bytes{static_cast<std::uint64_t>(T * h * kB)};
  k.tp_per_pass = p.tp > 1 ? (p.sequence_parallel ? 4 : 2) : 0;
  // Megatron sends 1/t of the activation per TP rank (scatter-gather, or the sequence-parallel
  // shard) between pipeline stages.
  k.pp_senders = p.tp * p.cp;
  k.pp_bytes = core::Bytes{static_cast<std::uint64_t>(T * h * kB / t)};
  k.ep_bytes = core::Bytes{static_cast<std::uint64_t>(T * m.top_k * h * kB * p.ep_skew / t)};
  const double g = std::max(1.0, static_cast<double>(m.kv_heads) / t);
  k.cp_bytes = core::Bytes{static_cast<std::uint64_t>(2 * T * g * d * kB)};

  const double qkv = (m.heads + 2.0 * m.kv_heads) * d;
  const double mats = m.gated_mlp ? 3 : 2;
  k.layer_dense_params = (h * qkv + m.heads * d * h) / t + 4 * h;
  if (m.experts == 0) {
    k.layer_dense_params += mats * h * m.ffn_hidden / t;
  } else {
    k.layer_dense_params += h * m.experts + m.shared_experts * mats * h * m.expert_ffn() / t;
    k.layer_expert_params =
        static_cast<double>(m.experts / p.ep) * mats * h * m.expert_ffn() / t;
  }
  k.embed_params = V * h;

  // Whole-iteration FLOPs: the same kernels for one unsplit sequence, times the batch; the
  // logits with the vocabulary padded as this run pads it.
  LlmConfig one = c;
  one.parallel.tp = 1;
  one.parallel.cp = 1;
  one.parallel.ep = 1;
  one.parallel.ep_skew = 1;
  one.parallel.micro_batch = 1;
  one.parallel.sequence_parallel = false;
  const auto flops = [](const std::vector<LlmKernel>& ks) {
    double f = 0;
    for (const LlmKernel& x : ks) f += x.model_flops;
    return f;
  };
  const double layer = flops(layer_forward_kernels(one));
  const double seq_logits =
      2.0 * m.seq_len * h * static_cast<double>(workload::padded_vocab(m.vocab, p.tp));
  const double fwd_seq = m.layers * layer + seq_logits;
  k.model_flops = 3 * fwd_seq * p.global_batch;
  double re = 0;
  if (p.recompute == Recompute::Full) re = m.layers * layer;
  if (p.recompute == Recompute::Selective) {
    LlmConfig sel = one;
    sel.parallel.recompute = Recompute::Selective;
    re = m.layers * flops(layer_recompute_kernels(sel));
  }
  k.hardware_flops = k.model_flops + re * p.global_batch;
  return k;
}

double activation_bytes_per_layer(const LlmConfig& c) {
  const auto& m = c.model;
  const auto& p = c.parallel;
  const double s = static_cast<double>(m.seq_len) / p.cp, b = p.micro_batch, h = m.hidden;
  const double a = m.heads, t = p.tp;
  const double sbh = s * b * h;
  // The attention scores' share; flash attention never stores the scores (only O(s) softmax
  // statistics), which is what selective recomputation achieves too.
  const double attn = m.flash_attention ? 0.0 : 5 * a * s / h;
  switch (p.recompute) {
    case Recompute::Full: return 2 * sbh / (p.sequence_parallel ? t : 1);
    case Recompute::Selective: return sbh * (p.sequence_parallel ? 34 / t : 10 + 24 / t);
    case Recompute::None: break;
  }
  return sbh * (p.sequence_parallel ? 34 / t + attn / t : 10 + 24 / t + attn / t);
}

std::vector<StageKernelTime> llm_stage_breakdown(const LlmConfig& c, const LlmCosts& k) {
  const auto& p = c.parallel;
  const std::uint32_t V = p.pp * p.vpp;
  const double L = static_cast<double>(c.model.layers) / V;
  const double m = p.micro_batches();
  const double shard = static_cast<double>(p.dp) * p.cp;
  std::vector<StageKernelTime> out(p.pp);
  const auto add = [](StageKernelTime& st, const PassCost& pc, double times) {
    for (std::size_t i = 0; i < kKernelClasses; ++i) st.seconds[i] += pc.split[i] * times;
    st.kernels += static_cast<std::uint64_t>(pc.kernels * times);
  };
  for (std::uint32_t s = 0; s < p.pp; ++s) {
    StageKernelTime& st = out[s];
    double params = 0, expert = 0;
    for (std::uint32_t ch = 0; ch < p.vpp; ++ch) {
      const std::uint32_t v = ch * p.pp + s;
      add(st, k.fwd, m * L);
      add(st, k.bwd, m * L);
      add(st, k.recompute, m * L);
      if (v == 0) {
        add(st, k.embed_fwd, m);
        add(st, k.embed_bwd, m);
      }
      if (v == V - 1) {
        add(st, k.head_fwd, m);
        add(st, k.head_bwd, m);
      }
      params += L * k.layer_dense_params + ((v == 0 || v == V - 1) ? k.embed_params : 0);
      expert += L * k.layer_expert_params;
    }
    // As the iteration shards them: ZeRO-1/2/3 over dp x cp, experts over dp x cp / ep.
    const double opt = p.zero == workload::Zero::None ? params + expert
                                                      : params / shard + expert * p.ep / shard;
    const KernelsTime o = optimizer_cost(opt, k);
    for (std::size_t i = 0; i < kKernelClasses; ++i) st.seconds[i] += o.by_class[i];
    st.kernels += o.kernels;
  }
  return out;
}

LlmMemory llm_memory(const LlmConfig& c, const LlmCosts& k) {
  const auto& p = c.parallel;
  const double layers = static_cast<double>(c.model.layers) / p.pp;
  const double dense = layers * k.layer_dense_params + k.embed_params;
  const double expert = layers * k.layer_expert_params;
  const double shard = static_cast<double>(p.dp) * p.cp;  // the gradient reduce group
  const double eshard = shard / p.ep;                       // the experts' one
  LlmMemory mem;
  const double gb = p.grad_dtype == workload::GradDtype::Fp32 ? 4 : 2;
  mem.weights = 2 * (dense + expert);
  mem.gradients = gb * (dense + expert);
  mem.optimizer = 12 * (dense + expert);
  const double opt = 12 * (dense / shard + expert / eshard);
  const double grad = gb * (dense / shard + expert / eshard);
  const double weights = 2 * (dense / shard + expert / eshard);
  switch (p.zero) {
    case workload::Zero::None: break;
    case workload::Zero::One: mem.optimizer = opt; break;
    case workload::Zero::Two:
      mem.optimizer = opt;
      mem.gradients = grad;
      break;
    case workload::Zero::Three:
    case workload::Zero::Fsdp:
      mem.optimizer = opt;
      mem.gradients = grad;
      mem.weights = weights;
      break;
  }
  const double m = p.micro_batches();
  double in_flight = layers * std::min<double>(p.pp, m);  // 1F1B: stage 0 holds p micro-batches
  if (p.schedule == workload::PipeSchedule::GPipe) in_flight = layers * m;
  // Interleaved 1F1B: the first stage holds L (1 + (p - 1) / (p v)) layers' activations, v the
  // model chunks per stage (Korthikanti et al. 2022 Sec. 4.2.3).
  if (p.vpp > 1) in_flight = layers * p.pp * (1 + (p.pp - 1.0) / (p.pp * p.vpp));
  mem.activations = in_flight * activation_bytes_per_layer(c);
  return mem;
}

}  // namespace collsim::jobs
