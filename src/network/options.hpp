#pragma once
// Backend options across the registry: which backends take a parameter, refusing a parameter
// given to a backend that does not take it, and the options one backend gets. The parameters
// themselves are declared by each backend (params.hpp).
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "network/backend.hpp"
#include "network/params.hpp"

namespace collsim::network {

/// Every backend's parameters, each key once (first declaration), in registry order.
std::vector<const BackendParam*> all_params();
/// The parameter with scenario key `key`, or nullptr.
const BackendParam* find_param(std::string_view key);
/// True if `info` declares the parameter `key`.
bool takes(const BackendInfo& info, std::string_view key);
/// The backends that take `key`, comma-separated: "flow".
std::string backends_taking(std::string_view key);

/// Throws core::InputError for parameter `p`, written `option` by the user, given to `chosen`
/// backends none of which takes it:
///   "{field}: the queue backend does not model NPU injection/ejection limits;
///    npu_injection_bandwidth is taken by: flow"
[[noreturn]] void refuse_param(const BackendParam& p, std::span<const BackendInfo* const> chosen,
                               std::string_view field, std::string_view option);

/// Parse `text` and set parameter `p` in `options`; errors name `field`.
void set_param(const BackendParam& p, BackendOptions& options, std::string_view text,
               std::string_view field);

/// The parameters of `given` that `info` takes; every other parameter at its default.
BackendOptions options_for(const BackendInfo& info, const BackendOptions& given);

/// For options built in code: throws core::InputError naming `field` if `options` sets a
/// parameter `info` does not take, or one of its parameters out of range.
void check_options(const BackendInfo& info, const BackendOptions& options, std::string_view field);

}  // namespace collsim::network
