#pragma once
// The executor: runs any Program on any network backend in simulated time (docs/design.md "One
// shared executor runs every schedule"). Program semantics come from collective::Progress; timing
// adds one rule: a rank sends to a given peer one message at a time, starting the next when the
// previous one has been injected (so pipelined chunks serialize on their channel).
#include <cstdint>
#include <optional>

#include "collective/ir/program.hpp"
#include "core/engine.hpp"
#include "network/backend.hpp"

namespace collsim::scheduler {

struct ExecuteOptions {
  /// Stop with core::SimulationError if the collective has not finished by then.
  std::optional<core::Time> max_time;
};

struct ExecutionResult {
  core::Time time;             ///< when the last rank finished
  std::uint64_t messages = 0;  ///< messages sent
  std::uint64_t bytes = 0;     ///< payload bytes sent (sum over messages)
  std::uint64_t events = 0;    ///< simulation events run
};

/// Runs the program from sim.now(). Throws core::SimulationError naming the stuck ranks when the
/// program deadlocks or exceeds options.max_time.
ExecutionResult execute(const collective::Program& program, network::Backend& backend,
                        core::Simulation& sim, const ExecuteOptions& options = {});

}  // namespace collsim::scheduler
