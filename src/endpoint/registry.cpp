// The list of endpoint models. Adding one: a file in endpoint/ and one line here.
#include <fmt/format.h>

#include "core/error.hpp"
#include "endpoint/endpoint.hpp"

namespace collsim::endpoint {

const std::vector<EndpointInfo>& endpoints() {
  static const std::vector<EndpointInfo> all = {
      {"ideal",
       "no endpoint cost: a message is on the wire when the executor sends it and usable when "
       "its last byte arrives (reduction and memory traffic take no time)",
       "ACE (MICRO'20) Sec. 5, the \"Ideal\" system (unlimited NIC resources, no endpoint latency)",
       [](core::Simulation&, network::Backend& b,
          const topology::Topology&) -> std::unique_ptr<Endpoint> {
         return std::make_unique<Ideal>(b);
       }},
  };
  return all;
}

const EndpointInfo& find_endpoint(std::string_view name, std::string_view field) {
  for (const EndpointInfo& e : endpoints()) {
    if (e.name == name) return e;
  }
  std::string valid;
  for (const EndpointInfo& e : endpoints()) valid += (valid.empty() ? "" : ", ") + e.name;
  throw core::InputError(fmt::format("{}: unknown endpoint \"{}\"; valid: {}", field, name, valid));
}

}  // namespace collsim::endpoint
