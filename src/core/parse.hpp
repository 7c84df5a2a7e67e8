#pragma once
// Strict parsing of quantities with units (DESIGN.md "Units"). Every function throws
// core::InputError whose message starts with `field` and says what was wrong and what is accepted,
// e.g. `link_bandwidth: "16" has no unit; write e.g. "16 GB/s" (GB/s = 10^9 bytes/s, Gb/s = 10^9
// bits/s, GiB/s = 2^30 bytes/s)`.
//
// Accepted forms: a decimal number (digits, optional fraction, no sign, no exponent), optional
// spaces, then a unit. Units are case-sensitive:
//   sizes:      B, KB, MB, GB, TB (10^3 steps), KiB, MiB, GiB, TiB (2^10 steps)
//   times:      ps, ns, us, ms, s
//   bandwidths: B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s (bytes);
//               b/s, Kb/s, Mb/s, Gb/s, Tb/s (bits, 10^3 steps)
// A fractional size must come out as a whole number of bytes; a fractional time is rounded to the
// nearest picosecond. Negative numbers, missing or unknown units, and values that overflow the
// type are errors.
#include <string_view>
#include <vector>

#include "core/units.hpp"

namespace collsim::core {

enum class Zero { Reject, Allow };

Bytes parse_bytes(std::string_view text, std::string_view field, Zero zero = Zero::Reject);
Time parse_time(std::string_view text, std::string_view field, Zero zero = Zero::Allow);
Bandwidth parse_bandwidth(std::string_view text, std::string_view field);

/// A list of sizes: comma-separated ("32KiB,1MiB,64MiB") or a doubling range "LO:HI" (LO, 2 LO,
/// 4 LO, ... up to and including HI; HI must be >= LO). Sizes must be > 0. At most 64 entries.
std::vector<Bytes> parse_size_list(std::string_view text, std::string_view field);

}  // namespace collsim::core
