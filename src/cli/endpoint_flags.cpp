#include "cli/endpoint_flags.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cli/output.hpp"
#include "core/error.hpp"

namespace collsim::cli {

void add_endpoint_options(CLI::App& app, std::string& endpoint, std::vector<std::string>& params) {
  std::string names;
  for (const auto& e : endpoint::endpoints()) names += (names.empty() ? "" : ", ") + e.name;
  app.add_option("--endpoint", endpoint,
                 fmt::format("endpoint model(s), comma-separated, one row each: {} (ACE, "
                             "MICRO'20; `collsim list` describes them)",
                             names))
      ->default_str(std::string(endpoint::kDefaultEndpoint));
  app.add_option("--endpoint-param", params,
                 "endpoint parameter KEY=VALUE, repeatable, e.g. link_efficiency=94% or "
                 "npu_memory_bandwidth=900GB/s (`collsim list` shows the keys)")
      ->type_name("KEY=VALUE");
}

std::vector<const endpoint::EndpointInfo*> parse_endpoints(const std::string& list) {
  std::vector<const endpoint::EndpointInfo*> out;
  for (const std::string& name : split_commas(list.empty() ? std::string(endpoint::kDefaultEndpoint) : list)) {
    const endpoint::EndpointInfo* e = &endpoint::find_endpoint(name, "--endpoint");
    if (std::find(out.begin(), out.end(), e) != out.end()) {
      throw core::InputError(fmt::format("--endpoint: \"{}\" is named twice", name));
    }
    out.push_back(e);
  }
  return out;
}

endpoint::EndpointParams parse_endpoint_params(const std::vector<std::string>& params) {
  endpoint::EndpointParams p;
  for (const std::string& a : params) endpoint::set_endpoint_param(p, a, "--endpoint-param");
  return p;
}

}  // namespace collsim::cli
