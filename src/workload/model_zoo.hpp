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
};

/// The work of each pass of each workload layer (indexed like the layers of data_parallel()).
struct LayerWork {
  std::string name;
  std::array<compute::PassWork, kPasses> pass;
  std::uint64_t params = 0;
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

/// The model's usual parallelism: hybrid_dlrm for models with embedding tables, else
/// data_parallel.
Workload build_workload(const Model& m, const compute::ComputeModel& compute,
                        const BuildOptions& o);

}  // namespace collsim::workload
