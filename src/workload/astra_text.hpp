#pragma once
// ASTRA-sim 1.0's text workload format, read unchanged so that its users run their files:
//
//   KIND [key: value ...]           DATA, MODEL, HYBRID_DATA_MODEL, HYBRID_MODEL_DATA,
//                                   HYBRID_TRANSFORMER, HYBRID_TRANSFORMER_FWD_IN_BCKWD,
//                                   HYBRID_DLRM N, HYBRID_CUSTOMIZED, MICRO
//   L                               the number of layers
//   name reserved fwd_compute fwd_type fwd_size ig_compute ig_type ig_size wg_compute wg_type
//        wg_size wg_update [KIND]   one line per layer (KIND: HYBRID_CUSTOMIZED only)
//
// Fields are separated by any whitespace (the files mix tabs, repeated tabs and CRLF). Compute
// and update times are cycles (ASTRA-sim's system clock; `clock_hz`, default 1 GHz so a cycle is
// 1 ns as in its analytical backend); sizes are bytes; types are NONE, ALLREDUCE, ALLGATHER,
// REDUCESCATTER, ALLTOALL. The second field is ignored (ASTRA-sim reserves it, -1 in every file).
//
// Which NPUs a collective spans (workload.hpp scopes; P0 = size of the innermost dimension, a
// "package" in ASTRA-sim's generator):
//   DATA, MICRO          every collective over all NPUs (weight-gradient all-reduce);
//   MODEL                every collective over all NPUs (activations and input gradients);
//   HYBRID_DATA_MODEL    model parallel within a package, data parallel across packages:
//                        forward and input-gradient collectives on the model-parallel groups
//                        (M = P0 consecutive NPUs), weight-gradient ones on the data-parallel
//                        groups;
//   HYBRID_MODEL_DATA    model parallel across packages, data parallel within one: the same
//                        groups with the roles swapped (forward / input-gradient collectives on
//                        the strided groups, weight-gradient ones within a package);
//   HYBRID_TRANSFORMER, HYBRID_TRANSFORMER_FWD_IN_BCKWD   `model_parallel_NPU_group: g`: as
//                        HYBRID_DATA_MODEL with M = g;
//   HYBRID_DLRM N        every collective over all NPUs (embedding all-to-all, MLP all-reduce);
//                        the all-to-alls of layers 0..N run beside the bottom MLP (layers up to
//                        N) and are needed before layer N + 1, the backward ones at the end of
//                        the iteration (Comm::overlapped, as Themis Sec. 6.2 describes DLRM);
//   HYBRID_CUSTOMIZED    each layer's own KIND (DATA, MODEL, HYBRID_DATA_MODEL,
//                        HYBRID_MODEL_DATA) at the end of its line, M = P0.
// Not modelled (noted in Workload::source): the FWD_IN_BCKWD checkpoints (recomputing the forward
// pass in back-propagation).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "workload/workload.hpp"

namespace collsim::workload {

struct AstraTextOptions {
  double clock_hz = 1e9;  ///< cycles per second of the compute and update times
};

/// Parse `text` (`path` names it in errors) for a platform whose dimensions have `dims` NPUs each
/// (innermost first). Throws core::InputError naming the path, line and field: an unknown kind,
/// a layer count that is not a number or disagrees with the layer lines, a missing or
/// non-numeric field, an unknown collective type, a negative number, or a model-parallel group
/// that does not divide the NPUs.
Workload parse_astra_text(std::string_view text, const std::string& path,
                          const std::vector<std::uint32_t>& dims,
                          const AstraTextOptions& options = {});
/// Read the file and parse it (core::InputError if it cannot be read).
Workload read_astra_text(const std::string& path, const std::vector<std::uint32_t>& dims,
                         const AstraTextOptions& options = {});

}  // namespace collsim::workload
