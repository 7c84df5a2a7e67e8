#pragma once
// What one GPU spends on a transformer layer, the embedding, the head and the optimizer step
// (docs/llm.md "Compute"): the kernels Megatron-LM launches (jobs/llm_kernels.hpp), each timed by
// compute/kernel_time.hpp (max of tile-and-wave-quantized GEMM time and HBM time, plus a launch),
// summed per pass and split by kernel class. `matmul_efficiency` is the share of the dense peak a
// GEMM of whole waves of large tiles reaches (the fitted constant, docs/llm.md "Calibration").
//
// FLOP counts match Narayanan et al. SC'21 eq. (3) for GPT layers: 24 B s h^2 + 4 B s^2 h per
// layer forward, 2 B s h V for the logits; memory follows Korthikanti et al. 2022 Table 2 and
// Sec. 4.2.3, and ZeRO (Rajbhandari et al. 2020) Sec. 3 / 5 for weights, gradients and optimizer
// states (with fp32 gradients, Megatron-LM's accounting: 18 bytes per parameter, 6 + 12 / d with
// the distributed optimizer).
#include <cstdint>
#include <vector>

#include "compute/gpu_specs.hpp"
#include "core/units.hpp"
#include "jobs/llm_kernels.hpp"
#include "workload/llm_config.hpp"

namespace collsim::jobs {

/// The second fitted constant (docs/llm.md "Calibration"): the share of HBM bandwidth Megatron's
/// memory-bound kernels reach, fitted with kMatmulEfficiency to the first row of Narayanan et al.
/// SC'21 Table 1 (GPT 1.7B on 32 A100s, hidden 2,304: 137 TFLOP/s per GPU), below the 0.88 a
/// streaming read kernel measures on A100 (compute/gpu_specs.cpp). Every GPU takes it unless
/// system.memory_efficiency is given.
inline constexpr double kMemoryEfficiency = 0.721;

/// Compute of one pass on one GPU, its FLOPs (eq. (3)'s count) and its time by kernel class.
struct PassCost {
  core::Time time;
  double flops = 0;
  ClassSeconds split{};
  std::uint32_t kernels = 0;
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
  /// The backward of the attention block (after the MLP's gradients): the rest of `bwd` is the MLP.
  core::Time attention_bwd;
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

  // The optimizer step: HBM bytes per parameter and what a memory-bound kernel reaches.
  core::Bandwidth hbm;            ///< HBM bandwidth x the GPU's measured share
  OptimizerStep optimizer;
  core::Time launch;              ///< one kernel launch
};

/// Throws core::InputError if the efficiency is outside (0, 1].
LlmCosts llm_costs(const workload::LlmConfig& c, const compute::GpuSpec& gpu,
                   double matmul_efficiency);

/// The optimizer step over `params` parameters of this GPU (jobs/llm_kernels.hpp), by class.
KernelsTime optimizer_cost(double params, const LlmCosts& k);
core::Time optimizer_time(double params, const LlmCosts& k);

/// Memory per GPU in bytes (Korthikanti et al. 2022 Sec. 4 for activations; ZeRO Sec. 3 for the
/// 2 + 2 + 12 bytes per parameter of mixed-precision Adam, divided by stage).
/// Weights in 16 bits, gradients in the gradient dtype, Adam's fp32 master weights, m and v.
struct LlmMemory {
  double weights = 0, gradients = 0, optimizer = 0, activations = 0;
  double total() const { return weights + gradients + optimizer + activations; }
};
/// The stage with the most: stage 0 (it holds the most micro-batches in flight under 1F1B and
/// the embedding).
LlmMemory llm_memory(const workload::LlmConfig& c, const LlmCosts& costs);

/// The compute of each pipeline stage over one iteration, by kernel class: the forward, backward
/// and recomputation of its virtual stages for every micro-batch, the embedding on the first
/// virtual stage, the head on the last, and its optimizer step (`collsim llm --breakdown`).
struct StageKernelTime {
  ClassSeconds seconds{};
  std::uint64_t kernels = 0;
  double total() const {
    double t = 0;
    for (double s : seconds) t += s;
    return t;
  }
};
std::vector<StageKernelTime> llm_stage_breakdown(const workload::LlmConfig& c, const LlmCosts& k);

/// Korthikanti et al. 2022 Table 2: activation bytes of one layer for one micro-batch on one
/// GPU: s b h (34 + 5 a s / h) without parallelism; with tensor parallel t, sequence parallel,
/// selective or full recompute as the table lists. With flash attention the scores' term
/// (5 a s / h) is dropped, as with selective recomputation.
double activation_bytes_per_layer(const workload::LlmConfig& c);

}  // namespace collsim::jobs
