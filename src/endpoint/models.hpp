#pragma once
// The endpoint models' factories (registry.cpp lists them; one file each).
#include <memory>

#include "endpoint/endpoint.hpp"

namespace collsim::endpoint {

/// baseline (plus = false) and baseline++ (plus = true): npu_driven.cpp.
std::unique_ptr<Endpoint> make_npu_driven(core::Simulation& sim, network::Backend& backend,
                                          const topology::Topology& topo, const EndpointParams& p,
                                          bool plus);
TrainingShare npu_driven_share(const EndpointParams& p, bool plus);
/// ace.cpp.
std::unique_ptr<Endpoint> make_ace(core::Simulation& sim, network::Backend& backend,
                                   const topology::Topology& topo, const EndpointParams& p);
TrainingShare ace_share(const EndpointParams& p);

}  // namespace collsim::endpoint
