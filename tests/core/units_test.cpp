// Tests of src/core/units.hpp and src/core/parse.hpp: strict unit parsing with errors that name the
// field, exact serialization time, and the human-readable renderings.
#include "core/units.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/parse.hpp"

namespace collsim::core {
namespace {

constexpr std::uint64_t KiB = std::uint64_t{1} << 10;
constexpr std::uint64_t MiB = std::uint64_t{1} << 20;
constexpr std::uint64_t GiB = std::uint64_t{1} << 30;
constexpr std::uint64_t TiB = std::uint64_t{1} << 40;

// Runs f and checks that it throws exactly core::InputError whose message starts with
// "<field>: ", quotes `offending`, and contains every string in `also`.
::testing::AssertionResult InputErrorOf(const std::function<void()>& f, std::string_view field,
                                        std::string_view offending,
                                        const std::vector<std::string>& also = {}) {
  try {
    f();
  } catch (const InputError& e) {
    const std::string msg = e.what();
    const std::string head = std::string(field) + ": ";
    if (msg.rfind(head, 0) != 0) {
      return ::testing::AssertionFailure()
             << "message does not start with \"" << head << "\": " << msg;
    }
    const std::string quoted = "\"" + std::string(offending) + "\"";
    if (msg.find(quoted) == std::string::npos) {
      return ::testing::AssertionFailure() << "message does not quote " << quoted << ": " << msg;
    }
    for (const auto& a : also) {
      if (msg.find(a) == std::string::npos) {
        return ::testing::AssertionFailure() << "message lacks \"" << a << "\": " << msg;
      }
    }
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw another exception type: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

// ---------------------------------------------------------------------------------------------
// parse_bytes

TEST(ParseBytes, AcceptsEveryUnit) {
  EXPECT_EQ(parse_bytes("1 B", "size").count, 1u);
  EXPECT_EQ(parse_bytes("1 KB", "size").count, 1000u);
  EXPECT_EQ(parse_bytes("1 MB", "size").count, 1000000u);
  EXPECT_EQ(parse_bytes("1 GB", "size").count, 1000000000u);
  EXPECT_EQ(parse_bytes("1 TB", "size").count, 1000000000000u);
  EXPECT_EQ(parse_bytes("1 KiB", "size").count, 1024u);
  EXPECT_EQ(parse_bytes("1 MiB", "size").count, 1048576u);
  EXPECT_EQ(parse_bytes("1 GiB", "size").count, 1073741824u);
  EXPECT_EQ(parse_bytes("1 TiB", "size").count, 1099511627776u);
}

TEST(ParseBytes, DesignExamples) {
  EXPECT_EQ(parse_bytes("64 MiB", "size").count, 64 * MiB);  // 67108864
  EXPECT_EQ(parse_bytes("32KiB", "size").count, 32 * KiB);   // 32768, no space needed
  EXPECT_EQ(parse_bytes("100 MB", "size").count, 100000000u);
}

TEST(ParseBytes, WhitespaceAndZeros) {
  EXPECT_EQ(parse_bytes("  64   MiB  ", "size").count, 64 * MiB);
  EXPECT_EQ(parse_bytes("64\tMiB", "size").count, 64 * MiB);
  EXPECT_EQ(parse_bytes("007 B", "size").count, 7u);
  EXPECT_EQ(parse_bytes("1.000 KB", "size").count, 1000u);
}

TEST(ParseBytes, FractionsThatAreWholeBytes) {
  EXPECT_EQ(parse_bytes("1.5 KiB", "size").count, 1536u);    // 1.5 * 1024
  EXPECT_EQ(parse_bytes("0.5 MiB", "size").count, 524288u);  // 2^19
  EXPECT_EQ(parse_bytes("2.5 MB", "size").count, 2500000u);
  EXPECT_EQ(parse_bytes("0.001 KB", "size").count, 1u);
  // 2^-40 = 5^40 / 10^40 = 0.0000000000009094947017729282379150390625, so this is exactly 1 byte.
  EXPECT_EQ(parse_bytes("0.0000000000009094947017729282379150390625 TiB", "size").count, 1u);
  // 1.25 GiB = 5 * 2^28.
  EXPECT_EQ(parse_bytes("1.25 GiB", "size").count, 5 * (std::uint64_t{1} << 28));
}

TEST(ParseBytes, LimitsOfUint64) {
  EXPECT_EQ(parse_bytes("18446744073709551615 B", "size").count,
            std::numeric_limits<std::uint64_t>::max());
  // 2^64 = 16777216 TiB, so 16777215 TiB is the largest whole number of TiB.
  EXPECT_EQ(parse_bytes("16777215 TiB", "size").count, 16777215 * TiB);
  // 2^64 - 2^40 + (2^40 - 1) = 2^64 - 1: a fraction that fills the last TiB but one byte.
  EXPECT_EQ(parse_bytes("16777215.9999999999990905052982270717620849609375 TiB", "size").count,
            std::numeric_limits<std::uint64_t>::max());
}

TEST(ParseBytes, ZeroOnlyWhenAllowed) {
  EXPECT_EQ(parse_bytes("0 B", "size", Zero::Allow).count, 0u);
  EXPECT_EQ(parse_bytes("0.0 KiB", "size", Zero::Allow).count, 0u);
  EXPECT_TRUE(
      InputErrorOf([] { parse_bytes("0 B", "message_size"); }, "message_size", "0 B", {"> 0"}));
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("0 MiB", "size", Zero::Reject); }, "size", "0 MiB"));
}

TEST(ParseBytes, NoUnit) {
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("16", "chunk_size"); }, "chunk_size", "16",
                           {"no unit", "MiB", "KB"}));
  // A count of bytes is shown as a size reads, not as that many MiB (issue 52).
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("1048576", "sizes"); }, "sizes", "1048576",
                           {"has no unit; write e.g. \"1 MiB\" for 1048576 bytes"}));
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("100000000", "sizes"); }, "sizes", "100000000",
                           {"\"100 MB\" for 100000000 bytes"}));
}

TEST(ParseBytes, UnknownUnit) {
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("16 furlongs", "size"); }, "size", "16 furlongs",
                           {"unknown unit", "\"furlongs\"", "KiB"}));
  // Units are case-sensitive; the message suggests the right spelling.
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("3 kB", "size"); }, "size", "3 kB", {"\"KB\""}));
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("3 mib", "size"); }, "size", "3 mib", {"\"MiB\""}));
  // A unit of another quantity.
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("3 ns", "size"); }, "size", "3 ns", {"time unit"}));
  EXPECT_TRUE(
      InputErrorOf([] { parse_bytes("3 GB/s", "size"); }, "size", "3 GB/s", {"bandwidth unit"}));
  // "1,5" is not a decimal number: the "unit" is ",5 MiB".
  EXPECT_TRUE(
      InputErrorOf([] { parse_bytes("1,5 MiB", "size"); }, "size", "1,5 MiB", {"unknown unit"}));
}

TEST(ParseBytes, MalformedNumbers) {
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("-1 B", "size"); }, "size", "-1 B", {"negative"}));
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("+1 B", "size"); }, "size", "+1 B", {"sign"}));
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("", "size"); }, "size", "", {"empty", "MiB"}));
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("   ", "size"); }, "size", "   ", {"empty"}));
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("MiB", "size"); }, "size", "MiB", {"number"}));
  EXPECT_TRUE(
      InputErrorOf([] { parse_bytes(".5 KiB", "size"); }, "size", ".5 KiB", {"decimal point"}));
  EXPECT_TRUE(
      InputErrorOf([] { parse_bytes("5. KiB", "size"); }, "size", "5. KiB", {"decimal point"}));
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("1e3 B", "size"); }, "size", "1e3 B", {"exponent"}));
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("1E3 B", "size"); }, "size", "1E3 B", {"exponent"}));
}

TEST(ParseBytes, FractionalByte) {
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("1.5 B", "size"); }, "size", "1.5 B",
                           {"whole number of bytes"}));
  // 0.3 KiB = 307.2 B.
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("0.3 KiB", "size"); }, "size", "0.3 KiB",
                           {"whole number of bytes"}));
  // 0.0001 KB = 0.1 B, even with Zero::Allow.
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("0.0001 KB", "size", Zero::Allow); }, "size",
                           "0.0001 KB", {"whole number of bytes"}));
}

TEST(ParseBytes, Overflow) {
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("99999999999999999999 TiB", "size"); }, "size",
                           "99999999999999999999 TiB", {"too large", "18446744073709551615"}));
  // 2^64 bytes: one more than the largest.
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("18446744073709551616 B", "size"); }, "size",
                           "18446744073709551616 B", {"too large"}));
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("16777216 TiB", "size"); }, "size", "16777216 TiB",
                           {"too large"}));
  // 18446744073.709551616 GB = 2^64 B: the fraction pushes it over.
  EXPECT_TRUE(InputErrorOf([] { parse_bytes("18446744073.709551616 GB", "size"); }, "size",
                           "18446744073.709551616 GB", {"too large"}));
  // A huge number of digits must not be a problem either.
  const std::string huge = std::string(400, '9') + " B";
  EXPECT_TRUE(InputErrorOf([&] { parse_bytes(huge, "size"); }, "size", huge, {"too large"}));
}

// ---------------------------------------------------------------------------------------------
// parse_time

TEST(ParseTime, AcceptsEveryUnit) {
  EXPECT_EQ(parse_time("7 ps", "t").ps, 7);
  EXPECT_EQ(parse_time("7 ns", "t").ps, 7'000);
  EXPECT_EQ(parse_time("7 us", "t").ps, 7'000'000);
  EXPECT_EQ(parse_time("7 ms", "t").ps, 7'000'000'000);
  EXPECT_EQ(parse_time("7 s", "t").ps, 7'000'000'000'000);
}

TEST(ParseTime, DesignExamples) {
  EXPECT_EQ(parse_time("150 ns", "latency").ps, 150'000);
  EXPECT_EQ(parse_time("1.5us", "latency").ps, 1'500'000);
  EXPECT_EQ(parse_time("3.2 ms", "latency").ps, 3'200'000'000);
  EXPECT_EQ(parse_time("0 ns", "latency").ps, 0);  // zero is allowed for times by default
}

TEST(ParseTime, RoundsToNearestPicosecondHalfUp) {
  EXPECT_EQ(parse_time("0.0004 ns", "t").ps, 0);             // 0.4 ps
  EXPECT_EQ(parse_time("0.0005 ns", "t").ps, 1);             // 0.5 ps, half rounds up
  EXPECT_EQ(parse_time("0.0015 ns", "t").ps, 2);             // 1.5 ps
  EXPECT_EQ(parse_time("1.0000004 us", "t").ps, 1'000'000);  // 1000000.4 ps
  EXPECT_EQ(parse_time("1.0000006 us", "t").ps, 1'000'001);  // 1000000.6 ps
  EXPECT_EQ(parse_time("2.5 ps", "t").ps, 3);
}

TEST(ParseTime, LimitsOfTheHorizon) {
  // The horizon is 2^62 ps = 4611686018427387904 ps: the sum of two user times cannot overflow.
  constexpr std::int64_t kLast = kHorizonPs - 1;
  EXPECT_EQ(parse_time("4611686018427387903 ps", "t").ps, kLast);
  EXPECT_EQ(parse_time("4611686.018427387903 s", "t").ps, kLast);
  // 4611686018427387903.4 ps rounds down to the last time before the horizon.
  EXPECT_EQ(parse_time("4611686.0184273879034 s", "t").ps, kLast);
  EXPECT_TRUE(InputErrorOf([] { parse_time("4611686018427387904 ps", "t"); }, "t",
                           "4611686018427387904 ps", {"beyond the simulation horizon"}));
  EXPECT_TRUE(InputErrorOf([] { parse_time("9223372036854775807 ps", "t"); }, "t",
                           "9223372036854775807 ps", {"beyond the simulation horizon"}));
}

TEST(ParseTime, ZeroRejectedWhenAsked) {
  EXPECT_TRUE(
      InputErrorOf([] { parse_time("0 ns", "period", Zero::Reject); }, "period", "0 ns", {"> 0"}));
  // 0.4 ps rounds to zero.
  EXPECT_TRUE(InputErrorOf([] { parse_time("0.0004 ns", "period", Zero::Reject); }, "period",
                           "0.0004 ns", {"rounds to 0 ps"}));
}

TEST(ParseTime, Errors) {
  EXPECT_TRUE(
      InputErrorOf([] { parse_time("-1 ns", "latency"); }, "latency", "-1 ns", {"negative", "ns"}));
  EXPECT_TRUE(InputErrorOf([] { parse_time("1e3 ns", "latency"); }, "latency", "1e3 ns",
                           {"exponent", "ps, ns, us, ms, s"}));
  EXPECT_TRUE(InputErrorOf([] { parse_time("150", "latency"); }, "latency", "150",
                           {"no unit", "\"150 ns\""}));
  EXPECT_TRUE(InputErrorOf([] { parse_time("150 sec", "latency"); }, "latency", "150 sec",
                           {"unknown unit", "\"sec\"", "ps, ns, us, ms, s"}));
  EXPECT_TRUE(InputErrorOf([] { parse_time("3 MS", "latency"); }, "latency", "3 MS", {"\"ms\""}));
  EXPECT_TRUE(
      InputErrorOf([] { parse_time("5 GB", "latency"); }, "latency", "5 GB", {"size unit"}));
  EXPECT_TRUE(InputErrorOf([] { parse_time("", "latency"); }, "latency", "", {"empty"}));
  EXPECT_TRUE(InputErrorOf([] { parse_time("1.5.3 ns", "latency"); }, "latency", "1.5.3 ns",
                           {"unknown unit"}));
}

TEST(ParseTime, Overflow) {
  EXPECT_TRUE(InputErrorOf([] { parse_time("9223372036854775808 ps", "t"); }, "t",
                           "9223372036854775808 ps", {"too large"}));
  // 9223372036854775807.5 ps rounds up past the maximum.
  EXPECT_TRUE(InputErrorOf([] { parse_time("9223372.0368547758075 s", "t"); }, "t",
                           "9223372.0368547758075 s", {"too large"}));
  // 10^7 s = 10^19 ps > 9.22e18.
  EXPECT_TRUE(
      InputErrorOf([] { parse_time("10000000 s", "t"); }, "t", "10000000 s", {"too large"}));
  EXPECT_TRUE(InputErrorOf([] { parse_time("99999999999999999999 s", "t"); }, "t",
                           "99999999999999999999 s", {"too large"}));
}

// ---------------------------------------------------------------------------------------------
// parse_bandwidth

TEST(ParseBandwidth, DesignExamples) {
  EXPECT_EQ(parse_bandwidth("16 GB/s", "bw").bytes_per_s, 16e9);   // 16 * 10^9 bytes/s
  EXPECT_EQ(parse_bandwidth("200 Gb/s", "bw").bytes_per_s, 25e9);  // 200e9 bits / 8
  EXPECT_EQ(parse_bandwidth("25 GiB/s", "bw").bytes_per_s, 25.0 * 1073741824.0);  // 25 * 2^30
}

TEST(ParseBandwidth, AcceptsEveryUnit) {
  EXPECT_EQ(parse_bandwidth("1 B/s", "bw").bytes_per_s, 1.0);
  EXPECT_EQ(parse_bandwidth("1 KB/s", "bw").bytes_per_s, 1e3);
  EXPECT_EQ(parse_bandwidth("1 MB/s", "bw").bytes_per_s, 1e6);
  EXPECT_EQ(parse_bandwidth("1 GB/s", "bw").bytes_per_s, 1e9);
  EXPECT_EQ(parse_bandwidth("1 TB/s", "bw").bytes_per_s, 1e12);
  EXPECT_EQ(parse_bandwidth("1 KiB/s", "bw").bytes_per_s, 1024.0);
  EXPECT_EQ(parse_bandwidth("1 MiB/s", "bw").bytes_per_s, 1048576.0);
  EXPECT_EQ(parse_bandwidth("1 GiB/s", "bw").bytes_per_s, 1073741824.0);
  EXPECT_EQ(parse_bandwidth("1 TiB/s", "bw").bytes_per_s, 1099511627776.0);
  EXPECT_EQ(parse_bandwidth("1 b/s", "bw").bytes_per_s, 0.125);  // 1 bit / 8
  EXPECT_EQ(parse_bandwidth("1 Kb/s", "bw").bytes_per_s, 125.0);
  EXPECT_EQ(parse_bandwidth("1 Mb/s", "bw").bytes_per_s, 125e3);
  EXPECT_EQ(parse_bandwidth("1 Gb/s", "bw").bytes_per_s, 125e6);
  EXPECT_EQ(parse_bandwidth("1 Tb/s", "bw").bytes_per_s, 125e9);
}

TEST(ParseBandwidth, FractionsAreCorrectlyRounded) {
  EXPECT_EQ(parse_bandwidth("12.5 Gb/s", "bw").bytes_per_s, 1.5625e9);  // 12.5e9 / 8
  EXPECT_EQ(parse_bandwidth("1.5 KiB/s", "bw").bytes_per_s, 1536.0);
  // The nearest double to 0.3 * 10^9 is 3e8 itself; one decimal-to-binary conversion gets it.
  EXPECT_EQ(parse_bandwidth("0.3 GB/s", "bw").bytes_per_s, 3e8);
  EXPECT_EQ(parse_bandwidth("2.4 TB/s", "bw").bytes_per_s, 2.4e12);
  EXPECT_EQ(parse_bandwidth("16 GB/s", "bw"), parse_bandwidth("128 Gb/s", "bw"));
}

TEST(ParseBandwidth, Errors) {
  EXPECT_TRUE(InputErrorOf([] { parse_bandwidth("0 GB/s", "link_bandwidth"); }, "link_bandwidth",
                           "0 GB/s", {"> 0"}));
  EXPECT_TRUE(InputErrorOf([] { parse_bandwidth("0.0 b/s", "link_bandwidth"); }, "link_bandwidth",
                           "0.0 b/s", {"> 0"}));
  // The message the header documents for a missing unit.
  EXPECT_TRUE(InputErrorOf([] { parse_bandwidth("16", "link_bandwidth"); }, "link_bandwidth", "16",
                           {"has no unit; write e.g. \"16 GB/s\"", "GB/s = 10^9 bytes/s",
                            "Gb/s = 10^9 bits/s", "GiB/s = 2^30 bytes/s"}));
  EXPECT_TRUE(InputErrorOf([] { parse_bandwidth("16 GBps", "bw"); }, "bw", "16 GBps",
                           {"unknown unit", "\"GBps\"", "Gb/s"}));
  // Lower-case "gb/s" is ambiguous between bytes and bits: both are suggested.
  EXPECT_TRUE(InputErrorOf([] { parse_bandwidth("3 gb/s", "bw"); }, "bw", "3 gb/s",
                           {"\"GB/s\" or \"Gb/s\""}));
  EXPECT_TRUE(InputErrorOf([] { parse_bandwidth("16 GB", "bw"); }, "bw", "16 GB", {"size unit"}));
  EXPECT_TRUE(
      InputErrorOf([] { parse_bandwidth("-16 GB/s", "bw"); }, "bw", "-16 GB/s", {"negative"}));
  EXPECT_TRUE(
      InputErrorOf([] { parse_bandwidth("1e9 B/s", "bw"); }, "bw", "1e9 B/s", {"exponent"}));
  EXPECT_TRUE(InputErrorOf([] { parse_bandwidth("", "bw"); }, "bw", "", {"empty"}));
}

TEST(ParseBandwidth, OutOfRange) {
  // About 10^400 bytes/s overflows a double.
  const std::string huge = std::string(400, '9') + " TB/s";
  EXPECT_TRUE(InputErrorOf([&] { parse_bandwidth(huge, "bw"); }, "bw", huge, {"too large"}));
  // 10^-400 bits/s underflows to zero.
  const std::string tiny = "0." + std::string(399, '0') + "1 b/s";
  EXPECT_TRUE(InputErrorOf([&] { parse_bandwidth(tiny, "bw"); }, "bw", tiny, {"too small"}));
}

// ---------------------------------------------------------------------------------------------
// parse_size_list

TEST(ParseSizeList, DoublingRange) {
  // 32 KiB * 2^11 = 64 MiB: 2^15 .. 2^26 is 12 entries.
  const auto v = parse_size_list("32KiB:64MiB", "sizes");
  ASSERT_EQ(v.size(), 12u);
  for (std::size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(v[i].count, (32 * KiB) << i) << "entry " << i;
  }
  EXPECT_EQ(v.back().count, 64 * MiB);
}

TEST(ParseSizeList, RangeEdges) {
  const auto one = parse_size_list("4 KiB : 4 KiB", "sizes");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].count, 4 * KiB);
  // 1 B .. 2^63 B (= 8388608 TiB) is the longest possible range: exactly 64 entries.
  const auto all = parse_size_list("1 B:8388608 TiB", "sizes");
  ASSERT_EQ(all.size(), 64u);
  EXPECT_EQ(all.front().count, 1u);
  EXPECT_EQ(all.back().count, std::uint64_t{1} << 63);
  // Mixed units: 1000 B doubled three times is 8000 B = 8 KB.
  const auto mixed = parse_size_list("1000 B:8 KB", "sizes");
  ASSERT_EQ(mixed.size(), 4u);
  EXPECT_EQ(mixed[3].count, 8000u);
}

TEST(ParseSizeList, CommaList) {
  const auto v = parse_size_list("1MiB,4MiB", "sizes");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].count, 1 * MiB);
  EXPECT_EQ(v[1].count, 4 * MiB);
  // Spaces around entries; order and duplicates are kept as written.
  const auto w = parse_size_list(" 64 MiB , 1 KB,1 KB ", "sizes");
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].count, 64 * MiB);
  EXPECT_EQ(w[1].count, 1000u);
  EXPECT_EQ(w[2].count, 1000u);
  const auto single = parse_size_list("1.5 KiB", "sizes");
  ASSERT_EQ(single.size(), 1u);
  EXPECT_EQ(single[0].count, 1536u);
}

TEST(ParseSizeList, AtMost64Entries) {
  std::string list = "1 B";
  for (int i = 2; i <= 64; ++i) list += "," + std::to_string(i) + " B";
  const auto v = parse_size_list(list, "sizes");
  ASSERT_EQ(v.size(), 64u);
  EXPECT_EQ(v.back().count, 64u);
  const std::string too_long = list + ",65 B";
  EXPECT_TRUE(InputErrorOf([&] { parse_size_list(too_long, "sizes"); }, "sizes", too_long,
                           {"65 entries", "at most 64"}));
}

TEST(ParseSizeList, Errors) {
  EXPECT_TRUE(InputErrorOf([] { parse_size_list("", "sizes"); }, "sizes", "", {"empty", "LO:HI"}));
  EXPECT_TRUE(InputErrorOf([] { parse_size_list("64MiB:32KiB", "sizes"); }, "sizes", "64MiB:32KiB",
                           {"HI < LO"}));
  // 3, 6, 12 KiB never reaches 10 KiB.
  EXPECT_TRUE(InputErrorOf([] { parse_size_list("3KiB:10KiB", "sizes"); }, "sizes", "3KiB:10KiB",
                           {"power of two"}));
  EXPECT_TRUE(InputErrorOf([] { parse_size_list("1MiB,2MiB:4MiB", "sizes"); }, "sizes",
                           "1MiB,2MiB:4MiB", {"mixes"}));
  EXPECT_TRUE(InputErrorOf([] { parse_size_list("1 B:2 B:4 B", "sizes"); }, "sizes", "1 B:2 B:4 B",
                           {"more than one ':'"}));
  // Errors inside an entry name the field, the entry and the entry's text.
  EXPECT_TRUE(InputErrorOf([] { parse_size_list("1MiB,16 furlongs", "sizes"); }, "sizes",
                           "16 furlongs", {"entry 2", "unknown unit"}));
  EXPECT_TRUE(InputErrorOf([] { parse_size_list("1MiB,,2MiB", "sizes"); }, "sizes", "",
                           {"entry 2", "empty"}));
  EXPECT_TRUE(
      InputErrorOf([] { parse_size_list("1MiB,", "sizes"); }, "sizes", "", {"entry 2", "empty"}));
  EXPECT_TRUE(InputErrorOf([] { parse_size_list("1MiB,0 B", "sizes"); }, "sizes", "0 B",
                           {"entry 2", "> 0"}));
  EXPECT_TRUE(
      InputErrorOf([] { parse_size_list("0 B:1 MiB", "sizes"); }, "sizes", "0 B", {"LO", "> 0"}));
  EXPECT_TRUE(
      InputErrorOf([] { parse_size_list("1 MiB:", "sizes"); }, "sizes", "", {"HI", "empty"}));
  EXPECT_TRUE(
      InputErrorOf([] { parse_size_list("1 MiB:64", "sizes"); }, "sizes", "64", {"HI", "no unit"}));
}

// ---------------------------------------------------------------------------------------------
// transfer_time: ceil(bytes * 10^12 / bandwidth) picoseconds, exactly.

TEST(TransferTime, ExactAndRoundedUp) {
  // 1 B / 16e9 B/s = 62.5 ps -> 63.
  EXPECT_EQ(transfer_time(Bytes{1}, Bandwidth{16e9}).ps, 63);
  // 2^20 B * 10^12 / (16 * 10^9) = 65536000 ps exactly (no rounding up).
  EXPECT_EQ(transfer_time(Bytes{MiB}, Bandwidth{16e9}).ps, 65'536'000);
  // 2^26 B * 10^12 / (25 * 2^30 B/s) = 10^12 / 400 = 2.5e9 ps.
  EXPECT_EQ(transfer_time(Bytes{64 * MiB}, Bandwidth{25.0 * GiB}).ps, 2'500'000'000);
  EXPECT_EQ(transfer_time(Bytes{0}, Bandwidth{16e9}).ps, 0);
  EXPECT_EQ(transfer_time(Bytes{1}, Bandwidth{1e12}).ps, 1);  // exactly 1 ps
  EXPECT_EQ(transfer_time(Bytes{1}, Bandwidth{2e12}).ps, 1);  // 0.5 ps -> 1
  EXPECT_EQ(transfer_time(Bytes{3}, Bandwidth{2e12}).ps, 2);  // 1.5 ps -> 2
  // 1000 B at 3 B/s = 10^15 / 3 = 333333333333333.33 ps -> ...334.
  EXPECT_EQ(transfer_time(Bytes{1000}, Bandwidth{3.0}).ps, 333'333'333'333'334);
}

TEST(TransferTime, ExactBeyondDoublePrecision) {
  // (2^60 + 1) B at 10^12 B/s = 2^60 + 1 ps; a double cannot even hold 2^60 + 1.
  const std::uint64_t n = (std::uint64_t{1} << 60) + 1;
  EXPECT_EQ(transfer_time(Bytes{n}, Bandwidth{1e12}).ps, static_cast<std::int64_t>(n));
  // (2^60 + 1) B at 2 * 10^12 B/s = 2^59 + 0.5 ps -> 2^59 + 1.
  EXPECT_EQ(transfer_time(Bytes{n}, Bandwidth{2e12}).ps,
            static_cast<std::int64_t>((std::uint64_t{1} << 59) + 1));
  // 10^18 + 1 B at 10^18 B/s (an integral bandwidth above 2^53) = 10^12 + 10^-6 ps -> 10^12 + 1.
  EXPECT_EQ(transfer_time(Bytes{1'000'000'000'000'000'001}, Bandwidth{1e18}).ps, 1'000'000'000'001);
}

TEST(TransferTime, FractionalBandwidth) {
  // 1 b/s = 0.125 B/s: 1 B takes 8 s = 8 * 10^12 ps.
  EXPECT_EQ(transfer_time(Bytes{1}, Bandwidth{0.125}).ps, 8'000'000'000'000);
  // 3 B at 0.375 B/s (exact in binary) = 8 s.
  EXPECT_EQ(transfer_time(Bytes{3}, Bandwidth{0.375}).ps, 8'000'000'000'000);
  // 1.5625e9 B/s (12.5 Gb/s): 1 B = 640 ps exactly; 1 MiB = 671088640 ps.
  EXPECT_EQ(transfer_time(Bytes{1}, Bandwidth{1.5625e9}).ps, 640);
  EXPECT_EQ(transfer_time(Bytes{MiB}, Bandwidth{1.5625e9}).ps, 671'088'640);
  // 1 B at the double nearest 0.3 B/s (slightly below 0.3): 10^12 / 0.29999999999999998889...
  // = 3333333333333.3334567... ps -> 3333333333334.
  EXPECT_EQ(transfer_time(Bytes{1}, Bandwidth{0.3}).ps, 3'333'333'333'334);
  // 1.5 B/s: 3 B take 2 s exactly.
  EXPECT_EQ(transfer_time(Bytes{3}, Bandwidth{1.5}).ps, 2'000'000'000'000);
}

TEST(TransferTime, HugeBandwidth) {
  // Anything positive at an enormous bandwidth still takes 1 ps (ceil of a tiny positive).
  EXPECT_EQ(transfer_time(Bytes{1}, Bandwidth{1e300}).ps, 1);
  EXPECT_EQ(transfer_time(Bytes{std::numeric_limits<std::uint64_t>::max()}, Bandwidth{1e300}).ps,
            1);
  EXPECT_EQ(transfer_time(Bytes{0}, Bandwidth{1e300}).ps, 0);
  // 2^64 - 1 B at 2^104 B/s: (2^64 - 1) * 10^12 / 2^104 < 1 -> 1.
  EXPECT_EQ(transfer_time(Bytes{std::numeric_limits<std::uint64_t>::max()},
                          Bandwidth{std::ldexp(1.0, 104)})
                .ps,
            1);
}

TEST(TransferTime, TimeRange) {
  // 4611686 B at 1 B/s = 4.611686e18 ps, just under the horizon 2^62 = 4611686018427387904 ps.
  EXPECT_EQ(transfer_time(Bytes{4'611'686}, Bandwidth{1.0}).ps, 4'611'686'000'000'000'000);
  // 4611687 B at 1 B/s is beyond it: bad input (exit 2), not an internal error.
  EXPECT_THROW(transfer_time(Bytes{4'611'687}, Bandwidth{1.0}), InputError);
  EXPECT_THROW(transfer_time(Bytes{std::numeric_limits<std::uint64_t>::max()}, Bandwidth{1.0}),
               InputError);
  EXPECT_THROW(transfer_time(Bytes{1}, Bandwidth{1e-300}), InputError);
  EXPECT_THROW(transfer_time(Bytes{1}, Bandwidth{std::numeric_limits<double>::denorm_min()}),
               InputError);
  // 1 B at 2^-22 B/s = 2^22 s = 4194304 * 10^12 ps, still in range.
  EXPECT_EQ(transfer_time(Bytes{1}, Bandwidth{std::ldexp(1.0, -22)}).ps, 4'194'304'000'000'000'000);
}

TEST(TransferTime, RejectsNonPositiveBandwidth) {
  EXPECT_THROW(transfer_time(Bytes{1}, Bandwidth{0.0}), std::invalid_argument);
  EXPECT_THROW(transfer_time(Bytes{1}, Bandwidth{-16e9}), std::invalid_argument);
  EXPECT_THROW(transfer_time(Bytes{1}, Bandwidth{std::nan("")}), std::invalid_argument);
  EXPECT_THROW(transfer_time(Bytes{1}, Bandwidth{std::numeric_limits<double>::infinity()}),
               std::invalid_argument);
  EXPECT_THROW(transfer_time(Bytes{0}, Bandwidth{0.0}), std::invalid_argument);
}

TEST(TransferTime, FromParsedQuantities) {
  // 64 MiB over 200 Gb/s (= 25e9 B/s): 2^26 * 10^12 / 25e9 = 2684354.56 * 10^3 ps -> 2684354560.
  EXPECT_EQ(transfer_time(parse_bytes("64 MiB", "size"), parse_bandwidth("200 Gb/s", "bw")).ps,
            2'684'354'560);
}

// ---------------------------------------------------------------------------------------------
// Strong-type arithmetic

TEST(UnitTypes, Arithmetic) {
  EXPECT_EQ(Time::from_ns(3).ps, 3000);
  EXPECT_EQ((Time::from_ns(1) + Time::from_ps(5)).ps, 1005);
  EXPECT_EQ((Time::from_ns(1) - Time::from_ps(5)).ps, 995);
  EXPECT_EQ((Time::from_ps(7) * 3).ps, 21);
  EXPECT_EQ((3 * Time::from_ps(7)).ps, 21);
  Time t = Time::from_ps(10);
  t += Time::from_ps(5);
  EXPECT_EQ(t.ps, 15);
  t -= Time::from_ps(20);
  EXPECT_EQ(t.ps, -5);
  EXPECT_LT(Time::from_ps(1), Time::from_ps(2));
  EXPECT_EQ(Time::zero().ps, 0);
  EXPECT_DOUBLE_EQ(Time::from_ps(1'500'000).us(), 1.5);
  EXPECT_DOUBLE_EQ(Time::from_ps(1'500).ns(), 1.5);
  EXPECT_DOUBLE_EQ(Time::from_ps(2'000'000'000'000).seconds(), 2.0);

  Bytes b{100};
  b += Bytes{28};
  EXPECT_EQ(b.count, 128u);
  EXPECT_EQ((b + Bytes{2}).count, 130u);
  EXPECT_EQ((b - Bytes{28}).count, 100u);
  EXPECT_GT(Bytes{2}, Bytes{1});

  EXPECT_DOUBLE_EQ(Bandwidth{16e9}.gbps(), 16.0);
  EXPECT_LT(Bandwidth{1e9}, Bandwidth{2e9});
}

// ---------------------------------------------------------------------------------------------
// to_string

TEST(ToString, Time) {
  EXPECT_EQ(to_string(Time::from_ps(150'000)), "150 ns");
  EXPECT_EQ(to_string(Time::from_ps(1'500'000)), "1.5 us");
  EXPECT_EQ(to_string(Time::from_ps(3'200'000'000)), "3.2 ms");
  EXPECT_EQ(to_string(Time::from_ps(2'000'000'000'000)), "2 s");
  EXPECT_EQ(to_string(Time::from_ps(0)), "0");  // no unit to read past
  EXPECT_EQ(to_string(Time::from_ps(999)), "999 ps");
  EXPECT_EQ(to_string(Time::from_ps(1000)), "1 ns");
  // 1.234567 us -> 4 significant digits, half up: 1.235 us.
  EXPECT_EQ(to_string(Time::from_ps(1'234'567)), "1.235 us");
  // 12.345678 us -> 12.35 us; 123.4 ns stays 123.4 ns.
  EXPECT_EQ(to_string(Time::from_ps(12'345'678)), "12.35 us");
  EXPECT_EQ(to_string(Time::from_ps(123'400)), "123.4 ns");
  // 999.96 ns rounds to 1000 ns, which is written 1 us.
  EXPECT_EQ(to_string(Time::from_ps(999'960)), "1 us");
  // 999.94 ns stays below: 999.9 ns.
  EXPECT_EQ(to_string(Time::from_ps(999'940)), "999.9 ns");
  EXPECT_EQ(to_string(Time::from_ps(-1'500'000)), "-1.5 us");
  // Seconds are the largest unit: 10^16 ps = 10000 s keeps all integer digits.
  EXPECT_EQ(to_string(Time::from_ps(10'000'000'000'000'000)), "10000 s");
  EXPECT_EQ(to_string(Time::max()), "9223372 s");
  EXPECT_EQ(to_string(Time::from_ps(std::numeric_limits<std::int64_t>::min())), "-9223372 s");
}

TEST(ToString, Bytes) {
  EXPECT_EQ(to_string(Bytes{64 * MiB}), "64 MiB");
  EXPECT_EQ(to_string(Bytes{32 * KiB}), "32 KiB");
  EXPECT_EQ(to_string(Bytes{102'228'128}), "102228128 B");  // not a whole number of KiB
  EXPECT_EQ(to_string(Bytes{1536}), "1536 B");              // 1.5 KiB is not written
  EXPECT_EQ(to_string(Bytes{1000}), "1 KB");                // decimal where it divides further
  EXPECT_EQ(to_string(Bytes{64'000'000}), "64 MB");         // not 62500 KiB
  EXPECT_EQ(to_string(Bytes{100'000'000}), "100 MB");       // not 100000000 B
  EXPECT_EQ(to_string(Bytes{1'024'000}), "1000 KiB");       // binary on a tie (1024 KB)
  EXPECT_EQ(to_string(Bytes{0}), "0 B");
  EXPECT_EQ(to_string(Bytes{TiB}), "1 TiB");
  EXPECT_EQ(to_string(Bytes{1024 * TiB}), "1024 TiB");  // TiB is the largest unit
  EXPECT_EQ(to_string(Bytes{3 * GiB}), "3 GiB");
  EXPECT_EQ(to_string(Bytes{std::numeric_limits<std::uint64_t>::max()}), "18446744073709551615 B");
}

TEST(ToString, Bandwidth) {
  EXPECT_EQ(to_string(Bandwidth{16e9}), "16 GB/s");
  EXPECT_EQ(to_string(Bandwidth{25.0 * GiB}), "26.84 GB/s");  // 26.8435456e9
  EXPECT_EQ(to_string(Bandwidth{1.25e7}), "12.5 MB/s");       // 100 Mb/s
  EXPECT_EQ(to_string(Bandwidth{123'456'789.0}), "123.5 MB/s");
  EXPECT_EQ(to_string(Bandwidth{1.0}), "1 B/s");
  EXPECT_EQ(to_string(Bandwidth{0.125}), "0.125 B/s");  // 1 b/s
  EXPECT_EQ(to_string(Bandwidth{0.0}), "0 B/s");
  EXPECT_EQ(to_string(Bandwidth{999.96e6}), "1 GB/s");  // rounds up into the next unit
  EXPECT_EQ(to_string(Bandwidth{1e15}), "1000 TB/s");   // TB/s is the largest unit
  EXPECT_EQ(to_string(Bandwidth{2.4e12}), "2.4 TB/s");
}

TEST(ToString, RoundTripsThroughTheParser) {
  for (const char* s : {"150 ns", "1.5 us", "3.2 ms", "2 s", "999 ps", "1.235 us"}) {
    EXPECT_EQ(to_string(parse_time(s, "t")), s);
  }
  for (const char* s : {"64 MiB", "32 KiB", "102228128 B", "1 TiB"}) {
    EXPECT_EQ(to_string(parse_bytes(s, "size")), s);
  }
  for (const char* s : {"16 GB/s", "26.84 GB/s", "12.5 MB/s", "0.125 B/s"}) {
    EXPECT_EQ(to_string(parse_bandwidth(s, "bw")), s);
  }
}

}  // namespace
}  // namespace collsim::core
