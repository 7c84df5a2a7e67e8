#include "workload/load.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "core/error.hpp"
#include "workload/yaml_workload.hpp"

namespace collsim::workload {

Workload load_workload(const std::string& spec, const topology::Topology& topo,
                       const LoadOptions& options, const std::string& field) {
  (void)topo;
  (void)options;
  const std::filesystem::path p(spec);
  std::error_code ec;
  if (std::filesystem::is_regular_file(p, ec)) {
    const auto ext = p.extension().string();
    if (ext == ".yaml" || ext == ".yml") return read_yaml_workload(spec);
  }
  throw core::InputError(fmt::format(
      "{}: \"{}\" is not a workload file (.yaml: collsim's layer list; other files: ASTRA-sim "
      "text workloads)",
      field, spec));
}

}  // namespace collsim::workload
