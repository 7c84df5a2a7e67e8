#pragma once
// Strong unit types (docs/design.md "Units"): time in integer picoseconds, sizes in integer bytes,
// bandwidth in bytes per second. A bandwidth cannot be added to a time.
#include <compare>
#include <cstdint>
#include <string>

namespace collsim::core {

/// The simulation horizon: 2^62 ps (about 53 days). User times must be below it, and a run whose
/// clock would pass it stops with core::InputError (exit 2). Half the int64 range, so that the sum
/// of two times below the horizon never overflows.
inline constexpr std::int64_t kHorizonPs = std::int64_t{1} << 62;

/// Throws core::InputError: "{what}: beyond the simulation horizon (2^62 ps, about 53 days)...".
/// Out of line and cold: the checked arithmetic below calls it only on overflow.
[[noreturn, gnu::cold, gnu::noinline]] void beyond_horizon(const char* what);

/// Simulated time or duration, an integer count of picoseconds. Sums, differences and products
/// are checked: one that overflows int64 throws core::InputError (beyond_horizon) instead of
/// wrapping (a branch never taken in a valid run, so no cost on the hot path).
struct Time {
  std::int64_t ps = 0;

  static constexpr Time from_ps(std::int64_t v) { return Time{v}; }
  static constexpr Time from_ns(std::int64_t v) {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(v, std::int64_t{1000}, &r)) beyond_horizon("a time in ns");
    return Time{r};
  }
  static constexpr Time zero() { return Time{0}; }
  static constexpr Time max() { return Time{INT64_MAX}; }

  constexpr double ns() const { return static_cast<double>(ps) / 1e3; }
  constexpr double us() const { return static_cast<double>(ps) / 1e6; }
  constexpr double seconds() const { return static_cast<double>(ps) / 1e12; }

  constexpr Time& operator+=(Time o) { return *this = *this + o; }
  constexpr Time& operator-=(Time o) { return *this = *this - o; }
  friend constexpr Time operator+(Time a, Time b) {
    std::int64_t r = 0;
    if (__builtin_add_overflow(a.ps, b.ps, &r)) beyond_horizon("a sum of times");
    return Time{r};
  }
  friend constexpr Time operator-(Time a, Time b) {
    std::int64_t r = 0;
    if (__builtin_sub_overflow(a.ps, b.ps, &r)) beyond_horizon("a difference of times");
    return Time{r};
  }
  friend constexpr Time operator*(Time a, std::int64_t k) {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a.ps, k, &r)) beyond_horizon("a multiple of a time");
    return Time{r};
  }
  friend constexpr Time operator*(std::int64_t k, Time a) { return a * k; }
  friend constexpr auto operator<=>(Time, Time) = default;
};

/// A size in bytes.
struct Bytes {
  std::uint64_t count = 0;

  constexpr Bytes& operator+=(Bytes o) {
    count += o.count;
    return *this;
  }
  friend constexpr Bytes operator+(Bytes a, Bytes b) { return Bytes{a.count + b.count}; }
  friend constexpr Bytes operator-(Bytes a, Bytes b) { return Bytes{a.count - b.count}; }
  friend constexpr auto operator<=>(Bytes, Bytes) = default;
};

/// Bandwidth in bytes per second (1 GB/s = 1e9 B/s; 1 Gb/s = 1.25e8 B/s).
struct Bandwidth {
  double bytes_per_s = 0.0;

  constexpr double gbps() const { return bytes_per_s / 1e9; }  ///< in GB/s (10^9 bytes/s)
  friend constexpr auto operator<=>(Bandwidth, Bandwidth) = default;
};

/// Time to serialize `b` over `bw`: ceil(b * 1e12 / bw) picoseconds, computed once from the exact
/// values (never from a pre-rounded per-byte rate). bw must be > 0. A result beyond the horizon
/// throws core::InputError (beyond_horizon).
Time transfer_time(Bytes b, Bandwidth bw);

/// A time from a user's number `value` in units of `unit_ps` picoseconds (1000 for ns), rounded
/// to the nearest picosecond. Throws core::InputError naming `what` ("net.yml: latency[0]") when
/// `value` is not finite, negative, or at or beyond the simulation horizon.
Time time_from_user(double value, double unit_ps, const std::string& what);

/// Human-readable renderings used by reports ("1.5 us", "64 MiB", "64 MB", "16 GB/s"; a zero
/// time is "0").
std::string to_string(Time t);
std::string to_string(Bytes b);
std::string to_string(Bandwidth bw);

}  // namespace collsim::core
