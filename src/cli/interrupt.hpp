#pragma once
// Ctrl-C and SIGTERM: the run in progress stops at its next check (a run monitor's tick, at least
// every 100 ms of simulation; an input reader's loop; before the next run starts), the rows that
// finished are printed, the trace is closed as far as it got, and the command exits with
// 128 + the signal (130, 143: core::Interrupted). Where no check comes within half a second (a
// long set-up step), a watchdog thread finishes the registered outputs (core::ExitHook) and ends
// the process with the same status. A second signal ends the process at once.
#include "core/interrupt.hpp"
#include "jobs/collective_sweep.hpp"

namespace collsim::cli {

/// Installs the SIGINT / SIGTERM handlers and starts the watchdog (the collsim binary does; the
/// Python module leaves Python's own). Idempotent.
void install_interrupt_handlers();

/// The signal received since the handlers were installed (SIGINT, SIGTERM), or 0.
inline int interrupt_signal() { return core::interrupt_signal(); }

/// A monitor that throws core::Interrupted, naming the signal, at the first tick or run start
/// after a signal.
class InterruptMonitor final : public jobs::RunMonitor {
 public:
  void begin_run(const jobs::RunContext&) override { check(); }
  void tick(const jobs::RunContext&) override { check(); }
  /// Throws core::Interrupted if a signal came.
  static void check() { core::check_interrupt(); }
};

}  // namespace collsim::cli
