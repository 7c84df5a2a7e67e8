#pragma once
// Training workloads: a DNN as a list of layers, each with the compute time of its three passes
// (forward, input gradient, weight gradient) and the collective each pass issues, as decided by
// the parallelism (MultiTree Sec. V, ACE Sec. 5, Themis Sec. 5.2; the layer table of ASTRA-sim's
// text workloads has the same shape).
//
// Parallelism is described by the model-parallel group size M: NPUs [k M, (k + 1) M) hold one
// replica of the model, split among them (their model-parallel group); NPUs with the same id
// mod M hold the same shard in different replicas (their data-parallel group). M = 1 is pure data
// parallelism, M = N pure model parallelism. NPU ids run innermost dimension first, so when M is
// the product of the innermost dimensions' sizes, model-parallel groups are those dimensions and
// data-parallel groups the outer ones (Themis's Transformer-1T: model-parallel over the first 128
// NPUs). Every NPU runs the same layers at the same times (SPMD), so one compute timeline stands
// for all of them.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collective/collective.hpp"
#include "core/units.hpp"

namespace collsim::workload {

enum class Pass { Forward = 0, InputGradient = 1, WeightGradient = 2 };
inline constexpr std::size_t kPasses = 3;
/// "forward", "input-gradient", "weight-gradient".
const char* to_string(Pass p);

/// Which NPUs one collective of a layer spans.
enum class Scope {
  All,            ///< every NPU of the platform
  DataParallel,   ///< every data-parallel group at once (same shard, different replicas)
  ModelParallel,  ///< every model-parallel group at once (one replica's NPUs)
};
const char* to_string(Scope s);

/// The collective a pass issues when its compute ends; none when `collective` is empty.
/// Forward and input-gradient collectives block the next step unless `overlapped`: then a
/// forward collective is waited for before layer `needed_before`'s forward pass (DLRM: the
/// embedding all-to-all runs beside the bottom MLP and is needed by the interaction, Themis
/// Sec. 6.2), and an input-gradient one before this layer's next forward pass (or at the end).
struct Comm {
  std::optional<collective::Collective> collective;
  core::Bytes size;  ///< collective.hpp conventions (all-reduce: the buffer of one NPU)
  Scope scope = Scope::All;
  bool overlapped = false;
  std::uint32_t needed_before = 0;  ///< forward, overlapped: a later layer's index
};

struct Layer {
  std::string name;
  std::array<core::Time, kPasses> compute{};  ///< indexed by Pass
  std::array<Comm, kPasses> comm{};           ///< indexed by Pass
  core::Time update;  ///< weight update, after the weight-gradient collective has finished
};

namespace chakra {
struct TraceWorkload;
}

struct Workload {
  std::string name;
  std::string source;  ///< where it came from: a file path, or "model zoo: resnet50 (...)"
  /// A Chakra trace that is not one SPMD iteration (send / recv, communicator groups, ranks
  /// that differ, or a trace collsim wrote): run rank by rank as its workload graph
  /// (formats/chakra_graph.hpp) instead of `layers`, which is then empty.
  std::shared_ptr<const chakra::TraceWorkload> trace;
  /// M above: NPUs per model-parallel group; 0 means every NPU (pure model parallelism).
  std::uint32_t model_parallel_npus = 1;
  std::vector<Layer> layers;
};

/// Check a workload against a platform of `npus` NPUs: at least one layer, M divides npus,
/// collectives with non-zero sizes, no negative times, an overlapped forward collective needed
/// by a later layer. Throws core::InputError naming the layer and field.
void validate(const Workload& w, std::uint32_t npus);

}  // namespace collsim::workload
