#pragma once
// Backend parameter schemas (docs/design.md "Habits"). Every backend declares, next to its code
// (flow.cpp, packet.cpp, ...), the parameters it takes: a core::ParamSpec (key, type, unit, range
// or choices, description, paper source; core/param.hpp parses, checks and describes it) with the
// backend's report label and a setter and getter on the typed BackendOptions, whose member
// initializers are the defaults. Everything else is derived from these entries: the command-line
// flag (`vc_buffer_flits` -> `--vc-buffer-flits`), the scenario's `backend:` keys, parsing and
// range checks, the report label ("packet:vcs=2"), and `collsim list`. Adding a parameter: a field
// in BackendOptions (backend.hpp) and one entry in the backend's parameter list.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/param.hpp"
#include "core/units.hpp"

namespace collsim::network {

struct BackendOptions;

using core::ChoiceIndex;
using core::ParamType;
using core::ParamValue;

struct BackendParam {
  core::ParamSpec spec;
  /// Report label piece when the value is not the default: ":label=value"; Bool ":label" (or
  /// ":no-label"); empty label: ":value" (a Choice such as ":wormhole").
  std::string_view label = {};
  /// What a backend must model to take the parameter, for errors: "NPU injection/ejection limits".
  std::string_view models = {};
  void (*set)(BackendOptions& options, const ParamValue& value) = nullptr;
  /// The value in `options`; nullopt when an optional parameter is unset.
  std::optional<ParamValue> (*get)(const BackendOptions& options) = nullptr;
};

/// The default: the value in a default-constructed BackendOptions; nullopt: unset.
std::optional<ParamValue> default_value(const BackendParam& p);
/// "318", "virtual-cut-through", "none (no cap)".
std::string default_text(const BackendParam& p);
/// The report label piece of `v` (see `label`); empty when `v` is the default.
std::string label_piece(const BackendParam& p, const std::optional<ParamValue>& v);

// Conversions for the set/get entries of a schema.
std::optional<ParamValue> count_value(std::uint32_t v);
std::optional<ParamValue> count_value(const std::optional<std::uint32_t>& v);
std::optional<ParamValue> bytes_value(std::uint64_t bytes);
std::optional<ParamValue> bandwidth_value(const std::optional<core::Bandwidth>& v);
/// A Count or Bytes value whose range (max <= 2^32 - 1) makes it fit.
std::uint32_t as_u32(const ParamValue& v);

/// `ni_policy` (NiPolicy), one schema entry shared by the packet and flow backends
/// (ni_policy.cpp).
BackendParam ni_policy_param();

}  // namespace collsim::network
