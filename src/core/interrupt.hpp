#pragma once
// Ctrl-C and SIGTERM (issues 32 and 52): the one process-wide state a signal sets, read by any
// layer's long loop, and the outputs to finish if the process must end before the code that owns
// them reaches a check. cli/interrupt.hpp installs the handlers (the collsim binary does; the
// Python module keeps Python's own, so there the signal is never set).
//
// The contract: after a signal, a check (check_interrupt, the run monitors' ticks, the readers'
// loops) throws core::Interrupted within a fraction of a second wherever one is reached; where
// none is (a long set-up step of an algorithm or backend), the watchdog of cli/interrupt.cpp runs
// the exit hooks below and ends the process with 128 + the signal.
#include <functional>

namespace collsim::core {

/// The signal received (SIGINT, SIGTERM), or 0. Lock-free; any thread may read it.
int interrupt_signal();

/// Records `sig`: the signal handler calls it (async-signal-safe), tests too.
void note_interrupt(int sig) noexcept;

/// Throws core::Interrupted naming the signal if one came; also records that the process is
/// stopping in order (the watchdog then waits longer before it ends it). One relaxed atomic load
/// when no signal came: loops call it freely.
void check_interrupt();

/// True once a check has thrown core::Interrupted for the signal (the orderly stop has begun).
bool interrupt_acknowledged();

/// The exit status of a process stopped by `sig`, as a shell reports it: 128 + sig (130 for
/// Ctrl-C, 143 for SIGTERM).
int interrupted_status(int sig);

/// "Ctrl-C", "SIGTERM", "signal N".
const char* signal_name(int sig);

/// An output to finish if the process is ended at a signal before its owner is done with it (a
/// trace closed as far as it got, a CSV stream's rows kept): registered for the hook's lifetime.
/// run_exit_hooks() calls each registered function once, newest first, from the watchdog's thread
/// while the owner may still be running: the function must lock what it touches.
class ExitHook {
 public:
  explicit ExitHook(std::function<void()> finish);
  ~ExitHook();
  ExitHook(const ExitHook&) = delete;
  ExitHook& operator=(const ExitHook&) = delete;

 private:
  std::function<void()> finish_;
};

/// Runs (and unregisters) every registered hook, newest first; exceptions are swallowed (the
/// process is about to end). Later ExitHook constructions register normally.
void run_exit_hooks() noexcept;

}  // namespace collsim::core
