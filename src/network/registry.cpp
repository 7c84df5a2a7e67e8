// The list of network backends. Adding one: a file in network/ and one line here.
#include <fmt/format.h>

#include "core/error.hpp"
#include "network/analytical.hpp"
#include "network/backend.hpp"

namespace collsim::network {

const std::vector<BackendInfo>& backends() {
  static const std::vector<BackendInfo> all = {
      {"analytical",
       "congestion-unaware alpha-beta: route latency + bytes / bottleneck bandwidth, cut-through; "
       "messages never contend",
       [](core::Simulation& sim, const topology::Topology& topo) -> std::unique_ptr<Backend> {
         return std::make_unique<AnalyticalBackend>(sim, topo);
       }},
  };
  return all;
}

const BackendInfo& find_backend(std::string_view name, std::string_view field) {
  for (const BackendInfo& b : backends()) {
    if (b.name == name) return b;
  }
  std::string valid;
  for (const BackendInfo& b : backends()) valid += (valid.empty() ? "" : ", ") + b.name;
  throw core::InputError(fmt::format("{}: unknown backend \"{}\"; valid: {}", field, name, valid));
}

}  // namespace collsim::network
