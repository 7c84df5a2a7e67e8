#pragma once
// The kernels one GPU launches for a transformer layer, the embedding, the output head and the
// optimizer step, as Megatron-LM launches them (docs/llm.md "Compute"), each with its FLOPs and
// HBM bytes, timed by compute/kernel_time.hpp.
//
// Two layer flavours, chosen by the model's keys:
//   - the GPT-3 layer of Narayanan et al. SC'21 and Korthikanti et al. 2022 (megatron/model/
//     transformer.py of 2021-22): apex fused LayerNorm; the QKV GEMM; unfused core attention
//     (baddbmm of Q K^T, the fused scale-mask-softmax, dropout, bmm with V, the permute copy);
//     the output projection; bias-dropout-add (jit fused); LayerNorm; FC1; bias-GeLU (jit
//     fused); FC2; bias-dropout-add;
//   - with flash_attention, gated_mlp, position_embedding: rope, bias: false, dropout: false
//     (Llama in Megatron-core): RMSNorm, QKV, RoPE on Q and K, one flash-attention kernel (causal:
//     half the score blocks), the projection, the residual add, RMSNorm, FC1 (gate and up in one
//     GEMM), SwiGLU, FC2, the residual add.
// Backward: per GEMM an input-gradient and a weight-gradient GEMM (the latter accumulating into the
// gradient buffer), per batched attention GEMM two; per element-wise kernel its backward kernel
// (dropout: mask multiply; softmax: y (dy - sum y dy); LayerNorm: apex's two passes), bias
// gradients as reductions, the residual stream's gradient sums. Recomputation as Megatron: full
// reruns the layer's forward; selective reruns the core attention's forward (Korthikanti Sec. 4.2).
// MoE layers: router GEMM and top-k, token permutation, the local experts as one grouped GEMM
// (batch = local experts), un-permutation. The embedding: the word (and learned position) lookups
// and dropout; backward, the dense embedding gradient. The head: final norm, logits GEMM and
// Megatron's vocab-parallel cross-entropy (fp32: cast, max, subtract, exp, sum, divide; backward
// multiply and cast). The optimizer: Megatron's mixed-precision Adam (gradient copy and unscale
// with 16-bit gradients, norm, apex multi-tensor Adam, parameter copy, gradient zeroing).
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "compute/gpu_specs.hpp"
#include "compute/kernel_time.hpp"
#include "workload/llm_config.hpp"

namespace collsim::jobs {

enum class KernelClass : std::uint8_t {
  Gemm,         ///< the linear layers' GEMMs (QKV, projection, FC1, FC2, router, experts, logits)
  Attention,    ///< batched attention GEMMs (Q K^T, P V) or the flash-attention kernel
  Softmax,      ///< the attention's scale-mask-softmax
  Dropout,      ///< attention dropout (the other dropouts are fused into bias-dropout-add)
  Norm,         ///< LayerNorm / RMSNorm
  Activation,   ///< bias-GeLU or SwiGLU
  Elementwise,  ///< bias-dropout-add, residual adds, copies, RoPE, bias gradients, MoE permutes
  Embedding,    ///< lookups and the embedding's gradient
  Loss,         ///< the vocab-parallel cross-entropy
  Optimizer,    ///< the optimizer step
  Launch,       ///< the launch cost of every kernel above
};
inline constexpr std::size_t kKernelClasses = 11;
std::string_view to_string(KernelClass c);
using ClassSeconds = std::array<double, kKernelClasses>;

struct LlmKernel {
  KernelClass cls = KernelClass::Elementwise;
  std::string_view name;
  compute::KernelWork work;
  double model_flops = 0;  ///< the FLOPs Narayanan et al.'s eq. (3) counts for it
  std::uint32_t launches = 1;  ///< a multi-tensor kernel launched this many times over its work
};

/// One layer, one micro-batch, on one GPU (its tp / cp / sp / ep share).
std::vector<LlmKernel> layer_forward_kernels(const workload::LlmConfig& c);
std::vector<LlmKernel> layer_backward_kernels(const workload::LlmConfig& c);
/// Full: the forward again; selective: the core attention's forward; none: nothing.
std::vector<LlmKernel> layer_recompute_kernels(const workload::LlmConfig& c);
std::vector<LlmKernel> embedding_kernels(const workload::LlmConfig& c, bool backward);
/// Final norm, logits and cross-entropy (the last virtual stage).
std::vector<LlmKernel> head_kernels(const workload::LlmConfig& c, bool backward);

/// The time of a list of kernels run one after the other, by class (Launch holds every launch).
struct KernelsTime {
  double seconds = 0;
  double model_flops = 0;
  std::uint32_t kernels = 0;
  ClassSeconds by_class{};
};
KernelsTime time_kernels(const std::vector<LlmKernel>& ks, const compute::GpuSpec& gpu,
                         double full_tile_efficiency);

/// Megatron's mixed-precision Adam step: HBM bytes per parameter and the multi-tensor passes over
/// the parameters (apex multi_tensor_apply: 320 blocks of 65,536 elements per launch).
struct OptimizerStep {
  double bytes_per_param = 0;
  int passes = 0;
};
OptimizerStep optimizer_step(const workload::LlmConfig& c);
inline constexpr double kMultiTensorElements = 320.0 * 65536;

}  // namespace collsim::jobs
