#pragma once
// Strong unit types (docs/design.md "Units"): time in integer picoseconds, sizes in integer bytes,
// bandwidth in bytes per second. A bandwidth cannot be added to a time.
#include <compare>
#include <cstdint>
#include <string>

namespace collsim::core {

/// Simulated time or duration, an integer count of picoseconds (range about +-106 days).
struct Time {
  std::int64_t ps = 0;

  static constexpr Time from_ps(std::int64_t v) { return Time{v}; }
  static constexpr Time from_ns(std::int64_t v) { return Time{v * 1000}; }
  static constexpr Time zero() { return Time{0}; }
  static constexpr Time max() { return Time{INT64_MAX}; }

  constexpr double ns() const { return static_cast<double>(ps) / 1e3; }
  constexpr double us() const { return static_cast<double>(ps) / 1e6; }
  constexpr double seconds() const { return static_cast<double>(ps) / 1e12; }

  constexpr Time& operator+=(Time o) {
    ps += o.ps;
    return *this;
  }
  constexpr Time& operator-=(Time o) {
    ps -= o.ps;
    return *this;
  }
  friend constexpr Time operator+(Time a, Time b) { return Time{a.ps + b.ps}; }
  friend constexpr Time operator-(Time a, Time b) { return Time{a.ps - b.ps}; }
  friend constexpr Time operator*(Time a, std::int64_t k) { return Time{a.ps * k}; }
  friend constexpr Time operator*(std::int64_t k, Time a) { return Time{a.ps * k}; }
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
/// values (never from a pre-rounded per-byte rate). bw must be > 0.
Time transfer_time(Bytes b, Bandwidth bw);

/// Human-readable renderings used by reports ("1.5 us", "64 MiB", "16 GB/s").
std::string to_string(Time t);
std::string to_string(Bytes b);
std::string to_string(Bandwidth bw);

}  // namespace collsim::core
