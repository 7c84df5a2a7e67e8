#pragma once
// One entry point for every workload a user can name (`collsim train --workload`, a scenario's
// training job): a Chakra execution trace (PREFIX of PREFIX.<rank>.et files, or one of them;
// formats/chakra.hpp), a collsim workload file (.yaml / .yml, yaml_workload.hpp), an ASTRA-sim
// text workload (any other existing file, astra_text.hpp), or a model of the zoo
// (model_zoo.hpp), trained data parallel with `batch`, `compute` and `bytes_per_element`.
#include <string>

#include "topology/topology.hpp"
#include "workload/formats/chakra.hpp"
#include "workload/workload.hpp"

namespace collsim::workload {

struct LoadOptions {
  double astra_clock_hz = 1e9;       ///< ASTRA-sim compute times are cycles of this clock
  std::string compute = "systolic";  ///< zoo models: compute::make_compute_model text
  /// What training keeps of the NPU's compute and memory bandwidth (endpoint.hpp TrainingShare):
  /// zoo models scale their compute model; ASTRA-sim compute times stretch by 1 / compute.
  double compute_share = 1.0;
  double memory_share = 1.0;
  std::uint32_t batch = 16;             ///< zoo models: samples per NPU (MultiTree Sec. V)
  std::uint32_t bytes_per_element = 4;  ///< zoo models: gradient precision (MultiTree: 32 bits)
  chakra::ToWorkloadOptions chakra;     ///< Chakra traces: the roofline of compute nodes
};

/// Throws core::InputError naming `field` when `spec` names nothing loadable, or what the reader
/// throws (file, line and field).
Workload load_workload(const std::string& spec, const topology::Topology& topo,
                       const LoadOptions& options, const std::string& field);

}  // namespace collsim::workload
