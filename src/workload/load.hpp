#pragma once
// One entry point for every workload a user can name (`collsim train --workload`, a scenario's
// training job): a collsim workload file (.yaml / .yml, yaml_workload.hpp) or an ASTRA-sim text
// workload (any other existing file, astra_text.hpp).
#include <string>

#include "topology/topology.hpp"
#include "workload/workload.hpp"

namespace collsim::workload {

struct LoadOptions {
  double astra_clock_hz = 1e9;  ///< ASTRA-sim compute times are cycles of this clock
};

/// Throws core::InputError naming `field` when `spec` names nothing loadable, or what the reader
/// throws (file, line and field).
Workload load_workload(const std::string& spec, const topology::Topology& topo,
                       const LoadOptions& options, const std::string& field);

}  // namespace collsim::workload
