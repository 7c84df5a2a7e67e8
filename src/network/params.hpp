#pragma once
// Backend parameter schemas (docs/design.md "Habits"). Every backend declares, next to its code
// (flow.cpp, packet.cpp, ...), the parameters it takes: key, type, unit, range or choices,
// description, paper source and report label, with a setter and getter on the typed
// BackendOptions, whose member initializers are the defaults. Everything else is derived from
// these entries: the command-line flag (`vc_buffer_flits` -> `--vc-buffer-flits`), the scenario's
// `backend:` keys, parsing and range checks, the report label ("packet:vcs=2"), and
// `collsim list`. Adding a parameter: a field in BackendOptions (backend.hpp) and one entry in
// the backend's parameter list.
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "core/units.hpp"

namespace collsim::network {

struct BackendOptions;

enum class ParamType {
  Bytes,      ///< a size with its unit: "256 B"
  Bandwidth,  ///< "16 GB/s"
  Time,       ///< "150 ns"
  Count,      ///< a whole number of `unit`: "318"
  Bool,       ///< true or false; on the command line a flag
  Choice,     ///< one of `choices`
};

/// Index into a Choice parameter's `choices`.
struct ChoiceIndex {
  std::uint32_t index = 0;
  friend bool operator==(ChoiceIndex, ChoiceIndex) = default;
};

/// A parameter's value; the alternative follows its ParamType (Count: std::uint64_t).
using ParamValue =
    std::variant<core::Bytes, core::Bandwidth, core::Time, std::uint64_t, bool, ChoiceIndex>;

struct BackendParam {
  std::string_view key = {};  ///< scenario key, snake_case: "vc_buffer_flits"
  ParamType type = ParamType::Count;
  std::string_view unit = {};  ///< Count: what is counted ("flits"); other types carry their unit
  /// Allowed range, inclusive: Count in units, Bytes in bytes, Time in ps (Bandwidth: > 0).
  std::uint64_t min = 0;
  std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  std::span<const std::string_view> choices = {};  ///< Choice: the accepted words, in enum order
  /// Optional parameters: what leaving it unset means ("no cap"). Empty: it always has a value.
  std::string_view unset = {};
  std::string_view description = {};
  std::string_view source = {};  ///< paper, table or section of the model or the default
  /// Report label piece when the value is not the default: ":label=value"; Bool ":label" (or
  /// ":no-label"); empty label: ":value" (a Choice such as ":wormhole").
  std::string_view label = {};
  /// What a backend must model to take the parameter, for errors: "NPU injection/ejection limits".
  std::string_view models = {};
  void (*set)(BackendOptions& options, const ParamValue& value) = nullptr;
  /// The value in `options`; nullopt when an optional parameter is unset.
  std::optional<ParamValue> (*get)(const BackendOptions& options) = nullptr;
};

/// The command-line flag: "--vc-buffer-flits" for "vc_buffer_flits".
std::string cli_flag(const BackendParam& p);
/// Parse `text` as the parameter's value and check its range or choices. Throws core::InputError
/// starting with `field`, e.g. `--vcs: must be >= 1, got 0`.
ParamValue parse_param(const BackendParam& p, std::string_view text, std::string_view field);
/// Empty if `v` is within the parameter's range, else the reason ("must be >= 1, got 0").
std::string check_param(const BackendParam& p, const ParamValue& v);
/// A value as the user writes it: "256 B", "16 GB/s", "150 ns", "4", "true", "wormhole".
std::string format_param(const BackendParam& p, const ParamValue& v);
/// The default: the value in a default-constructed BackendOptions; nullopt: unset.
std::optional<ParamValue> default_value(const BackendParam& p);
/// "318", "virtual-cut-through", "none (no cap)".
std::string default_text(const BackendParam& p);
/// "bytes", "bandwidth", "time", "count of flits", "bool", "choice".
std::string type_text(const BackendParam& p);
/// The allowed values: "1..4294967295", "> 0", "virtual-cut-through or wormhole".
std::string range_text(const BackendParam& p);
/// The report label piece of `v` (see `label`); empty when `v` is the default.
std::string label_piece(const BackendParam& p, const std::optional<ParamValue>& v);

// Conversions for the set/get entries of a schema.
std::optional<ParamValue> count_value(std::uint32_t v);
std::optional<ParamValue> count_value(const std::optional<std::uint32_t>& v);
std::optional<ParamValue> bytes_value(std::uint64_t bytes);
std::optional<ParamValue> bandwidth_value(const std::optional<core::Bandwidth>& v);
/// A Count or Bytes value whose range (max <= 2^32 - 1) makes it fit.
std::uint32_t as_u32(const ParamValue& v);

}  // namespace collsim::network
