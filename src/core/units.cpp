#include "core/units.hpp"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/error.hpp"

namespace collsim::core {

namespace {

__extension__ typedef unsigned __int128 u128;

constexpr std::uint64_t kPsPerSecond = 1'000'000'000'000ULL;

// 10^k for 0 <= k <= 19.
constexpr std::uint64_t pow10(int k) {
  std::uint64_t v = 1;
  for (int i = 0; i < k; ++i) v *= 10;
  return v;
}

// Number of decimal digits of v (1 for 0).
int decimal_digits(std::uint64_t v) {
  int n = 1;
  while (v >= 10) {
    v /= 10;
    ++n;
  }
  return n;
}

// "1.500" -> "1.5", "2.000" -> "2", "150" -> "150".
void strip_trailing_zeros(std::string& s) {
  if (s.find('.') == std::string::npos) return;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
}

constexpr const char* kHorizonText = "the simulation horizon (2^62 ps, about 53 days)";

[[noreturn]] void throw_overflow(Bytes b, double bytes_per_s) {
  throw InputError(fmt::format(
      "a message of {} at {} is beyond {}; use a larger bandwidth or a smaller size",
      to_string(b), to_string(Bandwidth{bytes_per_s}), kHorizonText));
}

}  // namespace

void beyond_horizon(const char* what) {
  throw InputError(fmt::format(
      "{} is beyond {}: a latency, size or bandwidth (or --max-time) of the run is too extreme",
      what, kHorizonText));
}

Time time_from_user(double value, double unit_ps, const std::string& what) {
  if (!std::isfinite(value) || value < 0) {
    throw InputError(fmt::format("{}: must be a finite number >= 0, got {}", what, value));
  }
  const double ps = std::round(value * unit_ps);
  if (!(ps < static_cast<double>(kHorizonPs))) {
    throw InputError(
        fmt::format("{}: {} is beyond {}", what, value, kHorizonText));
  }
  return Time::from_ps(static_cast<std::int64_t>(ps));
}

// Exact: bw is a finite double, so bw = m * 2^shift with m an odd integer < 2^53. The result is
// ceil(b * 10^12 / (m * 2^shift)), evaluated in 128-bit integers (b * 10^12 < 2^104). Results
// beyond the horizon (2^62 ps) throw core::InputError.
Time transfer_time(Bytes b, Bandwidth bw) {
  const double rate = bw.bytes_per_s;
  if (!(rate > 0.0) || !std::isfinite(rate)) {
    throw std::invalid_argument(
        fmt::format("transfer_time: bandwidth must be finite and > 0, got {} B/s", rate));
  }
  const u128 num = static_cast<u128>(b.count) * kPsPerSecond;
  int exp = 0;
  const double frac = std::frexp(rate, &exp);  // rate = frac * 2^exp, 0.5 <= frac < 1
  auto m = static_cast<std::uint64_t>(std::ldexp(frac, 53));  // exact: frac has <= 53 bits
  int shift = exp - 53;
  const int tz = std::countr_zero(m);
  m >>= tz;
  shift += tz;
  const u128 limit = static_cast<u128>(kHorizonPs);

  u128 q = 0;
  if (shift >= 0) {
    // Integral bandwidth m * 2^shift. If it is >= 2^104 it exceeds num, so the ceiling is 0 or 1.
    if (std::bit_width(m) + shift > 104) {
      q = num > 0 ? 1 : 0;
    } else {
      const u128 den = static_cast<u128>(m) << shift;
      q = num / den + (num % den != 0 ? 1 : 0);
    }
  } else {
    // Fractional bandwidth m / 2^s: the result is ceil(num * 2^s / m). Long division in steps of up
    // to 64 bits; rem < m < 2^53, so rem << 64 fits in 128 bits.
    int s = -shift;
    q = num / m;
    u128 rem = num % m;
    while (s > 0) {
      const int step = s < 64 ? s : 64;
      if (q > (limit >> step)) throw_overflow(b, rate);
      const u128 wide = rem << step;
      q = (q << step) + wide / m;
      rem = wide % m;
      s -= step;
    }
    if (rem != 0) ++q;
  }
  if (q > limit) throw_overflow(b, rate);
  return Time::from_ps(static_cast<std::int64_t>(q));
}

// Largest of ps, ns, us, ms, s in which the magnitude is >= 1, rounded half-up to 4 significant
// digits (more if the integer part has more), trailing zeros dropped: "150 ns", "1.5 us", "2 s".
std::string to_string(Time t) {
  static constexpr const char* kNames[] = {"ps", "ns", "us", "ms", "s"};
  const bool negative = t.ps < 0;
  // Magnitude as unsigned, correct for INT64_MIN as well.
  const std::uint64_t mag =
      negative ? 0 - static_cast<std::uint64_t>(t.ps) : static_cast<std::uint64_t>(t.ps);
  const char* sign = negative ? "-" : "";
  if (mag == 0) return "0";  // no unit: nothing to read past
  int unit = 0;
  while (unit < 4 && mag >= pow10(3 * (unit + 1))) ++unit;
  for (;;) {
    if (unit == 0) return fmt::format("{}{} ps", sign, mag);
    const int unit_exp = 3 * unit;
    const int int_digits = decimal_digits(mag / pow10(unit_exp));
    const int decimals = int_digits >= 4 ? 0 : 4 - int_digits;
    const std::uint64_t div = pow10(unit_exp - decimals);
    std::uint64_t scaled = mag / div;
    if (2 * (mag % div) >= div) ++scaled;  // half-up; mag % div < 10^12, no overflow
    const std::uint64_t p = pow10(decimals);
    const std::uint64_t whole = scaled / p;
    if (whole >= 1000 && unit < 4) {  // 999.96 ns rounds to 1000 ns: print it as 1 us
      ++unit;
      continue;
    }
    std::string s = decimals == 0 ? fmt::format("{}", whole)
                                  : fmt::format("{}.{:0{}}", whole, scaled % p, decimals);
    strip_trailing_zeros(s);
    return fmt::format("{}{} {}", sign, s, kNames[unit]);
  }
}

// The largest binary unit (up to TiB, the largest the parser accepts) that divides the size
// exactly, else plain bytes: "64 MiB", "32 KiB", "1536 B", "102228128 B".
std::string to_string(Bytes b) {
  // As users write sizes: the largest unit, binary or decimal, that divides the count exactly
  // (64 MiB; 64 MB, not 62500 KiB; 100 MB, not 100000000 B); binary on a tie.
  static constexpr const char* kBinary[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  static constexpr const char* kDecimal[] = {"B", "KB", "MB", "GB", "TB"};
  if (b.count == 0) return "0 B";
  int unit = 4;
  while (unit > 0 && b.count % (std::uint64_t{1} << (10 * unit)) != 0) --unit;
  int dec = 4;
  const auto pow1000 = [](int u) {
    std::uint64_t p = 1;
    for (int i = 0; i < u; ++i) p *= 1000;
    return p;
  };
  while (dec > 0 && b.count % pow1000(dec) != 0) --dec;
  if (dec > unit) return fmt::format("{} {}", b.count / pow1000(dec), kDecimal[dec]);
  return fmt::format("{} {}", b.count >> (10 * unit), kBinary[unit]);
}

// Decimal bytes per second in the largest of B/s, KB/s, MB/s, GB/s, TB/s in which the value is
// >= 1, with up to 4 significant digits: "16 GB/s", "26.84 GB/s" (25 GiB/s), "125 MB/s".
std::string to_string(Bandwidth bw) {
  static constexpr const char* kNames[] = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s"};
  const double r = bw.bytes_per_s;
  if (!std::isfinite(r)) return fmt::format("{} B/s", r);
  if (r == 0.0) return "0 B/s";
  const char* sign = r < 0 ? "-" : "";
  const double mag = std::fabs(r);
  if (mag < 1.0) {
    std::string s = fmt::format("{:.4g}", mag);
    return fmt::format("{}{} B/s", sign, s);
  }
  int unit = 0;
  while (unit < 4 && mag >= std::pow(10.0, 3 * (unit + 1))) ++unit;
  for (;;) {
    const double v = mag / std::pow(10.0, 3 * unit);
    const int int_digits = static_cast<int>(std::floor(std::log10(v))) + 1;
    const int decimals = int_digits >= 4 ? 0 : 4 - int_digits;
    std::string s = fmt::format("{:.{}f}", v, decimals);
    const auto int_len = s.find('.');
    if (unit < 4 && (int_len == std::string::npos ? s.size() : int_len) > 3) {
      ++unit;  // 999.96 MB/s rounds to 1000 MB/s: print it as 1 GB/s
      continue;
    }
    strip_trailing_zeros(s);
    return fmt::format("{}{} {}", sign, s, kNames[unit]);
  }
}

}  // namespace collsim::core
