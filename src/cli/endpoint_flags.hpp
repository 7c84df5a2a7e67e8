#pragma once
// --endpoint NAME[,NAME...] and --endpoint-param KEY=VALUE (repeatable) for `collsim collective`
// and `collsim train`: every job runs once per endpoint (like --backend), all with the same
// parameters (endpoint/params.hpp).
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "endpoint/endpoint.hpp"

namespace collsim::cli {

void add_endpoint_options(CLI::App& app, std::string& endpoint, std::vector<std::string>& params);
/// Throws core::InputError naming --endpoint for an unknown or repeated name.
std::vector<const endpoint::EndpointInfo*> parse_endpoints(const std::string& list);
/// Throws core::InputError naming --endpoint-param and the key.
endpoint::EndpointParams parse_endpoint_params(const std::vector<std::string>& params);

}  // namespace collsim::cli
