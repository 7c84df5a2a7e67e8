#pragma once
// Strict parsing of quantities with units (docs/design.md "Units"). Every function throws
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
//
// Details of the implementation (parse.cpp): surrounding whitespace is ignored and the number and
// unit may be separated by spaces or tabs; a fractional time rounds half up ("0.0005 ns" -> 1 ps);
// a bandwidth is the double nearest the exact decimal value; "Zero::Reject" also rejects a
// nonzero time that rounds to 0 ps. Messages about malformed text list the accepted units, and an
// unknown unit that differs only in case gets a hint ("kB" -> did you mean "KB"?).
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/units.hpp"

namespace collsim::core {

enum class Zero { Reject, Allow };

Bytes parse_bytes(std::string_view text, std::string_view field, Zero zero = Zero::Reject);
Time parse_time(std::string_view text, std::string_view field, Zero zero = Zero::Allow);
Bandwidth parse_bandwidth(std::string_view text, std::string_view field);

/// A clock frequency in Hz: a decimal number and Hz, kHz, MHz or GHz ("700 MHz", "1GHz"); must
/// be > 0.
double parse_frequency(std::string_view text, std::string_view field);

/// A list of sizes: comma-separated ("32KiB,1MiB,64MiB") or a doubling range "LO:HI" (LO, 2 LO,
/// 4 LO, ... up to and including HI; HI must be >= LO). Sizes must be > 0. At most 64 entries.
/// HI must be LO times a power of two (otherwise it could not be included; "3KiB:10KiB" is an
/// error), so a range has at most 64 entries by construction (1 B .. 2^63 B). The two forms cannot
/// be mixed. Errors inside an entry name it: `sizes: entry 2 of "1MiB,x": "x" has no unit; ...`.
std::vector<Bytes> parse_size_list(std::string_view text, std::string_view field);

}  // namespace collsim::core
