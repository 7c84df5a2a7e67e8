#pragma once
// One parameter type for every schema a user fills in: algorithm parameters
// (`ring:directions=2`), network backend options (`--vcs 2`, a scenario's `backend:` map) and
// endpoint parameters (`--endpoint-param ace_sram=4MiB`) (docs/design.md "Habits", Registry).
// A ParamSpec says key, type, unit, allowed range or choices, default, description and paper
// source; parse_param is the one path from text to a checked value, format_param the one path
// back, type_text / range_text describe it for `collsim list`. Each layer binds the values to its
// own storage (BackendParam's set/get, EndpointParam's member, an algorithm's value map); the
// values are read once at set-up, never on a hot path.
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "core/units.hpp"

namespace collsim::core {

enum class ParamType {
  Count,      ///< a whole number of `unit` ("318")
  Choice,     ///< one of `choices`, stored as its index
  Bool,       ///< true or false; on the command line a flag
  Bytes,      ///< a size with its unit: "256 B"
  Bandwidth,  ///< "16 GB/s"
  Time,       ///< "150 ns"
  Share,      ///< a fraction in (0, 1], written "0.94" or "94%"
  Frequency,  ///< a clock: "700 MHz"
  Flops,      ///< a compute rate: "91.75 TFLOP/s"
};

/// Index into a Choice parameter's `choices`.
struct ChoiceIndex {
  std::uint32_t index = 0;
  friend bool operator==(ChoiceIndex, ChoiceIndex) = default;
};

/// A parameter's value; the alternative follows its ParamType (Count: std::uint64_t; Share,
/// Frequency and Flops: double, in 1, Hz and FLOP/s).
using ParamValue = std::variant<Bytes, Bandwidth, Time, std::uint64_t, bool, ChoiceIndex, double>;

struct ParamSpec {
  std::string_view key = {};  ///< snake_case: "vc_buffer_flits"; indexed: ends in "K" ("dimK")
  ParamType type = ParamType::Count;
  std::string_view unit = {};  ///< Count: what is counted ("flits"); other types carry their unit
  /// Allowed range, inclusive: Count in units, Bytes in bytes, Time in ps (Bandwidth, Share,
  /// Frequency, Flops: > 0; Share also <= 1).
  std::uint64_t min = 0;
  std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  std::span<const std::string_view> choices = {};  ///< Choice: the accepted words, in enum order
  /// The default when the values live in a map (algorithms); nullopt when the struct a layer binds
  /// the parameter to holds it as its member initializer (BackendOptions, EndpointParams).
  std::optional<ParamValue> default_value = std::nullopt;
  /// Optional parameters: what leaving it unset means ("no cap"). Empty: it always has a value.
  std::string_view unset = {};
  std::string_view description = {};
  std::string_view source = {};  ///< paper, table or section of the model or the default
  /// One parameter per index K = 0 .. kMaxParamIndex: the user writes dim0, dim1, ... for "dimK".
  bool indexed = false;
};

/// Largest K of an indexed parameter ("dimK"): far above any platform's dimension count.
inline constexpr std::uint32_t kMaxParamIndex = 1023;

/// K when `key` names an instance of the indexed parameter `p` ("dim5" of "dimK"; one spelling
/// per index, so no leading zeros), else nullopt.
std::optional<std::uint32_t> param_index(const ParamSpec& p, std::string_view key);
/// True when `key` names `p` (for an indexed one: any of its instances).
bool names_param(const ParamSpec& p, std::string_view key);

/// Parse `text` as the parameter's value and check its range or choices. Throws core::InputError
/// starting with `field`, e.g. `--vcs: must be >= 1, got 0`.
ParamValue parse_param(const ParamSpec& p, std::string_view text, std::string_view field);
/// A Count, Choice or Bool value from its word, checked; or, as the second alternative, why it is
/// not one without a field ("must be <= 2, got 5"), for callers that name the field themselves.
std::variant<ParamValue, std::string> parse_word(const ParamSpec& p, std::string_view text);
/// Empty if `v` is within the parameter's range, else the reason ("must be >= 1, got 0").
std::string check_param(const ParamSpec& p, const ParamValue& v);
/// A value as the user writes it: "256 B", "16 GB/s", "150 ns", "4", "true", "wormhole", "94%",
/// "700 MHz", "91.75 TFLOP/s".
std::string format_param(const ParamSpec& p, const ParamValue& v);
/// "bytes", "bandwidth", "time", "count of flits", "bool", "choice", "share", "frequency", "flops".
std::string type_text(const ParamSpec& p);
/// The allowed values: "1..4294967295", "> 0", "virtual-cut-through or wormhole".
std::string range_text(const ParamSpec& p);
/// The command-line flag: "--vc-buffer-flits" for "vc_buffer_flits".
std::string cli_flag(const ParamSpec& p);
/// A Count or Choice value as a whole number (a choice: its index; bool: 0 or 1).
std::int64_t as_integer(const ParamValue& v);

}  // namespace collsim::core
