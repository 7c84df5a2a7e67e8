#include "core/interrupt.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <mutex>
#include <vector>

#include "core/error.hpp"

namespace collsim::core {
namespace {

// The process-wide state a signal may touch: a handler can do nothing else safely. Atomics, not
// volatile sig_atomic_t: the points of a --jobs sweep read them from several threads.
std::atomic<int> g_signal{0};
std::atomic<bool> g_acknowledged{false};
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler needs a lock-free atomic");

// The registered exit hooks. A signal is process-wide, so is the list of what to finish at one.
struct Hooks {
  std::mutex mu;
  std::vector<const std::function<void()>*> list;
};
Hooks& hooks() {
  static Hooks h;  // constructed at first use; never destroyed before the hooks that use it
  return h;
}

}  // namespace

int interrupt_signal() { return g_signal.load(std::memory_order_relaxed); }

void note_interrupt(int sig) noexcept {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig, std::memory_order_relaxed);
}

void check_interrupt() {
  const int sig = g_signal.load(std::memory_order_relaxed);
  if (sig == 0) return;
  g_acknowledged.store(true, std::memory_order_relaxed);
  throw Interrupted(fmt::format("interrupted ({}): the run in progress was stopped; the runs that "
                                "finished before it are reported",
                                signal_name(sig)),
                    sig);
}

bool interrupt_acknowledged() { return g_acknowledged.load(std::memory_order_relaxed); }

int interrupted_status(int sig) { return 128 + sig; }

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT:
      return "Ctrl-C";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "a signal";
  }
}

ExitHook::ExitHook(std::function<void()> finish) : finish_(std::move(finish)) {
  Hooks& h = hooks();
  const std::lock_guard<std::mutex> lock(h.mu);
  h.list.push_back(&finish_);
}

ExitHook::~ExitHook() {
  Hooks& h = hooks();
  const std::lock_guard<std::mutex> lock(h.mu);
  h.list.erase(std::remove(h.list.begin(), h.list.end(), &finish_), h.list.end());
}

void run_exit_hooks() noexcept {
  Hooks& h = hooks();
  // Held while the hooks run: an owner that finishes meanwhile waits in ~ExitHook rather than
  // destroy a function being called.
  const std::lock_guard<std::mutex> lock(h.mu);
  while (!h.list.empty()) {
    const std::function<void()>* f = h.list.back();
    h.list.pop_back();
    try {
      (*f)();
    } catch (...) {  // the process ends next: nobody to report to
    }
  }
}

}  // namespace collsim::core
