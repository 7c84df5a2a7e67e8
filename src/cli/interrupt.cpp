#include "cli/interrupt.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <mutex>
#include <thread>

namespace collsim::cli {
namespace {

// How long a run has to reach a check after a signal before the watchdog ends it, and how long
// an orderly stop (a check has thrown) may take to write what finished.
constexpr auto kGrace = std::chrono::milliseconds(500);
constexpr auto kOrderlyStop = std::chrono::milliseconds(3000);

// The handler's only way to wake the watchdog: write() is async-signal-safe.
int g_wake[2] = {-1, -1};

extern "C" void on_signal(int sig) {
  const int saved = errno;
  core::note_interrupt(sig);
  // The next one is not caught: a second Ctrl-C ends the process at once.
  std::signal(sig, SIG_DFL);
  const char c = static_cast<char>(sig);
  [[maybe_unused]] const ssize_t n = ::write(g_wake[1], &c, 1);
  errno = saved;
}

void say(const char* text) { [[maybe_unused]] const ssize_t n = ::write(2, text, std::strlen(text)); }

// Waits for a signal; then gives the run kGrace to reach a check (and an orderly stop kOrderlyStop
// more), then finishes the registered outputs and ends the process. When the run ends first, the
// process exits and this thread with it.
void watchdog() {
  char c = 0;
  while (::read(g_wake[0], &c, 1) != 1) {
    if (errno != EINTR) return;
  }
  const int sig = core::interrupt_signal();
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const auto waited = std::chrono::steady_clock::now() - start;
    if (waited >= (core::interrupt_acknowledged() ? kGrace + kOrderlyStop : kGrace)) break;
  }
  core::run_exit_hooks();
  if (::isatty(2)) say("\r\033[K");  // a progress line's remains
  say(sig == SIGINT ? "collsim: interrupted (Ctrl-C) during a step without checks; the outputs "
                      "were closed as far as they got\n"
                    : "collsim: interrupted (SIGTERM) during a step without checks; the outputs "
                      "were closed as far as they got\n");
  ::_exit(core::interrupted_status(sig));
}

}  // namespace

void install_interrupt_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (::pipe2(g_wake, O_CLOEXEC) == 0) std::thread(watchdog).detach();
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
  });
}

}  // namespace collsim::cli
