#include "cli/interrupt.hpp"

#include <fmt/format.h>

#include <atomic>
#include <csignal>

#include "core/error.hpp"

namespace collsim::cli {
namespace {

// The one piece of process state a signal may touch (a handler can do nothing else safely). An
// atomic, not a volatile sig_atomic_t: the points of a --jobs sweep read it from several threads.
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler needs a lock-free atomic");

extern "C" void on_signal(int sig) {
  g_signal.store(sig, std::memory_order_relaxed);
  // The next one is not caught: a second Ctrl-C ends a run that does not reach a tick.
  std::signal(sig, SIG_DFL);
}

}  // namespace

void install_interrupt_handlers() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

int interrupt_signal() { return g_signal.load(std::memory_order_relaxed); }

void InterruptMonitor::check() {
  const int sig = g_signal.load(std::memory_order_relaxed);
  if (sig == 0) return;
  throw core::Interrupted(fmt::format(
      "interrupted ({}): the run in progress was stopped; the runs that finished before it are "
      "reported",
      sig == SIGINT ? "Ctrl-C" : "SIGTERM"));
}

}  // namespace collsim::cli
