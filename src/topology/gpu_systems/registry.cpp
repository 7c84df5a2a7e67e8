// The list of GPU system presets (gpu_system.hpp): one line each.
#include <string>

#include "core/error.hpp"
#include "topology/gpu_systems/gpu_system.hpp"

namespace collsim::topology {

GpuSystem h100_system();   // h100.cpp
GpuSystem a100_system();   // a100.cpp
GpuSystem h200_system();   // h200.cpp
GpuSystem gb200_system();  // gb200.cpp

const std::vector<GpuSystem>& gpu_systems() {
  static const std::vector<GpuSystem> all = {h100_system(), a100_system(), h200_system(),
                                             gb200_system()};
  return all;
}

const GpuSystem& find_gpu_system(std::string_view name, std::string_view field) {
  std::string valid;
  for (const GpuSystem& s : gpu_systems()) {
    if (s.name == name) return s;
    valid += valid.empty() ? "" : ", ";
    valid += s.name;
  }
  throw core::InputError(std::string(field) + ": unknown GPU system '" + std::string(name) +
                         "' (valid: " + valid + ", or a scenario platform file)");
}

}  // namespace collsim::topology
