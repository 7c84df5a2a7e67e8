#include "jobs/llm_kernels.hpp"

#include <algorithm>
#include <cmath>

namespace collsim::jobs {

namespace {

using compute::GemmShape;
using workload::LlmConfig;
using workload::Recompute;
using K = KernelClass;

constexpr double kE = 2;       // bytes per 16-bit element
constexpr double kMask = 1;    // a dropout mask element (bool)
constexpr double kF32 = 4;

// The sizes of one layer on one GPU for one micro-batch.
struct Dims {
  double b, S, T, Tn, keys, h, t, a, g, d, qw, kvw, qkvw, f, V;
  bool gpt_attention;  // unfused core attention (no flash)
  bool dropout, bias, rope, gated;
  double grad_bytes;   // the gradient buffer's element (wgrad GEMMs accumulate into it)
};

Dims dims(const LlmConfig& c) {
  const auto& m = c.model;
  const auto& p = c.parallel;
  Dims d{};
  d.b = p.micro_batch;
  d.S = static_cast<double>(m.seq_len) / p.cp;
  d.T = d.b * d.S;
  d.Tn = p.sequence_parallel ? d.T / p.tp : d.T;
  d.keys = m.seq_len;
  d.h = m.hidden;
  d.t = p.tp;
  d.a = static_cast<double>(m.heads) / p.tp;
  d.g = std::max(1.0, static_cast<double>(m.kv_heads) / p.tp);
  d.d = m.head_dim();
  d.qw = d.a * d.d;
  d.kvw = d.g * d.d;
  d.qkvw = d.qw + 2 * d.kvw;
  d.f = static_cast<double>(m.ffn_hidden) / p.tp;
  d.V = static_cast<double>(workload::padded_vocab(m.vocab, p.tp)) / p.tp;
  d.gpt_attention = !m.flash_attention;
  d.dropout = m.dropout;
  d.bias = m.bias;
  d.rope = m.position_embedding == workload::PositionEmbedding::Rope;
  d.gated = m.gated_mlp;
  d.grad_bytes = p.grad_dtype == workload::GradDtype::Fp32 ? kF32 : kE;
  return d;
}

class List {
 public:
  explicit List(double grad_bytes) : grad_bytes_(grad_bytes) {}

  void mem(K cls, std::string_view name, double bytes) {
    LlmKernel k;
    k.cls = cls;
    k.name = name;
    k.work.bytes = bytes;
    out_.push_back(k);
  }
  // C = A B with A m x k, B k x n: operands read, result written, 16-bit.
  void gemm(K cls, std::string_view name, GemmShape s, double model_flops = -1) {
    LlmKernel k;
    k.cls = cls;
    k.name = name;
    k.work.gemm = s;
    k.work.bytes = (s.m * s.k + s.k * s.n + s.m * s.n) * s.batch * kE;
    k.model_flops = model_flops < 0 ? s.flops() : model_flops;
    out_.push_back(k);
  }
  // The two backward GEMMs of a linear layer y = x W (x: m x k, W: k x n): dx = dy W^T and the
  // weight gradient x^T dy, accumulated into the gradient buffer (read and written).
  void linear_bwd(std::string_view dgrad, std::string_view wgrad, GemmShape f) {
    gemm(K::Gemm, dgrad, {f.m, f.k, f.n, f.batch});
    LlmKernel w;
    w.cls = K::Gemm;
    w.name = wgrad;
    w.work.gemm = {f.k, f.n, f.m, f.batch};
    w.work.bytes = (f.m * f.k + f.m * f.n) * f.batch * kE + 2 * f.k * f.n * f.batch * grad_bytes_;
    w.model_flops = w.work.gemm.flops();
    out_.push_back(w);
  }
  // Both operand gradients of a batched attention GEMM C = A B (no weights).
  void batched_bwd(K cls, std::string_view da, std::string_view db, GemmShape f) {
    gemm(cls, da, {f.m, f.k, f.n, f.batch});
    gemm(cls, db, {f.k, f.n, f.m, f.batch});
  }
  void push(const LlmKernel& k) { out_.push_back(k); }
  LlmKernel& last() { return out_.back(); }
  std::vector<LlmKernel> take() { return std::move(out_); }

 private:
  double grad_bytes_;
  std::vector<LlmKernel> out_;
};

// A flash-attention kernel: `gemms` GEMMs per query tile over the keys it may see (causal:
// half the score blocks; forward two, FlashAttention-2's backward five); the scores never reach
// HBM. Eq. (3) counts 2 x gemms x scores x d of it (the whole score matrix).
void flash(const Dims& d, List& l, std::string_view name, double gemms, double bytes) {
  LlmKernel k;
  k.cls = K::Attention;
  k.name = name;
  k.work.gemm = {d.S, d.d, gemms * d.keys * 0.5, d.b * d.a};
  k.work.bytes = bytes;
  k.model_flops = 2 * gemms * d.b * d.a * d.S * d.keys * d.d;
  l.push(k);
}

// The core attention's forward (what selective recomputation reruns).
void attention_core_fwd(const Dims& d, List& l) {
  const double scores = d.b * d.a * d.S * d.keys;
  if (!d.gpt_attention) {
    flash(d, l, "flash attention", 2,
          (2 * d.T * d.qw + 2 * d.b * d.keys * d.kvw) * kE + d.T * d.a * kF32);
    return;
  }
  l.gemm(K::Attention, "Q K^T (baddbmm)", {d.S, d.keys, d.d, d.b * d.a});
  l.mem(K::Softmax, "scale-mask-softmax", scores * 2 * kE);
  if (d.dropout) l.mem(K::Dropout, "attention dropout", scores * (2 * kE + kMask));
  l.gemm(K::Attention, "P V (bmm)", {d.S, d.d, d.keys, d.b * d.a});
  l.mem(K::Elementwise, "context permute", 2 * d.T * d.qw * kE);
}

void attention_core_bwd(const Dims& d, List& l) {
  const double scores = d.b * d.a * d.S * d.keys;
  if (!d.gpt_attention) {
    // Eq. (3) counts the backward as twice the forward (4 GEMMs' worth), not FlashAttention-2's 5.
    flash(d, l, "flash attention backward", 5,
          (4 * d.T * d.qw + 4 * d.b * d.keys * d.kvw) * kE + d.T * d.qw * kF32);
    l.last().model_flops = 8 * scores * d.d;
    return;
  }
  l.mem(K::Elementwise, "context permute backward", 2 * d.T * d.qw * kE);
  l.batched_bwd(K::Attention, "dP = dO V^T", "dV = P^T dO", {d.S, d.d, d.keys, d.b * d.a});
  if (d.dropout) l.mem(K::Dropout, "attention dropout backward", scores * (2 * kE + kMask));
  l.mem(K::Softmax, "softmax backward", scores * 3 * kE);
  l.batched_bwd(K::Attention, "dQ = dS K", "dK = dS^T Q", {d.S, d.keys, d.d, d.b * d.a});
}

void mlp_fwd(const Dims& d, double tokens, double width, double batch, List& l,
             std::string_view fc1, std::string_view fc2) {
  l.gemm(K::Gemm, fc1, {tokens / batch, width * (d.gated ? 2 : 1), d.h, batch});
  l.mem(K::Activation, d.gated ? "SwiGLU" : "bias-GeLU", tokens * width * (d.gated ? 3 : 2) * kE);
  l.gemm(K::Gemm, fc2, {tokens / batch, d.h, width, batch});
}

void mlp_bwd(const Dims& d, double tokens, double width, double batch, List& l) {
  l.linear_bwd("FC2 dgrad", "FC2 wgrad", {tokens / batch, d.h, width, batch});
  l.mem(K::Activation, d.gated ? "SwiGLU backward" : "bias-GeLU backward",
        tokens * width * (d.gated ? 5 : 3) * kE);
  if (d.bias) l.mem(K::Elementwise, "FC1 bias gradient", tokens * width * kE);
  l.linear_bwd("FC1 dgrad", "FC1 wgrad", {tokens / batch, width * (d.gated ? 2 : 1), d.h, batch});
}

// The residual branch's end: bias-dropout-add (or the plain residual add).
void residual_fwd(const Dims& d, List& l, std::string_view name) {
  l.mem(K::Elementwise, name, d.Tn * d.h * (3 * kE + (d.dropout ? kMask : 0)));
}
void residual_bwd(const Dims& d, List& l, std::string_view name) {
  if (d.dropout) l.mem(K::Elementwise, name, d.Tn * d.h * (2 * kE + kMask));
  if (d.bias) l.mem(K::Elementwise, "bias gradient", d.Tn * d.h * kE);
}

struct Moe {
  double experts_local, tokens;  // tokens through this GPU's experts
};
Moe moe(const LlmConfig& c, const Dims& d) {
  const auto& m = c.model;
  return {static_cast<double>(m.experts) / c.parallel.ep, d.T * m.top_k * c.parallel.ep_skew};
}

void ffn_fwd(const LlmConfig& c, const Dims& d, List& l) {
  const auto& m = c.model;
  if (m.experts == 0) {
    mlp_fwd(d, d.T, d.f, 1, l, "FC1", "FC2");
    return;
  }
  const Moe e = moe(c, d);
  const double width = static_cast<double>(m.expert_ffn()) / c.parallel.tp;
  l.gemm(K::Gemm, "router", {d.T, static_cast<double>(m.experts), d.h, 1});
  l.mem(K::Elementwise, "router softmax and top-k", d.T * m.experts * 2 * kF32);
  l.mem(K::Elementwise, "token permute", 2 * e.tokens * d.h * kE);
  mlp_fwd(d, e.tokens, width, e.experts_local, l, "expert FC1 (grouped)", "expert FC2 (grouped)");
  l.mem(K::Elementwise, "token un-permute", 2 * e.tokens * d.h * kE);
  if (m.shared_experts > 0) {
    mlp_fwd(d, d.T, width * m.shared_experts, 1, l, "shared expert FC1", "shared expert FC2");
  }
}

void ffn_bwd(const LlmConfig& c, const Dims& d, List& l) {
  const auto& m = c.model;
  if (m.experts == 0) {
    mlp_bwd(d, d.T, d.f, 1, l);
    return;
  }
  const Moe e = moe(c, d);
  const double width = static_cast<double>(m.expert_ffn()) / c.parallel.tp;
  if (m.shared_experts > 0) mlp_bwd(d, d.T, width * m.shared_experts, 1, l);
  l.mem(K::Elementwise, "token un-permute backward", 2 * e.tokens * d.h * kE);
  mlp_bwd(d, e.tokens, width, e.experts_local, l);
  l.mem(K::Elementwise, "token permute backward", 2 * e.tokens * d.h * kE);
  l.linear_bwd("router dgrad", "router wgrad", {d.T, static_cast<double>(m.experts), d.h, 1});
}

}  // namespace

std::string_view to_string(KernelClass c) {
  switch (c) {
    case K::Gemm: return "gemm";
    case K::Attention: return "attention";
    case K::Softmax: return "softmax";
    case K::Dropout: return "dropout";
    case K::Norm: return "norm";
    case K::Activation: return "activation";
    case K::Elementwise: return "elementwise";
    case K::Embedding: return "embedding";
    case K::Loss: return "loss";
    case K::Optimizer: return "optimizer";
    case K::Launch: return "launch";
  }
  return "?";
}

std::vector<LlmKernel> layer_forward_kernels(const LlmConfig& c) {
  const Dims d = dims(c);
  List l(d.grad_bytes);
  l.mem(K::Norm, "input norm", d.Tn * d.h * 2 * kE);
  l.gemm(K::Gemm, "QKV", {d.T, d.qkvw, d.h, 1});
  if (d.rope) l.mem(K::Elementwise, "RoPE", 2 * d.T * (d.qw + d.kvw) * kE);
  attention_core_fwd(d, l);
  l.gemm(K::Gemm, "attention projection", {d.T, d.h, d.qw, 1});
  residual_fwd(d, l, d.dropout ? "bias-dropout-add" : "residual add");
  l.mem(K::Norm, "post-attention norm", d.Tn * d.h * 2 * kE);
  ffn_fwd(c, d, l);
  residual_fwd(d, l, d.dropout ? "bias-dropout-add" : "residual add");
  return l.take();
}

std::vector<LlmKernel> layer_backward_kernels(const LlmConfig& c) {
  const Dims d = dims(c);
  List l(d.grad_bytes);
  residual_bwd(d, l, "bias-dropout-add backward");
  ffn_bwd(c, d, l);
  l.mem(K::Norm, "post-attention norm backward", d.Tn * d.h * 5 * kE);
  l.mem(K::Elementwise, "residual gradient sum", d.Tn * d.h * 3 * kE);
  residual_bwd(d, l, "bias-dropout-add backward");
  l.linear_bwd("projection dgrad", "projection wgrad", {d.T, d.h, d.qw, 1});
  attention_core_bwd(d, l);
  if (d.rope) l.mem(K::Elementwise, "RoPE backward", 2 * d.T * (d.qw + d.kvw) * kE);
  if (d.gpt_attention) l.mem(K::Elementwise, "QKV gradient assembly", 2 * d.T * d.qkvw * kE);
  if (d.bias) l.mem(K::Elementwise, "QKV bias gradient", d.T * d.qkvw * kE);
  l.linear_bwd("QKV dgrad", "QKV wgrad", {d.T, d.qkvw, d.h, 1});
  l.mem(K::Norm, "input norm backward", d.Tn * d.h * 5 * kE);
  l.mem(K::Elementwise, "residual gradient sum", d.Tn * d.h * 3 * kE);
  return l.take();
}

std::vector<LlmKernel> layer_recompute_kernels(const LlmConfig& c) {
  switch (c.parallel.recompute) {
    case Recompute::None: return {};
    case Recompute::Full: return layer_forward_kernels(c);
    case Recompute::Selective: break;
  }
  const Dims d = dims(c);
  List l(d.grad_bytes);
  attention_core_fwd(d, l);
  return l.take();
}

std::vector<LlmKernel> embedding_kernels(const LlmConfig& c, bool backward) {
  const Dims d = dims(c);
  List l(d.grad_bytes);
  const bool learned = !d.rope;
  if (!backward) {
    l.mem(K::Embedding, "word embedding lookup", 2 * d.T * d.h * kE);
    if (c.parallel.tp > 1) l.mem(K::Embedding, "vocab-range mask", 2 * d.T * d.h * kE);
    if (learned) {
      l.mem(K::Embedding, "position embedding lookup", 2 * d.T * d.h * kE);
      l.mem(K::Elementwise, "embedding add", 3 * d.T * d.h * kE);
    }
    if (d.dropout) l.mem(K::Dropout, "embedding dropout", d.Tn * d.h * (2 * kE + kMask));
    return l.take();
  }
  if (d.dropout) l.mem(K::Dropout, "embedding dropout backward", d.Tn * d.h * (2 * kE + kMask));
  // PyTorch's dense embedding backward: a zeroed gradient table, the rows scattered into it,
  // then accumulated into the gradient buffer.
  l.mem(K::Embedding, "word embedding backward",
        d.V * d.h * kE + 2 * d.T * d.h * kE + d.V * d.h * (kE + 2 * d.grad_bytes));
  if (learned) {
    const double s = c.model.seq_len;
    l.mem(K::Embedding, "position embedding backward",
          s * d.h * kE + 2 * d.T * d.h * kE + s * d.h * (kE + 2 * d.grad_bytes));
  }
  return l.take();
}

std::vector<LlmKernel> head_kernels(const LlmConfig& c, bool backward) {
  const Dims d = dims(c);
  List l(d.grad_bytes);
  const double logits = d.T * d.V;
  const GemmShape g{d.T, d.V, d.h, 1};
  if (!backward) {
    l.mem(K::Norm, "final norm", d.Tn * d.h * 2 * kE);
    l.gemm(K::Gemm, "logits", g);
    // Megatron's vocab-parallel cross-entropy in fp32, one kernel per step.
    l.mem(K::Loss, "logits to fp32", logits * (kE + kF32));
    l.mem(K::Loss, "max", logits * kF32);
    l.mem(K::Loss, "subtract max", logits * 2 * kF32);
    l.mem(K::Loss, "exp", logits * 2 * kF32);
    l.mem(K::Loss, "sum exp", logits * kF32);
    l.mem(K::Loss, "softmax divide", logits * 2 * kF32);
    return l.take();
  }
  l.mem(K::Loss, "cross-entropy backward", logits * 2 * kF32);
  l.mem(K::Loss, "gradient to 16 bits", logits * (kF32 + kE));
  l.linear_bwd("logits dgrad", "logits wgrad", g);
  l.mem(K::Norm, "final norm backward", d.Tn * d.h * 5 * kE);
  return l.take();
}

OptimizerStep optimizer_step(const LlmConfig& c) {
  // Megatron's mixed-precision optimizer: with 16-bit gradients, copy them to fp32 (2 + 4) and
  // unscale them with the inf check (4 + 4); the gradient norm (4); apex's multi-tensor Adam
  // (fp32 parameter, gradient, m, v read, parameter, m, v written: 28); the fp32 parameters
  // copied to the 16-bit model (4 + 2); the gradient buffer zeroed for the next iteration.
  if (c.parallel.grad_dtype == workload::GradDtype::Fp32) return {4 + 28 + 6 + kF32, 4};
  return {6 + 8 + 4 + 28 + 6 + kE, 6};
}

KernelsTime time_kernels(const std::vector<LlmKernel>& ks, const compute::GpuSpec& gpu,
                         double eff) {
  KernelsTime out;
  for (const LlmKernel& k : ks) {
    const compute::KernelTime t = compute::kernel_time(gpu, k.work, eff);
    const double body = std::max(t.compute, t.memory);
    out.by_class[static_cast<std::size_t>(k.cls)] += body;
    out.by_class[static_cast<std::size_t>(K::Launch)] += t.launch * k.launches;
    out.seconds += body + t.launch * k.launches;
    out.model_flops += k.model_flops;
    out.kernels += k.launches;
  }
  return out;
}

}  // namespace collsim::jobs
