#pragma once
// Per-operation cost of a transformer layer on one GPU (docs/llm.md "Compute"): FLOPs and HBM
// bytes of every operation of a Megatron-LM layer (layer norms, QKV, attention scores, softmax,
// attention over values, output projection, dropout and residual, MLP or MoE experts), each
// timed on the GPU's roofline:
//   matmul       time = max(flops / (peak_16bit x matmul_efficiency), bytes / HBM bandwidth)
//   element-wise time = bytes / HBM bandwidth
// `matmul_efficiency` is the one free parameter (docs/llm.md says how it is chosen). Backward
// is twice the forward (input and weight gradients); recomputation adds the forward of the
// whole layer (full) or of the attention core (selective, Korthikanti et al. 2022 Sec. 4.2).
//
// FLOP counts match Narayanan et al. SC'21 eq. (3) for GPT layers: 24 B s h^2 + 4 B s^2 h per
// layer forward, 2 B s h V for the logits; memory follows Korthikanti et al. 2022 Table 2 and
// ZeRO (Rajbhandari et al. 2020) Sec. 3 / 5 for weights, gradients and optimizer states.
#include <cstdint>

#include "compute/gpu_specs.hpp"
#include "core/units.hpp"
#include "workload/llm_config.hpp"

namespace collsim::jobs {

/// Compute of one pass on one GPU, and its FLOPs.
struct PassCost {
  core::Time time;
  double flops = 0;
};

struct LlmCosts {
  // One transformer layer, one micro-batch, one GPU.
  PassCost fwd, bwd, recompute;
  /// The attention core's forward (scores, softmax, attention over values): the compute a ring
  /// attention step (cp > 1) overlaps its key/value exchange with.
  core::Time attention_core_fwd;
  /// The forward up to the MLP (norm, QKV, attention core, projection, residual, norm): where
  /// the attention block's tensor-parallel collective falls; the rest of `fwd` is the MLP.
  core::Time attention_fwd;
  // Extras on the first virtual stage (embedding) and the last (logits and loss).
  PassCost embed_fwd, embed_bwd, head_fwd, head_bwd;

  // Communication sizes.
  core::Bytes tp_bytes;   ///< one TP all-reduce / all-gather / reduce-scatter (the full tensor)
  std::uint32_t tp_per_pass = 0;  ///< TP collectives per layer per pass (2 all-reduces, or 2 AG + 2 RS)
  core::Bytes pp_bytes;   ///< one activation (or gradient) message between stages, per sender
  std::uint32_t pp_senders = 1;  ///< messages sent in parallel per stage boundary (tp x cp)
  core::Bytes ep_bytes;   ///< one rank's send buffer of a dispatch or combine all-to-all
  core::Bytes cp_bytes;   ///< one ring-attention step's key/value block per rank

  // Parameters held by one GPU (bf16 elements).
  double layer_dense_params = 0;   ///< per layer: attention, norms, dense or shared MLP, router
  double layer_expert_params = 0;  ///< per layer: this GPU's experts
  double embed_params = 0;         ///< the (tied) embedding, on the first and last stage

  // Whole-iteration FLOPs (all GPUs).
  double model_flops = 0;     ///< no recomputation: MFU counts these
  double hardware_flops = 0;  ///< with recomputation: Narayanan et al.'s "achieved" FLOP/s

  // Optimizer step per parameter on the GPU (Adam, mixed precision: ~32 bytes of HBM traffic).
  core::Bandwidth hbm;
};

/// Throws core::InputError if the efficiency is outside (0, 1].
LlmCosts llm_costs(const workload::LlmConfig& c, const compute::GpuSpec& gpu,
                   double matmul_efficiency);

/// Adam step over `params` parameters in HBM (bytes read and written: fp32 master, m, v and
/// gradient read, the three written back with the bf16 weights: 30 bytes per parameter).
core::Time optimizer_time(double params, core::Bandwidth hbm);

/// Memory per GPU in bytes (Korthikanti et al. 2022 Sec. 4 for activations; ZeRO Sec. 3 for the
/// 2 + 2 + 12 bytes per parameter of mixed-precision Adam, divided by stage).
struct LlmMemory {
  double weights = 0, gradients = 0, optimizer = 0, activations = 0;
  double total() const { return weights + gradients + optimizer + activations; }
};
/// The stage with the most: stage 0 (it holds the most micro-batches in flight under 1F1B and
/// the embedding).
LlmMemory llm_memory(const workload::LlmConfig& c, const LlmCosts& costs);

/// Korthikanti et al. 2022 Table 2: activation bytes of one layer for one micro-batch on one
/// GPU: s b h (34 + 5 a s / h) without parallelism; with tensor parallel t, sequence parallel,
/// selective or full recompute as the table lists. With flash attention the scores' term
/// (5 a s / h) is dropped, as with selective recomputation.
double activation_bytes_per_layer(const workload::LlmConfig& c);

}  // namespace collsim::jobs
