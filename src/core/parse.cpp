#include "core/parse.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <system_error>

#include "core/error.hpp"
#include "core/units.hpp"

namespace collsim::core {

namespace {

enum class Kind { Size, Time, Bandwidth };

struct SizeUnit {
  std::string_view name;
  std::uint64_t bytes;
};
constexpr std::array<SizeUnit, 9> kSizeUnits{{
    {"B", 1},
    {"KB", 1'000},
    {"MB", 1'000'000},
    {"GB", 1'000'000'000},
    {"TB", 1'000'000'000'000},
    {"KiB", std::uint64_t{1} << 10},
    {"MiB", std::uint64_t{1} << 20},
    {"GiB", std::uint64_t{1} << 30},
    {"TiB", std::uint64_t{1} << 40},
}};

struct TimeUnit {
  std::string_view name;
  std::uint64_t ps;
};
constexpr std::array<TimeUnit, 5> kTimeUnits{{
    {"ps", 1},
    {"ns", 1'000},
    {"us", 1'000'000},
    {"ms", 1'000'000'000},
    {"s", 1'000'000'000'000},
}};

// value in bytes/s = number * 10^dec_exp * 2^bin_exp / (bits ? 8 : 1)
struct BandwidthUnit {
  std::string_view name;
  int dec_exp;
  int bin_exp;
  bool bits;
};
constexpr std::array<BandwidthUnit, 14> kBandwidthUnits{{
    {"B/s", 0, 0, false},
    {"KB/s", 3, 0, false},
    {"MB/s", 6, 0, false},
    {"GB/s", 9, 0, false},
    {"TB/s", 12, 0, false},
    {"KiB/s", 0, 10, false},
    {"MiB/s", 0, 20, false},
    {"GiB/s", 0, 30, false},
    {"TiB/s", 0, 40, false},
    {"b/s", 0, 0, true},
    {"Kb/s", 3, 0, true},
    {"Mb/s", 6, 0, true},
    {"Gb/s", 9, 0, true},
    {"Tb/s", 12, 0, true},
}};

constexpr std::string_view kSizeAccepted =
    "accepted units: B, KB, MB, GB, TB (10^3 steps) and KiB, MiB, GiB, TiB (2^10 steps)";
constexpr std::string_view kTimeAccepted = "accepted units: ps, ns, us, ms, s";
constexpr std::string_view kBandwidthAccepted =
    "accepted units: B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s (bytes) and b/s, "
    "Kb/s, Mb/s, Gb/s, Tb/s (bits); GB/s = 10^9 bytes/s, Gb/s = 10^9 bits/s, GiB/s = 2^30 "
    "bytes/s";

std::string_view accepted(Kind k) {
  switch (k) {
    case Kind::Size:
      return kSizeAccepted;
    case Kind::Time:
      return kTimeAccepted;
    case Kind::Bandwidth:
      return kBandwidthAccepted;
  }
  return {};
}

std::string_view example_unit(Kind k) {
  switch (k) {
    case Kind::Size:
      return "MiB";
    case Kind::Time:
      return "ns";
    case Kind::Bandwidth:
      return "GB/s";
  }
  return {};
}

std::string_view example(Kind k) {
  switch (k) {
    case Kind::Size:
      return "64 MiB";
    case Kind::Time:
      return "150 ns";
    case Kind::Bandwidth:
      return "16 GB/s";
  }
  return {};
}

std::string_view kind_name(Kind k) {
  switch (k) {
    case Kind::Size:
      return "size";
    case Kind::Time:
      return "time";
    case Kind::Bandwidth:
      return "bandwidth";
  }
  return {};
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

// Where an error is reported: `prefix` is "field: " (or "field: entry 2 of \"...\": " in a list)
// and `text` the string as the user wrote it.
struct Context {
  std::string_view prefix;
  std::string_view text;
  Kind kind;
};

[[noreturn]] void fail(const Context& c, std::string_view reason) {
  throw InputError(fmt::format("{}\"{}\" {}", c.prefix, c.text, reason));
}

[[noreturn]] void fail_form(const Context& c, std::string_view reason) {
  fail(c, fmt::format("{}; write a number (digits with an optional fraction, no sign, no exponent) "
                      "and a unit, e.g. \"{}\" ({})",
                      reason, example(c.kind), accepted(c.kind)));
}

// A decimal number split into its parts. Leading zeros of the integer part and trailing zeros of
// the fraction are dropped, so "007.50" has int_digits "7" and frac_digits "5"; zero has both
// empty.
struct Quantity {
  std::string_view int_digits;
  std::string_view frac_digits;
  std::string_view unit;
  bool is_zero() const { return int_digits.empty() && frac_digits.empty(); }
};

template <typename F>
void for_each_unit(F f) {
  for (const auto& u : kSizeUnits) f(Kind::Size, u.name);
  for (const auto& u : kTimeUnits) f(Kind::Time, u.name);
  for (const auto& u : kBandwidthUnits) f(Kind::Bandwidth, u.name);
}

// Did-you-mean hint for a unit that differs only in case, or that belongs to another quantity.
std::string unit_hint(std::string_view unit, Kind kind) {
  std::string same_kind;
  std::optional<Kind> other;
  for_each_unit([&](Kind k, std::string_view name) {
    if (k == kind && iequal(name, unit)) {
      same_kind += fmt::format("{}\"{}\"", same_kind.empty() ? "" : " or ", name);
    }
    if (k != kind && name == unit && !other) other = k;
  });
  if (!same_kind.empty()) {
    return fmt::format(" (units are case-sensitive: did you mean {}?)", same_kind);
  }
  if (other) {
    return fmt::format(" (a {} unit; a {} is expected)", kind_name(*other), kind_name(kind));
  }
  return {};
}

// Splits "<digits>[.<digits>] <unit>" strictly; the unit is not yet looked up.
Quantity split(const Context& c) {
  const std::string_view s = trim(c.text);
  if (s.empty()) fail_form(c, "is empty");
  std::size_t i = 0;
  if (s[0] == '-') fail_form(c, "is negative");
  if (s[0] == '+') fail_form(c, "has a sign");
  if (!is_digit(s[0])) {
    if (s[0] == '.' && s.size() > 1 && is_digit(s[1])) {
      fail_form(c, "has no digit before the decimal point");
    }
    fail_form(c, "does not start with a number");
  }
  while (i < s.size() && is_digit(s[i])) ++i;
  std::string_view int_digits = s.substr(0, i);
  std::string_view frac_digits;
  if (i < s.size() && s[i] == '.') {
    const std::size_t start = ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == start) fail_form(c, "has no digit after the decimal point");
    frac_digits = s.substr(start, i - start);
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E') && i + 1 < s.size() &&
      (is_digit(s[i + 1]) || s[i + 1] == '-' || s[i + 1] == '+')) {
    fail_form(c, "has an exponent, which is not accepted");
  }
  while (i < s.size() && is_space(s[i])) ++i;
  const std::string_view unit = s.substr(i);
  if (unit.empty()) {
    // A size of 1024 or more with no unit is a count of bytes: shown as users write it ("1 MiB"),
    // not as that many MiB (a terabyte).
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (c.kind == Kind::Size && ec == std::errc() && end == s.data() + s.size() && n >= 1024) {
      fail(c, fmt::format("has no unit; write e.g. \"{}\" for {} bytes ({})", to_string(Bytes{n}),
                          s, accepted(c.kind)));
    }
    fail(c, fmt::format("has no unit; write e.g. \"{} {}\" ({})", s, example_unit(c.kind),
                        accepted(c.kind)));
  }
  while (!int_digits.empty() && int_digits.front() == '0') int_digits.remove_prefix(1);
  while (!frac_digits.empty() && frac_digits.back() == '0') frac_digits.remove_suffix(1);
  return Quantity{int_digits, frac_digits, unit};
}

[[noreturn]] void fail_unknown_unit(const Context& c, std::string_view unit) {
  fail(c, fmt::format("has unknown unit \"{}\"{}; {}", unit, unit_hint(unit, c.kind),
                      accepted(c.kind)));
}

// number * mult computed exactly: `whole` is the integer part; `fraction` tells whether anything is
// left after the decimal point and `round_up` whether that remainder is >= 1/2.
struct Scaled {
  std::uint64_t whole = 0;
  bool fraction = false;
  bool round_up = false;
};

// nullopt if the integer part does not fit in 64 bits. mult must be <= 10^12.
std::optional<Scaled> scale(const Quantity& q, std::uint64_t mult) {
  Scaled r;
  for (const char ch : q.int_digits) {
    const auto d = static_cast<std::uint64_t>(ch - '0');
    if (__builtin_mul_overflow(r.whole, std::uint64_t{10}, &r.whole) ||
        __builtin_add_overflow(r.whole, d, &r.whole)) {
      return std::nullopt;
    }
  }
  if (__builtin_mul_overflow(r.whole, mult, &r.whole)) return std::nullopt;
  // Multiply 0.d1d2...dn by mult, digit by digit from the right (schoolbook). The carry out of d1
  // is the integer part of the product (< mult); the digits produced are its fraction. Every
  // intermediate is < 10 * mult <= 10^13.
  std::uint64_t carry = 0;
  bool any_digit = false;
  std::uint64_t first_digit = 0;
  for (std::size_t k = q.frac_digits.size(); k-- > 0;) {
    const std::uint64_t t = static_cast<std::uint64_t>(q.frac_digits[k] - '0') * mult + carry;
    first_digit = t % 10;
    any_digit = any_digit || first_digit != 0;
    carry = t / 10;
  }
  if (__builtin_add_overflow(r.whole, carry, &r.whole)) return std::nullopt;
  r.fraction = any_digit;
  r.round_up = first_digit >= 5;
  return r;
}

Bytes parse_bytes_in(const Context& c, Zero zero) {
  const Quantity q = split(c);
  const SizeUnit* unit = nullptr;
  for (const auto& u : kSizeUnits) {
    if (u.name == q.unit) unit = &u;
  }
  if (unit == nullptr) fail_unknown_unit(c, q.unit);
  const std::optional<Scaled> v = scale(q, unit->bytes);
  if (!v) {
    fail(c, fmt::format("is too large; the largest size is {} B (16 EiB - 1)", UINT64_MAX));
  }
  if (v->fraction) {
    fail(c,
         "is not a whole number of bytes; a fractional size must come out as whole bytes, "
         "e.g. \"1.5 KiB\" (1536 B)");
  }
  if (zero == Zero::Reject && v->whole == 0) fail(c, "is zero; the size must be > 0");
  return Bytes{v->whole};
}

std::string prefix_of(std::string_view field) { return fmt::format("{}: ", field); }

}  // namespace

Bytes parse_bytes(std::string_view text, std::string_view field, Zero zero) {
  const std::string prefix = prefix_of(field);
  return parse_bytes_in(Context{prefix, text, Kind::Size}, zero);
}

Time parse_time(std::string_view text, std::string_view field, Zero zero) {
  const std::string prefix = prefix_of(field);
  const Context c{prefix, text, Kind::Time};
  const Quantity q = split(c);
  const TimeUnit* unit = nullptr;
  for (const auto& u : kTimeUnits) {
    if (u.name == q.unit) unit = &u;
  }
  if (unit == nullptr) fail_unknown_unit(c, q.unit);
  const std::optional<Scaled> v = scale(q, unit->ps);
  // Round to the nearest picosecond, halves up.
  std::uint64_t ps = v ? v->whole : 0;
  if (!v || (v->round_up && __builtin_add_overflow(ps, std::uint64_t{1}, &ps)) ||
      ps >= static_cast<std::uint64_t>(kHorizonPs)) {
    fail(c, fmt::format("is too large: beyond the simulation horizon (2^62 ps = {} ps, about 53 "
                        "days)",
                        kHorizonPs));
  }
  if (zero == Zero::Reject && ps == 0) {
    fail(c, q.is_zero() ? "is zero; the time must be > 0"
                        : "rounds to 0 ps; the time must be at least 1 ps");
  }
  return Time::from_ps(static_cast<std::int64_t>(ps));
}

Bandwidth parse_bandwidth(std::string_view text, std::string_view field) {
  const std::string prefix = prefix_of(field);
  const Context c{prefix, text, Kind::Bandwidth};
  const Quantity q = split(c);
  const BandwidthUnit* unit = nullptr;
  for (const auto& u : kBandwidthUnits) {
    if (u.name == q.unit) unit = &u;
  }
  if (unit == nullptr) fail_unknown_unit(c, q.unit);
  if (q.is_zero()) fail(c, "is zero; the bandwidth must be > 0");
  // One correctly rounded decimal-to-binary conversion of number * 10^dec_exp; the factors
  // 2^bin_exp and 1/8 are exact in binary floating point.
  const std::string digits =
      fmt::format("{}.{}e{}", q.int_digits.empty() ? "0" : q.int_digits,
                  q.frac_digits.empty() ? "0" : q.frac_digits, unit->dec_exp);
  double v = 0.0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  const bool out_of_range = ec == std::errc::result_out_of_range;
  if (ec != std::errc() && !out_of_range) fail_form(c, "is not a number");  // not reachable
  if (!out_of_range) {
    v = std::ldexp(v, unit->bin_exp);
    if (unit->bits) v /= 8.0;
  }
  if (out_of_range || !std::isfinite(v) || v == 0.0) {
    if (q.int_digits.empty()) fail(c, "is too small; it rounds to 0 B/s and must be > 0");
    fail(c, "is too large for a bandwidth");
  }
  return Bandwidth{v};
}

double parse_frequency(std::string_view text, std::string_view field) {
  const std::string_view t = trim(text);
  std::size_t i = 0;
  while (i < t.size() && (is_digit(t[i]) || t[i] == '.')) ++i;
  const std::string_view number = t.substr(0, i), unit = trim(t.substr(i));
  double v = 0;
  const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"Hz", 1.0}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}};
  for (const auto& [name, scale] : kUnits) {
    if (unit == name && ec == std::errc() && ptr == number.data() + number.size()) {
      if (!(v > 0) || !std::isfinite(v * scale)) {
        throw InputError(fmt::format("{}: \"{}\" must be > 0", field, text));
      }
      return v * scale;
    }
  }
  throw InputError(
      fmt::format("{}: \"{}\" is not a frequency; write e.g. \"700 MHz\" (units Hz, kHz, MHz, GHz)",
                  field, text));
}

std::vector<Bytes> parse_size_list(std::string_view text, std::string_view field) {
  constexpr std::size_t kMaxEntries = 64;
  const std::string_view forms =
      "write a comma-separated list of sizes (\"32KiB,1MiB,64MiB\") or a doubling range LO:HI "
      "(\"32KiB:64MiB\")";
  auto fail_list = [&](std::string_view reason) {
    throw InputError(fmt::format("{}: \"{}\" {}; {}", field, text, reason, forms));
  };
  if (trim(text).empty()) fail_list("is empty");
  const auto colon = text.find(':');
  const bool has_comma = text.find(',') != std::string_view::npos;
  std::vector<Bytes> out;
  if (colon != std::string_view::npos) {
    if (has_comma) fail_list("mixes ',' and ':'");
    if (text.find(':', colon + 1) != std::string_view::npos) fail_list("has more than one ':'");
    const std::string lo_prefix = fmt::format("{}: LO of range \"{}\": ", field, text);
    const std::string hi_prefix = fmt::format("{}: HI of range \"{}\": ", field, text);
    const Bytes lo =
        parse_bytes_in(Context{lo_prefix, text.substr(0, colon), Kind::Size}, Zero::Reject);
    const Bytes hi =
        parse_bytes_in(Context{hi_prefix, text.substr(colon + 1), Kind::Size}, Zero::Reject);
    if (hi < lo) {
      fail_list(fmt::format("has HI < LO ({} < {})", to_string(hi), to_string(lo)));
    }
    // lo > 0, so at most 64 doublings fit in 64 bits: a range never exceeds kMaxEntries.
    std::uint64_t v = lo.count;
    for (;;) {
      out.push_back(Bytes{v});
      if (v >= hi.count || v > hi.count / 2) break;
      v *= 2;
    }
    if (out.back() != hi) {
      fail_list(fmt::format("has HI = {} which is not LO = {} times a power of two", to_string(hi),
                            to_string(lo)));
    }
    return out;
  }
  std::size_t begin = 0;
  for (std::size_t index = 1;; ++index) {
    const auto comma = text.find(',', begin);
    const std::string_view entry = text.substr(
        begin, comma == std::string_view::npos ? std::string_view::npos : comma - begin);
    if (out.size() == kMaxEntries) {
      // Count them all for the message.
      std::size_t n = 1;
      for (const char ch : text) n += ch == ',' ? 1 : 0;
      fail_list(fmt::format("has {} entries; at most {} are allowed", n, kMaxEntries));
    }
    const std::string prefix = fmt::format("{}: entry {} of \"{}\": ", field, index, text);
    out.push_back(parse_bytes_in(Context{prefix, entry, Kind::Size}, Zero::Reject));
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  return out;
}

}  // namespace collsim::core
