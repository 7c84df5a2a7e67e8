// The list of network backends. Adding one: a file in network/ defining its *_info()
// (description, parameter schema, factory), and its line here.
#include <fmt/format.h>

#include <stdexcept>

#include "core/error.hpp"
#include "network/backend.hpp"
#include "network/options.hpp"

namespace collsim::network {

// One line each, in the order of `collsim list` and of the "valid:" lists.
BackendInfo analytical_info();  // analytical.cpp
BackendInfo queue_info();       // queue.cpp
BackendInfo flow_info();        // flow.cpp
BackendInfo packet_info();      // packet.cpp
BackendInfo optical_info();     // optical.cpp

const core::Registry<BackendInfo>& backends() {
  static const core::Registry<BackendInfo> all(
      "backend", {analytical_info(), queue_info(), flow_info(), packet_info(), optical_info()});
  return all;
}

const BackendInfo& find_backend(std::string_view name, std::string_view field) {
  return backends().find(name, field);
}

}  // namespace collsim::network

namespace collsim::network {

void Backend::refuse(topology::NodeId src, topology::NodeId dst) const {
  throw std::invalid_argument(
      src == dst ? fmt::format("{} backend: send from NPU {} to itself", name(), src)
                 : fmt::format("{} backend: send {} -> {} names a node that is not one of the {} "
                               "NPUs",
                               name(), src, dst, num_npus_));
}

std::string backend_label(const BackendInfo& info, const BackendOptions& o) {
  std::string s = info.name;
  for (const BackendParam& p : info.params) s += label_piece(p, p.get(o));
  return s;
}

std::unique_ptr<Backend> make_backend(const BackendInfo& info, core::Simulation& sim,
                                      const topology::Topology& topo, const BackendOptions& options,
                                      std::string_view field) {
  check_options(info, options, field);
  return info.make(sim, topo, options);
}

}  // namespace collsim::network
