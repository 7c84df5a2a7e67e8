#pragma once
// One BackendInfo per backend, each defined in the backend's own file with its description,
// parameter schema and factory, and listed once in registry.cpp.
#include "network/backend.hpp"

namespace collsim::network {

BackendInfo analytical_info();
BackendInfo queue_info();
BackendInfo flow_info();
BackendInfo packet_info();
BackendInfo optical_info();

}  // namespace collsim::network
