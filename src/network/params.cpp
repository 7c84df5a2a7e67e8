#include "network/params.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/error.hpp"
#include "core/parse.hpp"
#include "network/backend.hpp"

namespace collsim::network {
namespace {

constexpr std::string_view kBoolWords[] = {"true", "false"};

// A range bound as the user reads it, in the parameter's unit.
std::string bound_text(const BackendParam& p, std::uint64_t b) {
  switch (p.type) {
    case ParamType::Bytes:
      return core::to_string(core::Bytes{b});
    case ParamType::Time:
      return core::to_string(core::Time::from_ps(static_cast<std::int64_t>(b)));
    default:
      return std::to_string(b);
  }
}

std::string range_reason(const BackendParam& p, std::uint64_t v, const std::string& got) {
  if (v < p.min) return fmt::format("must be >= {}, got {}", bound_text(p, p.min), got);
  if (v > p.max) return fmt::format("must be <= {}, got {}", bound_text(p, p.max), got);
  return {};
}

// The word `text` among `words`, or an error listing them.
std::uint32_t pick(std::span<const std::string_view> words, std::string_view text,
                   std::string_view field) {
  const auto it = std::find(words.begin(), words.end(), text);
  if (it == words.end()) {
    throw core::InputError(
        fmt::format("{}: must be {}, got \"{}\"", field, fmt::join(words, " or "), text));
  }
  return static_cast<std::uint32_t>(it - words.begin());
}

}  // namespace

std::string cli_flag(const BackendParam& p) {
  std::string f = "--" + std::string(p.key);
  std::replace(f.begin(), f.end(), '_', '-');
  return f;
}

ParamValue parse_param(const BackendParam& p, std::string_view text, std::string_view field) {
  ParamValue v;
  switch (p.type) {
    case ParamType::Bytes:
      v = core::parse_bytes(text, field, p.min == 0 ? core::Zero::Allow : core::Zero::Reject);
      break;
    case ParamType::Bandwidth:
      v = core::parse_bandwidth(text, field);
      break;
    case ParamType::Time:
      v = core::parse_time(text, field, p.min == 0 ? core::Zero::Allow : core::Zero::Reject);
      break;
    case ParamType::Count: {
      std::uint64_t n = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
      if (ec == std::errc::result_out_of_range) {
        throw core::InputError(
            fmt::format("{}: must be <= {}, got {}", field, bound_text(p, p.max), text));
      }
      if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
        throw core::InputError(fmt::format("{}: must be a whole number, got \"{}\"", field, text));
      }
      v = n;
      break;
    }
    case ParamType::Bool:
      v = pick(kBoolWords, text, field) == 0;
      break;
    case ParamType::Choice:
      v = ChoiceIndex{pick(p.choices, text, field)};
      break;
  }
  if (const std::string why = check_param(p, v); !why.empty()) {
    throw core::InputError(fmt::format("{}: {}", field, why));
  }
  return v;
}

std::string check_param(const BackendParam& p, const ParamValue& v) {
  if (const auto* b = std::get_if<core::Bytes>(&v)) {
    return range_reason(p, b->count, core::to_string(*b));
  }
  if (const auto* n = std::get_if<std::uint64_t>(&v))
    return range_reason(p, *n, std::to_string(*n));
  if (const auto* t = std::get_if<core::Time>(&v)) {
    if (t->ps < 0) return fmt::format("must be >= 0, got {}", core::to_string(*t));
    return range_reason(p, static_cast<std::uint64_t>(t->ps), core::to_string(*t));
  }
  if (const auto* bw = std::get_if<core::Bandwidth>(&v)) {
    if (!(bw->bytes_per_s > 0) || !std::isfinite(bw->bytes_per_s)) {
      return fmt::format("must be > 0, got {} B/s", bw->bytes_per_s);
    }
  }
  if (const auto* c = std::get_if<ChoiceIndex>(&v); c && c->index >= p.choices.size()) {
    return fmt::format("choice {} out of range ({} choices)", c->index, p.choices.size());
  }
  return {};
}

std::string format_param(const BackendParam& p, const ParamValue& v) {
  if (const auto* b = std::get_if<core::Bytes>(&v)) return core::to_string(*b);
  if (const auto* bw = std::get_if<core::Bandwidth>(&v)) return core::to_string(*bw);
  if (const auto* t = std::get_if<core::Time>(&v)) return core::to_string(*t);
  if (const auto* n = std::get_if<std::uint64_t>(&v)) return std::to_string(*n);
  if (const auto* f = std::get_if<bool>(&v)) return *f ? "true" : "false";
  const std::uint32_t i = std::get<ChoiceIndex>(v).index;
  return i < p.choices.size() ? std::string(p.choices[i]) : "?";
}

std::optional<ParamValue> default_value(const BackendParam& p) { return p.get(BackendOptions{}); }

std::string default_text(const BackendParam& p) {
  const auto d = default_value(p);
  return d ? format_param(p, *d) : fmt::format("none ({})", p.unset);
}

std::string type_text(const BackendParam& p) {
  switch (p.type) {
    case ParamType::Bytes:
      return "bytes";
    case ParamType::Bandwidth:
      return "bandwidth";
    case ParamType::Time:
      return "time";
    case ParamType::Count:
      return p.unit.empty() ? "count" : fmt::format("count of {}", p.unit);
    case ParamType::Bool:
      return "bool";
    case ParamType::Choice:
      return "choice";
  }
  return "?";
}

std::string range_text(const BackendParam& p) {
  switch (p.type) {
    case ParamType::Bandwidth:
      return "> 0";
    case ParamType::Bool:
      return fmt::format("{}", fmt::join(kBoolWords, " or "));
    case ParamType::Choice:
      return fmt::format("{}", fmt::join(p.choices, " or "));
    default:
      return fmt::format("{}..{}", bound_text(p, p.min), bound_text(p, p.max));
  }
}

std::string label_piece(const BackendParam& p, const std::optional<ParamValue>& v) {
  if (!v || v == default_value(p)) return {};
  if (p.label.empty()) return ":" + format_param(p, *v);
  if (p.type == ParamType::Bool) {
    return std::get<bool>(*v) ? fmt::format(":{}", p.label) : fmt::format(":no-{}", p.label);
  }
  return fmt::format(":{}={}", p.label, format_param(p, *v));
}

std::optional<ParamValue> count_value(std::uint32_t v) { return ParamValue{std::uint64_t{v}}; }

std::optional<ParamValue> count_value(const std::optional<std::uint32_t>& v) {
  if (!v) return std::nullopt;
  return count_value(*v);
}

std::optional<ParamValue> bytes_value(std::uint64_t bytes) {
  return ParamValue{core::Bytes{bytes}};
}

std::optional<ParamValue> bandwidth_value(const std::optional<core::Bandwidth>& v) {
  if (!v) return std::nullopt;
  return ParamValue{*v};
}

std::uint32_t as_u32(const ParamValue& v) {
  if (const auto* b = std::get_if<core::Bytes>(&v)) return static_cast<std::uint32_t>(b->count);
  return static_cast<std::uint32_t>(std::get<std::uint64_t>(v));
}

}  // namespace collsim::network
