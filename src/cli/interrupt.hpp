#pragma once
// Ctrl-C and SIGTERM during a sweep: the run in progress stops at its next progress tick (about
// every 10^6 events) or before the next run starts, the rows that finished are printed, and the
// command exits with status 3 (core::Interrupted). A second signal ends the process at once.
#include "jobs/collective_sweep.hpp"

namespace collsim::cli {

/// Installs the SIGINT / SIGTERM handlers (the collsim binary does; the Python module leaves
/// Python's own). Idempotent.
void install_interrupt_handlers();

/// The signal received since the handlers were installed (SIGINT, SIGTERM), or 0.
int interrupt_signal();

/// A monitor that throws core::Interrupted, naming the signal, at the first tick or run start
/// after a signal.
class InterruptMonitor final : public jobs::RunMonitor {
 public:
  void begin_run(const jobs::RunContext&) override { check(); }
  void tick(const jobs::RunContext&) override { check(); }
  /// Throws core::Interrupted if a signal came.
  static void check();
};

}  // namespace collsim::cli
