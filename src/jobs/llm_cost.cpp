#include "jobs/llm_cost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace collsim::jobs {

namespace {

using workload::LlmConfig;
using workload::Recompute;

constexpr double kB = 2;  // bytes per bf16 element

struct Roof {
  double peak = 0;  // FLOP/s at matmul efficiency
  double hbm = 0;   // bytes/s
  double matmul(double flops, double bytes) const { return std::max(flops / peak, bytes / hbm); }
  double elementwise(double bytes) const { return bytes / hbm; }
};

// Throws core::InputError beyond the simulation horizon (core/units.hpp).
core::Time seconds(double s) { return core::time_from_user(s, 1e12, "llm: an operation's time"); }

// One layer's forward on one GPU, split into the attention core and the rest.
struct LayerFwd {
  double core_s = 0, core_flops = 0;  // scores, softmax, attention over values
  double rest_s = 0, rest_flops = 0;
  double attention_s = 0;  // everything before the MLP (what the attention's TP collective follows)
};

// Per GPU: `tokens` local tokens (micro_batch x seq_len / cp), attending to `keys` (seq_len).
LayerFwd layer_forward(const LlmConfig& c, const Roof& r, double tokens, double keys,
                       double skew) {
  const auto& m = c.model;
  const auto& p = c.parallel;
  const double t = p.tp, h = m.hidden, d = m.head_dim();
  const double a = m.heads / t;                                   // query heads per GPU
  const double g = std::max(1.0, static_cast<double>(m.kv_heads) / t);  // KV heads per GPU
  const double T = tokens;
  const double sp = p.sequence_parallel ? t : 1.0;  // norms, dropout on 1/t of the sequence
  const double b = static_cast<double>(p.micro_batch);
  const double S = T / b;  // local sequence
  LayerFwd f;
  const auto mm = [&](double flops, double bytes, bool core) {
    (core ? f.core_s : f.rest_s) += r.matmul(flops, bytes);
    (core ? f.core_flops : f.rest_flops) += flops;
  };
  const auto ew = [&](double bytes, bool core) { (core ? f.core_s : f.rest_s) += r.elementwise(bytes); };
  // Layer norm 1 (read, write) and QKV.
  ew(T * h * 2 * kB / sp, false);
  const double qkv = (a + 2 * g) * d;
  mm(2 * T * h * qkv, (T * h + h * qkv + T * qkv) * kB, false);
  // Attention core.
  const double scores = b * a * S * keys;  // elements of the score matrices
  if (m.flash_attention) {
    mm(4 * scores * d, (T * qkv + T * a * d) * kB, true);
  } else {
    mm(2 * scores * d, (T * a * d + keys * b * g * d + scores) * kB, true);  // Q K^T
    ew(scores * (2 * kB + 2 * kB + 1), true);  // scale-mask-softmax, dropout and its mask
    mm(2 * scores * d, (scores + keys * b * g * d + T * a * d) * kB, true);  // P V
  }
  // Output projection, dropout + residual, layer norm 2.
  mm(2 * T * a * d * h, (T * a * d + a * d * h + T * h) * kB, false);
  ew(T * h * (3 * kB + 1) / sp, false);
  ew(T * h * 2 * kB / sp, false);
  f.attention_s = f.core_s + f.rest_s;
  // MLP, or router + experts.
  const double mats = m.gated_mlp ? 3 : 2;
  const auto mlp = [&](double toks, double width) {
    const double fl = width / t;
    mm(mats * 2 * toks * h * fl, (mats * h * fl + toks * h + toks * fl * (mats - 1)) * kB, false);
    ew(toks * fl * (m.gated_mlp ? 3 : 2) * kB, false);  // activation (and gate product)
  };
  if (m.experts == 0) {
    mlp(T, m.ffn_hidden);
  } else {
    mm(2 * T * h * m.experts, (T * h + h * m.experts) * kB, false);  // router
    mlp(T * m.top_k * skew, m.expert_ffn());
    if (m.shared_experts > 0) mlp(T * m.shared_experts, m.expert_ffn());
  }
  ew(T * h * (3 * kB + 1) / sp, false);
  return f;
}

}  // namespace

core::Time optimizer_time(double params, core::Bandwidth hbm) {
  return seconds(params * 30.0 / hbm.bytes_per_s);
}

LlmCosts llm_costs(const LlmConfig& c, const compute::GpuSpec& gpu, double eff) {
  if (!(eff > 0 && eff <= 1)) {
    throw core::InputError(fmt::format("matmul_efficiency: must be in (0, 1], got {}", eff));
  }
  const auto& m = c.model;
  const auto& p = c.parallel;
  const Roof r{gpu.peak_16bit * eff, gpu.hbm.bytes_per_s};
  LlmCosts k;
  k.hbm = gpu.hbm;
  const double t = p.tp, h = m.hidden, d = m.head_dim();
  const double T = static_cast<double>(p.micro_batch) * m.seq_len / p.cp;
  const LayerFwd f = layer_forward(c, r, T, m.seq_len, p.ep_skew);
  k.fwd = {seconds(f.core_s + f.rest_s), f.core_flops + f.rest_flops};
  k.bwd = {seconds(2 * (f.core_s + f.rest_s)), 2 * (f.core_flops + f.rest_flops)};
  k.attention_core_fwd = seconds(f.core_s);
  k.attention_fwd = seconds(f.attention_s);
  if (p.recompute == Recompute::Full) k.recompute = k.fwd;
  if (p.recompute == Recompute::Selective) k.recompute = {seconds(f.core_s), f.core_flops};

  const double V = static_cast<double>(workload::padded_vocab(m.vocab, p.tp)) / t;
  const double logits = 2 * T * h * V;
  const double head_s = r.matmul(logits, (T * h + h * V + T * V) * kB) +
                        r.elementwise(T * V * (kB + 4 + 4));  // fp32 softmax cross-entropy
  k.head_fwd = {seconds(head_s), logits};
  k.head_bwd = {seconds(2 * head_s), 2 * logits};
  k.embed_fwd = {seconds(r.elementwise(T * h * 2 * kB)), 0};
  k.embed_bwd = {seconds(r.elementwise(T * h * (4 + kB) * 2)), 0};

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

  // Whole-iteration FLOPs: the same accounting for one unsplit sequence, times the batch.
  LlmConfig one = c;
  one.parallel.tp = 1;
  one.parallel.cp = 1;
  one.parallel.micro_batch = 1;
  one.parallel.sequence_parallel = false;
  const LayerFwd u = layer_forward(one, r, m.seq_len, m.seq_len, 1.0);
  const double seq_logits = 2.0 * m.seq_len * h * static_cast<double>(workload::padded_vocab(m.vocab, p.tp));
  const double fwd_seq = m.layers * (u.core_flops + u.rest_flops) + seq_logits;
  k.model_flops = 3 * fwd_seq * p.global_batch;
  double re = 0;
  if (p.recompute == Recompute::Full) re = m.layers * (u.core_flops + u.rest_flops);
  if (p.recompute == Recompute::Selective) re = m.layers * u.core_flops;
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

LlmMemory llm_memory(const LlmConfig& c, const LlmCosts& k) {
  const auto& p = c.parallel;
  const double layers = static_cast<double>(c.model.layers) / p.pp;
  const double dense = layers * k.layer_dense_params + k.embed_params;
  const double expert = layers * k.layer_expert_params;
  const double shard = static_cast<double>(p.dp) * p.cp;  // the gradient reduce group
  const double eshard = shard / p.ep;                       // the experts' one
  LlmMemory mem;
  mem.weights = 2 * (dense + expert);
  mem.gradients = 2 * (dense + expert);
  mem.optimizer = 12 * (dense + expert);
  const double opt = 12 * (dense / shard + expert / eshard);
  const double grad = 2 * (dense / shard + expert / eshard);
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
      mem.weights = grad;
      break;
  }
  const double m = p.micro_batches();
  double in_flight = layers * std::min<double>(p.pp, m);  // 1F1B: stage 0 holds p micro-batches
  if (p.schedule == workload::PipeSchedule::GPipe) in_flight = layers * m;
  if (p.vpp > 1) in_flight = layers * p.pp * (1 + (p.pp - 1) / (p.pp * m));
  mem.activations = in_flight * activation_bytes_per_layer(c);
  return mem;
}

}  // namespace collsim::jobs
