#pragma once
// collsim's own workload file: per-layer compute times and collectives given directly (for
// measured or imported layers), one YAML file:
//
//   name: toy                       # optional; default: the file name
//   model_parallel_npus: 1          # M (workload.hpp); 0 = every NPU; default 1 (data parallel)
//   layers:
//     - name: conv1
//       forward: {compute: 12 us}
//       input_gradient: {compute: 12 us}
//       weight_gradient: {compute: 25 us, collective: all-reduce, size: 9408 B}
//       update: 1 us                # optional
//     - name: fc
//       forward: {compute: 3 us, collective: all-gather, size: 1 MiB, scope: model-parallel}
//
// A pass may be omitted (no compute, no collective). `scope` is all (default), data-parallel or
// model-parallel. Times and sizes take units (core/parse.hpp). Errors are core::InputError
// naming the file, line and key path.
#include <string>
#include <string_view>

#include "workload/workload.hpp"

namespace collsim::workload {

/// Parse a workload from YAML text; `source` names it in errors (and is Workload::source).
Workload parse_yaml_workload(std::string_view text, const std::string& source);
/// Read and parse a file; InputError if it cannot be read.
Workload read_yaml_workload(const std::string& path);

}  // namespace collsim::workload
