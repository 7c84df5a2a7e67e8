#pragma once
// Reading an input file (scenario, workload, topology, LLM config, ASTRA-sim file, Chakra trace,
// nccl-tests log, shard CSV) whole, within a size limit (issue 52): a regular file larger than
// the limit is refused before a byte is read; a device, FIFO or other stream (/dev/zero, a pipe)
// is read until the limit and refused past it. Every 1 MiB read checks for Ctrl-C / SIGTERM.
// The limit is the reader's default below unless the environment variable COLLSIM_MAX_INPUT
// gives one ("256MiB", "2GiB", a size as --sizes takes), for every reader at once.
// Errors are core::InputError naming the file, what it was read as and the limit.
#include <cstdint>
#include <string>
#include <string_view>

namespace collsim::core {

/// Text inputs: scenarios, workloads, configs, topology files, logs, CSVs.
inline constexpr std::uint64_t kTextInputLimit = std::uint64_t{64} << 20;
/// Chakra execution traces (binary, one file per rank).
inline constexpr std::uint64_t kTraceInputLimit = std::uint64_t{1} << 30;

/// The name of the environment variable that overrides every reader's limit.
inline constexpr const char* kInputLimitVariable = "COLLSIM_MAX_INPUT";

/// The limit in force for a reader whose default is `fallback`: COLLSIM_MAX_INPUT if set (throws
/// core::InputError naming the variable when it is not a size), else `fallback`.
std::uint64_t input_limit(std::uint64_t fallback);

/// The whole content of `path`, read as `what` ("scenario file", "Chakra trace"). Throws
/// core::InputError: "PATH: cannot read the WHAT: REASON" (missing, a folder, unreadable) or
/// "PATH: the WHAT is larger than 64 MiB, the limit for input files; set COLLSIM_MAX_INPUT=SIZE
/// to raise it"; core::Interrupted on a signal.
std::string read_input(const std::string& path, std::string_view what,
                       std::uint64_t default_limit = kTextInputLimit);

}  // namespace collsim::core
