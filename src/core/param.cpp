#include "core/param.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

#include "core/error.hpp"
#include "core/parse.hpp"

namespace collsim::core {
namespace {

constexpr std::string_view kBoolWords[] = {"true", "false"};

// A range bound as the user reads it, in the parameter's unit.
std::string bound_text(const ParamSpec& p, std::uint64_t b) {
  switch (p.type) {
    case ParamType::Bytes:
      return to_string(Bytes{b});
    case ParamType::Time:
      return to_string(Time::from_ps(static_cast<std::int64_t>(b)));
    default:
      return std::to_string(b);
  }
}

std::string range_reason(const ParamSpec& p, std::uint64_t v, const std::string& got) {
  if (v < p.min) return fmt::format("must be >= {}, got {}", bound_text(p, p.min), got);
  if (v > p.max) return fmt::format("must be <= {}, got {}", bound_text(p, p.max), got);
  return {};
}

// "a or b" for two words; "one of a, b, c" for more.
std::string alternatives(std::span<const std::string_view> words) {
  if (words.size() > 2) return fmt::format("one of {}", fmt::join(words, ", "));
  return fmt::format("{}", fmt::join(words, " or "));
}

std::variant<ParamValue, std::string> pick(std::span<const std::string_view> words,
                                           std::string_view text) {
  const auto it = std::find(words.begin(), words.end(), text);
  if (it == words.end()) return fmt::format("must be {}, got \"{}\"", alternatives(words), text);
  return ParamValue{ChoiceIndex{static_cast<std::uint32_t>(it - words.begin())}};
}

std::string_view trim(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  return t;
}

// A plain decimal number (no sign, no exponent), or nullopt.
std::optional<double> number(std::string_view t) {
  double v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size() || t.empty() || t[0] == '-' ||
      t.find_first_of("eE") != std::string_view::npos || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

double parse_share(std::string_view text, std::string_view field) {
  std::string_view t = trim(text);
  double scale = 1;
  if (!t.empty() && t.back() == '%') t = trim(t.substr(0, t.size() - 1)), scale = 0.01;
  const auto v = number(t);
  if (!v) {
    throw InputError(fmt::format(
        "{}: must be a fraction or a percentage (\"0.94\", \"94%\"), got \"{}\"", field, text));
  }
  const double s = *v * scale;
  if (s <= 0 || s > 1) {
    throw InputError(
        fmt::format("{}: must be in (0, 1] (0% < share <= 100%), got \"{}\"", field, text));
  }
  return s;
}

double parse_flops(std::string_view text, std::string_view field) {
  const std::string_view t = trim(text);
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"PFLOP/s", 1e15}, {"TFLOP/s", 1e12}, {"GFLOP/s", 1e9}, {"FLOP/s", 1}};
  for (const auto& [unit, scale] : kUnits) {
    if (t.size() > unit.size() && t.substr(t.size() - unit.size()) == unit) {
      const auto v = number(trim(t.substr(0, t.size() - unit.size())));
      if (v && *v > 0) return *v * scale;
      break;
    }
  }
  throw InputError(fmt::format(
      "{}: must be a positive FLOP rate with its unit (FLOP/s, GFLOP/s, TFLOP/s, PFLOP/s), e.g. "
      "\"91.75 TFLOP/s\", got \"{}\"",
      field, text));
}

std::string share_text(double s) { return fmt::format("{:g}%", s * 100); }

std::string flops_text(double f) {
  if (f >= 1e12) return fmt::format("{:g} TFLOP/s", f / 1e12);
  if (f >= 1e9) return fmt::format("{:g} GFLOP/s", f / 1e9);
  return fmt::format("{:g} FLOP/s", f);
}

std::string freq_text(double hz) {
  if (hz >= 1e9) return fmt::format("{:g} GHz", hz / 1e9);
  if (hz >= 1e6) return fmt::format("{:g} MHz", hz / 1e6);
  return fmt::format("{:g} Hz", hz);
}

}  // namespace

std::optional<std::uint32_t> param_index(const ParamSpec& p, std::string_view key) {
  if (!p.indexed || p.key.empty()) return std::nullopt;
  const std::string_view prefix = p.key.substr(0, p.key.size() - 1);
  if (key.size() <= prefix.size() || key.substr(0, prefix.size()) != prefix) return std::nullopt;
  const std::string_view digits = key.substr(prefix.size());
  if (digits.size() > 1 && digits[0] == '0') return std::nullopt;
  std::uint32_t k = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), k);
  if (ec != std::errc() || end != digits.data() + digits.size() || k > kMaxParamIndex) {
    return std::nullopt;
  }
  return k;
}

bool names_param(const ParamSpec& p, std::string_view key) {
  return p.indexed ? param_index(p, key).has_value() : p.key == key;
}

std::variant<ParamValue, std::string> parse_word(const ParamSpec& p, std::string_view text) {
  switch (p.type) {
    case ParamType::Count: {
      std::uint64_t n = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
      if (ec == std::errc::result_out_of_range) {
        return fmt::format("must be <= {}, got {}", bound_text(p, p.max), text);
      }
      if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
        return fmt::format("must be a whole number, got \"{}\"", text);
      }
      if (std::string why = check_param(p, n); !why.empty()) return why;
      return ParamValue{n};
    }
    case ParamType::Bool: {
      auto v = pick(kBoolWords, text);
      if (const auto* c = std::get_if<ParamValue>(&v)) {
        return ParamValue{std::get<ChoiceIndex>(*c).index == 0};
      }
      return v;
    }
    case ParamType::Choice:
      return pick(p.choices, text);
    default:
      return fmt::format("{} is not read as a word", type_text(p));
  }
}

ParamValue parse_param(const ParamSpec& p, std::string_view text, std::string_view field) {
  ParamValue v;
  switch (p.type) {
    case ParamType::Count:
    case ParamType::Bool:
    case ParamType::Choice: {
      auto r = parse_word(p, text);
      if (auto* why = std::get_if<std::string>(&r)) {
        throw InputError(fmt::format("{}: {}", field, *why));
      }
      return std::get<ParamValue>(r);
    }
    case ParamType::Bytes:
      v = parse_bytes(text, field, p.min == 0 ? Zero::Allow : Zero::Reject);
      break;
    case ParamType::Bandwidth:
      v = parse_bandwidth(text, field);
      break;
    case ParamType::Time:
      v = parse_time(text, field, p.min == 0 ? Zero::Allow : Zero::Reject);
      break;
    case ParamType::Share:
      v = parse_share(text, field);
      break;
    case ParamType::Frequency:
      v = parse_frequency(text, field);
      break;
    case ParamType::Flops:
      v = parse_flops(text, field);
      break;
  }
  if (const std::string why = check_param(p, v); !why.empty()) {
    throw InputError(fmt::format("{}: {}", field, why));
  }
  return v;
}

std::string check_param(const ParamSpec& p, const ParamValue& v) {
  if (const auto* b = std::get_if<Bytes>(&v)) return range_reason(p, b->count, to_string(*b));
  if (const auto* n = std::get_if<std::uint64_t>(&v))
    return range_reason(p, *n, std::to_string(*n));
  if (const auto* t = std::get_if<Time>(&v)) {
    if (t->ps < 0) return fmt::format("must be >= 0, got {}", to_string(*t));
    return range_reason(p, static_cast<std::uint64_t>(t->ps), to_string(*t));
  }
  if (const auto* bw = std::get_if<Bandwidth>(&v)) {
    if (!(bw->bytes_per_s > 0) || !std::isfinite(bw->bytes_per_s)) {
      return fmt::format("must be > 0, got {} B/s", bw->bytes_per_s);
    }
  }
  if (const auto* d = std::get_if<double>(&v)) {
    if (!(*d > 0) || !std::isfinite(*d)) return fmt::format("must be > 0, got {:g}", *d);
    if (p.type == ParamType::Share && *d > 1) {
      return fmt::format("must be in (0, 1] (0% < share <= 100%), got {:g}", *d);
    }
  }
  if (const auto* c = std::get_if<ChoiceIndex>(&v); c && c->index >= p.choices.size()) {
    return fmt::format("choice {} out of range ({} choices)", c->index, p.choices.size());
  }
  return {};
}

std::string format_param(const ParamSpec& p, const ParamValue& v) {
  if (const auto* b = std::get_if<Bytes>(&v)) return to_string(*b);
  if (const auto* bw = std::get_if<Bandwidth>(&v)) return to_string(*bw);
  if (const auto* t = std::get_if<Time>(&v)) return to_string(*t);
  if (const auto* n = std::get_if<std::uint64_t>(&v)) return std::to_string(*n);
  if (const auto* f = std::get_if<bool>(&v)) return *f ? "true" : "false";
  if (const auto* d = std::get_if<double>(&v)) {
    return p.type == ParamType::Share       ? share_text(*d)
           : p.type == ParamType::Frequency ? freq_text(*d)
                                            : flops_text(*d);
  }
  const std::uint32_t i = std::get<ChoiceIndex>(v).index;
  return i < p.choices.size() ? std::string(p.choices[i]) : "?";
}

std::string type_text(const ParamSpec& p) {
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
    case ParamType::Share:
      return "share";
    case ParamType::Frequency:
      return "frequency";
    case ParamType::Flops:
      return "flops";
  }
  return "?";
}

std::string range_text(const ParamSpec& p) {
  switch (p.type) {
    case ParamType::Bandwidth:
    case ParamType::Frequency:
    case ParamType::Flops:
      return "> 0";
    case ParamType::Share:
      return "(0, 1]";
    case ParamType::Bool:
      return fmt::format("{}", fmt::join(kBoolWords, " or "));
    case ParamType::Choice:
      return fmt::format("{}", fmt::join(p.choices, " or "));
    default:
      return fmt::format("{}..{}", bound_text(p, p.min), bound_text(p, p.max));
  }
}

std::string cli_flag(const ParamSpec& p) {
  std::string f = "--" + std::string(p.key);
  std::replace(f.begin(), f.end(), '_', '-');
  return f;
}

std::int64_t as_integer(const ParamValue& v) {
  if (const auto* c = std::get_if<ChoiceIndex>(&v)) return c->index;
  if (const auto* b = std::get_if<bool>(&v)) return *b ? 1 : 0;
  return static_cast<std::int64_t>(std::get<std::uint64_t>(v));
}

}  // namespace collsim::core
