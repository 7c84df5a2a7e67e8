#pragma once
// `collsim llm CONFIG.yaml` (docs/llm.md): a transformer model, its parallel split and the system
// it runs on, read strictly (io/yaml_reader.hpp: errors name file, line and key; unknown keys are
// refused listing the valid ones). Every error is core::InputError (exit 2).
//
//   model:    {preset: gpt3-175b} or {layers, hidden, heads, ffn_hidden, seq_len, vocab, ...}
//   parallel: {tp, pp, dp, micro_batch, global_batch, ...}
//   system:   {gpu, gpus_per_node, nics_per_node, nic_bandwidth, platform, ...}
//
// Checks follow Megatron-LM's own (megatron/training/arguments.py): layers divisible by pp x vpp,
// heads and kv_heads by tp, global_batch by dp x micro_batch, micro-batches by pp when vpp > 1,
// ep dividing dp x cp and the experts.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/units.hpp"

namespace collsim::workload {

enum class PositionEmbedding { Learned, Rope };

struct LlmModel {
  std::string name;  ///< preset name, or "custom"
  std::uint32_t layers = 0, hidden = 0, heads = 0, kv_heads = 0, ffn_hidden = 0;
  std::uint32_t seq_len = 0, vocab = 0;
  std::uint32_t experts = 0;         ///< 0: dense
  std::uint32_t top_k = 2;           ///< experts per token (MoE only)
  std::uint32_t moe_ffn_hidden = 0;  ///< each expert's FFN width (0: ffn_hidden)
  std::uint32_t shared_experts = 0;  ///< always-on experts of width moe_ffn_hidden (DeepSeekMoE)
  bool gated_mlp = false;            ///< SwiGLU: three FFN matrices instead of two
  bool flash_attention = false;      ///< attention scores never written to HBM
  bool bias = true;                  ///< linear layers have biases (GPT-3; not Llama)
  bool dropout = true;               ///< attention and hidden dropout (GPT-3 0.1; Llama none)
  PositionEmbedding position_embedding = PositionEmbedding::Learned;  ///< learned or RoPE
  std::string source;                ///< where a preset's sizes come from

  std::uint32_t head_dim() const { return hidden / heads; }
  std::uint32_t expert_ffn() const { return moe_ffn_hidden ? moe_ffn_hidden : ffn_hidden; }
};

/// Model presets with their sources (docs/llm.md lists them).
const std::vector<LlmModel>& llm_presets();
/// Throws core::InputError naming `field` for an unknown name.
const LlmModel& find_llm_preset(std::string_view name, std::string_view field);

enum class Zero { None, One, Two, Three, Fsdp };
enum class Recompute { None, Selective, Full };
enum class PipeSchedule { OneFOneB, GPipe };
/// The gradient buffer's element: the 16-bit type (ZeRO's accounting, Megatron with fp16) or fp32
/// (Megatron's default with bf16: gradients accumulated and reduced in fp32).
enum class GradDtype { Bits16, Fp32 };
const char* to_string(Zero z);
const char* to_string(Recompute r);
const char* to_string(PipeSchedule s);
const char* to_string(GradDtype g);

struct LlmParallel {
  std::uint32_t tp = 1, pp = 1, dp = 1, ep = 1, cp = 1, vpp = 1;
  std::uint32_t micro_batch = 1, global_batch = 1;
  bool sequence_parallel = false;
  Zero zero = Zero::None;
  Recompute recompute = Recompute::None;
  PipeSchedule schedule = PipeSchedule::OneFOneB;  ///< vpp > 1: interleaved 1F1B
  /// Gradient buckets reduce while the backward pass runs (Megatron --overlap-grad-reduce,
  /// PyTorch DDP); false: all after the last backward (Megatron's "local" DDP of 2021).
  bool overlap_grad_reduce = true;
  /// Expert load imbalance: the busiest expert rank gets ep_skew times the mean tokens (>= 1).
  double ep_skew = 1.0;
  GradDtype grad_dtype = GradDtype::Bits16;

  std::uint32_t gpus() const { return tp * cp * dp * pp; }
  std::uint32_t micro_batches() const { return global_batch / (dp * micro_batch); }
};

struct LlmPlatform {
  std::string topology;  ///< a compact form (collsim list), e.g. hier:sw8xsw4
  core::Bandwidth link_bandwidth;
  core::Time link_latency;
};

struct LlmSystem {
  std::string gpu;
  std::uint32_t gpus_per_node = 8;
  std::optional<std::uint32_t> nics_per_node;      ///< unset: the GPU's standard cluster
  std::optional<core::Bandwidth> nic_bandwidth;    ///< unset: the GPU's standard cluster
  std::optional<LlmPlatform> platform;             ///< unset: the GPU's standard cluster
  std::optional<double> matmul_efficiency;         ///< unset: the GPU's default (docs/llm.md)
  std::optional<double> memory_efficiency;         ///< unset: the GPU's (share of HBM bandwidth)
  std::string backend = "flow";
  std::string algorithm = "ring";
  std::uint32_t gpus = 0;                          ///< the job's GPUs (0: tp x cp x dp x pp)
  std::optional<core::Bytes> gpu_memory;           ///< unset: the GPU preset's capacity
};

/// Which keys of `parallel` the config gives (`collsim llm --search` explores the others).
struct LlmGiven {
  bool tp = false, pp = false, dp = false, ep = false, cp = false, vpp = false;
  bool micro_batch = false, sequence_parallel = false, zero = false, recompute = false;
};

struct LlmConfig {
  LlmModel model;
  LlmParallel parallel;
  LlmSystem system;
  LlmGiven given;
  /// False for a job-only config (system.gpus without tp, pp, dp and micro_batch): only
  /// `--search` runs it.
  bool complete = true;
};

/// Whether a complete split passes the checks parse_llm_config makes (Megatron-LM's): layers by
/// pp x vpp, heads and ffn by tp, kv_heads and tp dividing one another, the global batch by
/// dp x micro_batch, interleaving with pp > 1 and micro-batches divisible by pp, seq_len by 2 x cp,
/// ep dividing dp x cp and the experts (1 for a dense model), and the size limits.
bool valid_split(const LlmConfig& c);

/// Parse config text; `source` names it in errors.
LlmConfig parse_llm_config(const std::string& text, const std::string& source);
/// Read and parse a file (an unreadable file is an InputError naming it).
LlmConfig load_llm_config(const std::string& path);
/// The vocabulary as Megatron pads it: up to a multiple of 128 x tp
/// (--make-vocab-size-divisible-by 128, times the tensor-parallel size).
std::uint64_t padded_vocab(std::uint32_t vocab, std::uint32_t tp);

}  // namespace collsim::workload
