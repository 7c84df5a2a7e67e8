#pragma once
// Errors a user can cause. Only main() turns them into one line and exit status 2.
#include <stdexcept>
#include <string>

namespace collsim::core {

/// Bad input: a scenario field, a command-line value, a unit string, an impossible combination.
/// The message names the field and the reason, e.g. "link_bandwidth: must be > 0, got 0 GB/s".
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A job too big for the limits or the machine: refused before it runs (with the estimate and the
/// option that raises the limit) or out of memory while running (naming the run). Exit status 2,
/// like bad input: the input asked for more than collsim may use.
class ResourceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A simulation that could not finish: a deadlocked schedule or a run past its time bound.
/// The message names the stuck ranks.
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The user stopped the run (Ctrl-C or SIGTERM): the rows that finished are still reported, the
/// trace is closed as far as it got, and the exit status is 128 + the signal (130, 143), as a
/// shell reports a process the signal ended.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(const std::string& what, int signal = 2 /* SIGINT */)
      : std::runtime_error(what), signal_(signal) {}
  int signal() const { return signal_; }

 private:
  int signal_;
};

}  // namespace collsim::core
