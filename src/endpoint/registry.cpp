// The list of endpoint models. Adding one: a file in endpoint/ and one line here.
#include <fmt/format.h>

#include "core/error.hpp"
#include "endpoint/endpoint.hpp"
#include "endpoint/models.hpp"

namespace collsim::endpoint {

const std::vector<EndpointInfo>& endpoints() {
  using topology::Topology;
  static const std::vector<EndpointInfo> all = {
      {"ideal",
       "no endpoint cost: a message is on the wire when the executor sends it and usable when "
       "its last byte arrives (reduction and memory traffic take no time)",
       "ACE (MICRO'20) Sec. 5, the \"Ideal\" system (unlimited NIC resources, no endpoint latency)",
       [](core::Simulation& sim, network::Backend& b, const Topology&, const EndpointParams& p)
           -> std::unique_ptr<Endpoint> { return std::make_unique<Ideal>(sim, b, p); }},
      {"baseline",
       "NPU-driven: every message crosses the NPU-memory and NPU-NIC buses (LogGP) at both ends, "
       "reductions read and write memory; training loses 5% of compute and 20% of memory "
       "bandwidth",
       "ACE (MICRO'20) Sec. 3, 4.2 (Fig. 7b) and 5 \"Baseline\"",
       [](core::Simulation& sim, network::Backend& b, const Topology& t, const EndpointParams& p) {
         return make_npu_driven(sim, b, t, p, false);
       },
       [](const EndpointParams& p) { return npu_driven_share(p, false); }},
      {"baseline++",
       "as baseline, but training keeps what it keeps under ACE (isolates bus latency and "
       "congestion)",
       "ACE (MICRO'20) Sec. 5 \"Baseline++\"",
       [](core::Simulation& sim, network::Backend& b, const Topology& t, const EndpointParams& p) {
         return make_npu_driven(sim, b, t, p, true);
       },
       [](const EndpointParams& p) { return npu_driven_share(p, true); }},
      {"ace",
       "collective offload in the NIC: payload DMA'd into SRAM once and back once, messages "
       "reduced by ACE's ALUs, chunks in flight bounded by SRAM partitions and state machines",
       "ACE (MICRO'20) Sec. 4 and 6",
       [](core::Simulation& sim, network::Backend& b, const Topology& t, const EndpointParams& p) {
         return make_ace(sim, b, t, p);
       },
       ace_share},
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
