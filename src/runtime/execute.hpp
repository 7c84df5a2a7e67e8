#pragma once
// One program alone on a backend the caller made: the smallest machine, for algorithm and
// backend tests and benchmarks that drive a backend directly (a Session builds its own).
#include <cstdint>

#include "collective/ir/program.hpp"
#include "core/engine.hpp"
#include "network/backend.hpp"
#include "scheduler/executor.hpp"

namespace collsim::runtime {

struct ExecutionResult {
  core::Time time;             ///< when the last rank finished, from the start
  std::uint64_t messages = 0;  ///< messages sent
  std::uint64_t bytes = 0;     ///< payload bytes sent (sum over messages)
  std::uint64_t events = 0;    ///< simulation events run
};

/// Run `program` from sim.now() on an ideal endpoint over `backend` until it finishes. Throws
/// what scheduler::run_until_finished throws (a deadlock, max_time).
ExecutionResult execute(const collective::Program& program, network::Backend& backend,
                        core::Simulation& sim, const scheduler::ExecuteOptions& options = {});

}  // namespace collsim::runtime
