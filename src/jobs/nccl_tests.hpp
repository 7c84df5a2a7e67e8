#pragma once
// nccl-tests emulated and read back: the sweep of sizes an `X_perf` binary runs (its -b/-e/-f/-i
// options, its rounding of sizes to whole elements per rank), its output lines, and the reading
// of a real nccl-tests log (for `collsim validate nccl`). Times come from the closed-form NCCL
// model (collective/nccl/model.hpp). Units: bytes, microseconds, GB/s (10^9 bytes/s) as
// nccl-tests prints them.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "collective/nccl/model.hpp"

namespace collsim::jobs {

/// nccl-tests' size syntax: a number with an optional K, M or G (powers of 1024, either case),
/// truncated to whole bytes as nccl-tests does: "32M" is 33554432, "1.5K" 1536. Throws
/// core::InputError naming `field`.
std::uint64_t parse_nccl_size(std::string_view text, std::string_view field);
/// Bytes of one element of nccl-tests' -d type ("float", "double", "half", "bfloat16", "int8",
/// "uint8", "int32", "uint32", "int64", "uint64"); throws core::InputError naming `field`.
std::uint32_t nccl_type_bytes(std::string_view type, std::string_view field);

struct NcclTestsOptions {
  collective::nccl::Op op = collective::nccl::Op::AllReduce;
  std::uint64_t min_bytes = 32 << 20;
  std::uint64_t max_bytes = 32 << 20;
  std::uint64_t factor = 1;              ///< -f; 0 or 1 (nccl-tests' default): add -i instead
  std::uint64_t increment = 1ull << 20;  ///< -i (nccl-tests' default: 1M)
  std::string type = "float";            ///< -d (nccl-tests' default)
  std::string redop = "sum";             ///< -o
  std::string algorithm = "nccl";
  std::string protocol = "nccl";  ///< nccl (the fastest), Simple, LL128 or LL
};

struct NcclTestsRow {
  std::uint64_t bytes = 0;  ///< as nccl-tests prints it (whole 16-byte lines per rank)
  std::uint64_t count = 0;  ///< elements, as nccl-tests prints them
  double time_us = 0;
  double algbw = 0;       ///< GB/s
  double busbw = 0;       ///< GB/s
  std::string algorithm;  ///< "ring/Simple"
};

/// The sizes nccl-tests would run (min, then x factor or + increment, up to max), each rounded as
/// nccl-tests rounds it, with the model's time. Throws core::InputError for bad options.
std::vector<NcclTestsRow> run_nccl_tests(const NcclTestsOptions& opt,
                                         const collective::nccl::Context& ctx);

/// Print a run in nccl-tests' format: its header, one line per size (size, count, type, redop,
/// root, then time, algbw, busbw, #wrong out-of-place and the same in-place), its footer, and
/// one comment line naming the algorithm each size used.
void print_nccl_tests(std::ostream& out, const NcclTestsOptions& opt,
                      const collective::nccl::Context& ctx, const std::vector<NcclTestsRow>& rows);

/// One test of a real nccl-tests log.
struct NcclLogRun {
  collective::nccl::Op op = collective::nccl::Op::AllReduce;
  std::uint32_t ranks = 0;  ///< "#  Rank" lines
  std::uint32_t nodes = 0;  ///< distinct host names among them
  std::string device;       ///< the first rank's device name ("NVIDIA H100 80GB HBM3")
  std::vector<std::uint64_t> bytes;
  std::vector<double> time_us;  ///< out-of-place
  std::string type;
};
/// Every test in the text of a log. Throws core::InputError naming `name` and the line when a row
/// cannot be read or a row comes before any "Collective test starting" line.
std::vector<NcclLogRun> read_nccl_log(const std::string& text, const std::string& name);
/// The preset for a log's device name ("H100" -> h100, ...); "" when none matches.
std::string_view system_for_device(std::string_view device);

}  // namespace collsim::jobs
