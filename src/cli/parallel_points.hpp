#pragma once
// Independent points of a sweep (a collective job's algorithm x size runs, a training sweep's
// runs) on a pool of threads: `--jobs N`. Each point runs on its own runtime::Session, so points
// share only read-only state (topologies, registries); results come back in input order and the
// output is byte-identical to --jobs 1. The costliest points start first where a cost is known
// (a long point started last would leave the other threads idle at the end).
//
// Failures keep the serial run's rows: when point k fails, points before k still run (and finish),
// points after k are stopped at their next check, and k's exception is rethrown after the points
// before it are delivered -- what --jobs 1 prints. On an interrupt (core::Interrupted, Ctrl-C or
// SIGTERM) every running point stops at its next check and every point that finished is
// delivered, in input order, before the interrupt is rethrown.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace collsim::cli {

/// The number of threads --jobs 0 (the default) stands for: the cores (at least 1).
unsigned default_jobs();

/// The --jobs value as given: 0 is the default (the cores). Throws core::InputError above 4096.
unsigned resolve_jobs(std::uint32_t jobs, const std::string& field = "--jobs");

/// What a running point checks (at its progress ticks): whether it should stop.
class PointStop {
 public:
  /// Throws PointCancelled when a point before `point` failed (its result will not be shown),
  /// core::Interrupted on a signal (cli/interrupt.hpp).
  void check(std::size_t point) const;
  /// Make every running point stop at its next check() (an interrupt seen by one of them).
  void stop_all() { all_.store(true, std::memory_order_relaxed); }
  /// A point failed: the points after it stop.
  void failed(std::size_t point);

 private:
  std::atomic<std::size_t> first_failed_{SIZE_MAX};
  std::atomic<bool> all_{false};
};

/// Thrown by PointStop::check in a point whose result is no longer wanted.
struct PointCancelled {};

struct PointsOptions {
  unsigned jobs = 1;          ///< threads; 1: every point on the calling thread, in order
  std::vector<double> cost;   ///< per point (empty: unknown): larger ones start first
};

/// The order points start in with several threads: costliest first, equal costs (and no costs,
/// `cost` empty) in input order.
std::vector<std::size_t> start_order(std::size_t n, const std::vector<double>& cost);

/// Runs `run(i, stop)` for every point i in [0, n) on `options.jobs` threads; `deliver(i)` is
/// called on the calling thread for each finished point in input order, as soon as the points
/// before it have finished. `run` writes its result where `deliver` finds it (a slot per point)
/// and calls stop.check(i) now and then. Rethrows a failed point's exception as described above.
void run_points(std::size_t n, const PointsOptions& options,
                const std::function<void(std::size_t, const PointStop&)>& run,
                const std::function<void(std::size_t)>& deliver);

}  // namespace collsim::cli
