#pragma once
// The model zoo (models/*.yaml, written by tools/make_model_zoo.py from per-layer tables): layer
// facts (trainable parameters, forward multiply-accumulates and output elements per sample,
// output shape), and the training workloads built from them for a batch, a compute model and a
// gradient precision.
//
// Layers. A row with multiply-accumulates (conv, linear, matmul, LSTM, attention) starts a
// workload layer; the element-wise rows after it (batch norm, ReLU, pooling, residual adds)
// belong to it, as frameworks fuse them and as ASTRA-sim's layer tables count them (ResNet-50:
// 54 layers). Rows before the first such row, and embeddings, are layers of their own.
//
// Matrix products per sample, from the output shape: convolutions (C x H x W) have
// m = H W output positions and n = C filters; other layers (tokens x features, or features)
// have n = the last dimension and m = the product of the others; k = MACs / (m n) (rounded up,
// at least 1). With a batch of B samples per NPU (im2col lowering):
//   forward          (B m) x k  times  k x n
//   input gradient   (B m) x n  times  n x k      (a matmul without weights: two products)
//   weight gradient  k x (B m)  times  (B m) x n  (only for layers with parameters)
// FLOPs are 2 x MACs per product; memory traffic counts the parameters once and every output
// element of the layer's rows twice (written, then read), times the precision. Element-wise
// work adds no FLOPs (the tables list none).
#include <cstdint>
#include <string>
#include <vector>

#include "compute/compute.hpp"
#include "workload/workload.hpp"

namespace collsim::workload {

struct ModelRow {
  std::string name, type;
  std::uint64_t params = 0, macs = 0, activations = 0;
  std::vector<std::uint64_t> shape;
};

struct Model {
  std::string name, description, source;
  std::uint64_t params = 0;  ///< the file's total, checked against the rows
  std::vector<ModelRow> rows;
  /// `model_parallel: N` in the file: trained tensor parallel over up to N NPUs (0: not).
  std::uint32_t model_parallel = 0;
  /// `recompute: true`: activation checkpointing (back-propagation redoes the forward pass).
  bool recompute = false;
};

/// Parse a model file; `source` names it in errors (core::InputError: file, line, key).
Model parse_model(const std::string& text, const std::string& source);
/// The directories searched for NAME.yaml, in order: $COLLSIM_MODELS, `<the executable's
/// directory>/../share/collsim/models`, and the source tree's models/.
std::vector<std::string> model_dirs();
/// The model called `name` (core::InputError naming `field` and listing the models if none).
Model find_model(const std::string& name, const std::string& field);
/// Names of every model in the first directory that has any, sorted.
std::vector<std::string> model_names();

struct BuildOptions {
  std::uint32_t batch = 16;  ///< samples per NPU (MultiTree Sec. V: 16)
  std::uint32_t bytes_per_element =
      4;  ///< gradients and activations (MultiTree Table III: 32 bits)
  /// NPUs of a tensor-parallel group (model.model_parallel resolved on the platform by
  /// model_parallel_group); 0 or 1: none.
  std::uint32_t model_parallel = 0;
};

/// The tensor-parallel group for a model that asks for up to `up_to` NPUs on a platform with
/// these dimension sizes (innermost first): the largest product of leading dimensions that is
/// at most `up_to` (Themis Sec. 5.2: Transformer-1T is "model-parallel across the first
/// dimensions up to 128 NPUs"); on a platform without dimensions (one size), the largest
/// divisor of it that is at most `up_to`.
std::uint32_t model_parallel_group(std::uint32_t up_to, const std::vector<std::uint32_t>& dims);

/// The work of each pass of each workload layer (indexed like the layers of data_parallel()).
struct LayerWork {
  std::string name;
  std::array<compute::PassWork, kPasses> pass;
  std::uint64_t params = 0;
  std::uint64_t activations = 0;  ///< output elements per sample of the layer's first row
  std::uint64_t inputs = 0;       ///< its input elements per sample (m x k; 0 without MACs)
};
std::vector<LayerWork> layer_work(const Model& m, const BuildOptions& o);

/// Data parallelism: every layer's compute from `compute`, and a weight-gradient all-reduce of
/// params x bytes_per_element over every NPU for layers with parameters. Throws
/// core::InputError for a model whose embedding tables cannot be data parallel (DLRM).
Workload data_parallel(const Model& m, const compute::ComputeModel& compute, const BuildOptions& o);

/// DLRM's hybrid parallelism (Themis Sec. 5.2 and 6.2): the embedding tables (embedding_bag
/// rows) are model parallel, one layer whose lookups are memory traffic, with an all-to-all of
/// batch x (tables x dimension) x bytes per NPU in the forward pass (overlapped with the bottom
/// MLP, needed by the interaction) and the same in back-propagation (needed by the next
/// iteration's lookups); the MLPs are data parallel. Layer order: embeddings, bottom MLP,
/// interaction, top MLP. Throws core::InputError for a model without embedding_bag rows.
Workload hybrid_dlrm(const Model& m, const compute::ComputeModel& compute, const BuildOptions& o);

/// Tensor (Megatron) model parallelism inside groups of M = o.model_parallel NPUs, data
/// parallelism across them (Themis Sec. 5.2's Transformer-1T; Shoeybi et al. 2019, Megatron-LM,
/// Sec. 3). Each NPU of a group computes 1/M of every matrix product (attention heads and MLP
/// columns are split; GEMM n / M). The row-parallel layers that end a block (`*out_proj`,
/// `*fc2`) and the vocabulary-parallel token embedding all-reduce their output activations
/// (batch x output elements x bytes) over the group in the forward pass; the column-parallel
/// layers that start a block (`*qkv_proj`, `*fc1`) all-reduce their input gradients (batch x
/// input elements x bytes) in back-propagation. Weight gradients, params / M x bytes, are
/// all-reduced over the data-parallel groups: ZeRO stage 2 (which Themis's Transformer-1T uses)
/// reduce-scatters the gradients and all-gathers the updated parameters, the same bytes. With
/// model.recompute (activation checkpointing) back-propagation redoes each layer's forward compute
/// and its forward all-reduce first. Throws core::InputError if M < 2 or the model has no such
/// layers.
Workload tensor_parallel(const Model& m, const compute::ComputeModel& compute,
                         const BuildOptions& o);

/// The model's usual parallelism: hybrid_dlrm for models with embedding tables,
/// tensor_parallel when o.model_parallel > 1, else data_parallel.
Workload build_workload(const Model& m, const compute::ComputeModel& compute,
                        const BuildOptions& o);

}  // namespace collsim::workload
