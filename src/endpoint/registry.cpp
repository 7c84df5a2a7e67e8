// The list of endpoint models. Adding one: a file in endpoint/ defining its *_info() (name,
// description, source, factory, training share), and its line here.
#include "endpoint/endpoint.hpp"

namespace collsim::endpoint {

// One line each, in the order of `collsim list` and of the "valid:" lists.
EndpointInfo none_info();           // ideal.cpp
EndpointInfo ideal_info();          // ideal.cpp
EndpointInfo baseline_info();       // npu_driven.cpp
EndpointInfo baseline_plus_info();  // npu_driven.cpp
EndpointInfo ace_info();            // ace.cpp

const core::Registry<EndpointInfo>& endpoints() {
  static const core::Registry<EndpointInfo> all(
      "endpoint", {none_info(), ideal_info(), baseline_info(), baseline_plus_info(), ace_info()});
  return all;
}

const EndpointInfo& find_endpoint(std::string_view name, std::string_view field) {
  return endpoints().find(name, field);
}

}  // namespace collsim::endpoint
