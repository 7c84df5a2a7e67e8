#include "cli/interrupt.hpp"

#include <fmt/format.h>

#include <csignal>

#include "core/error.hpp"

namespace collsim::cli {
namespace {

// The one piece of process state a signal may touch (a handler can do nothing else safely).
volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_signal(int sig) {
  g_signal = sig;
  // The next one is not caught: a second Ctrl-C ends a run that does not reach a tick.
  std::signal(sig, SIG_DFL);
}

}  // namespace

void install_interrupt_handlers() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

int interrupt_signal() { return g_signal; }

void InterruptMonitor::check() {
  const int sig = g_signal;
  if (sig == 0) return;
  throw core::Interrupted(fmt::format(
      "interrupted ({}): the run in progress was stopped; the runs that finished before it are "
      "reported",
      sig == SIGINT ? "Ctrl-C" : "SIGTERM"));
}

}  // namespace collsim::cli
