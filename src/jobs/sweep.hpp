#pragma once
// One sweep for every kind of independent point: a collective job's (size, algorithm) run, a
// concurrent job, a training run, an LLM iteration, a trace replay (docs/parallel.md). Each point
// runs on its own runtime::Session, so points share only read-only state (topologies,
// registries). The sweep owns what every command did by hand:
//   - `--jobs N` threads, the costliest points first (a long point started last would leave the
//     other threads idle at the end); one thread runs every point on the calling thread, in order;
//   - `--shard I/N` slicing (jobs/shard.hpp): contiguous whole blocks of points, cost-balanced;
//   - rows handed on (Point::deliver) on the calling thread in input order, each as soon as the
//     points before it have finished: the bytes of --jobs 1 whatever the threads;
//   - failures and interrupts: when point k fails, the points before it still run (and are
//     delivered), the points after it stop at their next check, and k's exception is rethrown:
//     what --jobs 1 shows. On core::Interrupted (a signal, through SweepOptions::interrupted)
//     every running point stops at its next check and every point that finished is delivered,
//     in input order, before the interrupt is rethrown;
//   - the progress line's data (SweepStatus: runs and points done, running and in all, and the
//     news of the running points), told to a SweepProgress the command draws.
// The sweep knows nothing of rows' types or of the command line: a point is a cost, a name, a
// function that runs it and returns its row, and a function that takes the row.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/units.hpp"
#include "jobs/collective_sweep.hpp"
#include "jobs/shard.hpp"

namespace collsim::jobs {

/// The number of threads --jobs 0 (the default) stands for: the cores (at least 1).
unsigned default_jobs();

/// The --jobs value as given: 0 is the default (the cores). Throws core::InputError above 4096.
unsigned resolve_jobs(std::uint32_t jobs, const std::string& field = "--jobs");

/// The order points start in with several threads: costliest first, equal costs in input order.
std::vector<std::size_t> start_order(const std::vector<double>& cost);

/// Thrown by PointRun::check in a point whose row is no longer wanted (a point before it
/// failed); the sweep catches it.
struct PointCancelled {};

/// The progress line's data: points, and the simulations (runs) they declare (Point::runs; a
/// concurrent job is one point of several runs).
struct SweepStatus {
  std::size_t points = 0;      ///< in this sweep (this shard's)
  std::size_t done = 0;        ///< points finished
  std::size_t running = 0;     ///< points in a run: started, and not between two of their runs
  std::uint64_t runs = 0;      ///< runs of every point
  std::uint64_t runs_done = 0; ///< runs finished (a point's unreported ones when it finishes)
  unsigned threads = 1;        ///< the sweep's threads (1: every point on the calling thread)
};

/// What a command draws from a sweep's progress (the CLI's progress line). Calls come from the
/// points' threads, one at a time (the sweep serialises them), and `begin` from the sweep's.
class SweepProgress {
 public:
  /// Before the first point starts.
  virtual void begin(const SweepStatus&) {}
  /// A point started (its name) or finished (the name of its last simulation).
  virtual void point_started(const SweepStatus&, const std::string& /*what*/) {}
  virtual void point_finished(const SweepStatus&, const std::string& /*what*/) {}
  /// A simulation of a point began, went on (its simulated time and events so far) or ended,
  /// with its RunContext where the point has one (collective runs: messages sent and expected).
  /// A point's runs that it did not report ending end, as one, when it finishes.
  virtual void run_started(const SweepStatus&, const std::string& /*what*/, const RunContext*) {}
  virtual void run_tick(const SweepStatus&, const std::string& /*what*/, core::Time /*simulated*/,
                        std::uint64_t /*events*/, const RunContext*) {}
  virtual void run_finished(const SweepStatus&, const std::string& /*what*/) {}
  /// A line of its own (a training run's "collsim: [2/6] resnet50 on ...").
  virtual void note(const std::string& /*text*/) {}

 protected:
  ~SweepProgress() = default;
};

namespace detail {
struct SweepState;
}
class Sweep;

/// What a running point reports to and asks of its sweep; handed to Point::run. As a
/// RunMonitor it checks and reports at every run start and tick of a collective run (give it,
/// or a MonitorList holding it first, to jobs::run_collective_point and the like).
class PointRun final : public RunMonitor {
 public:
  /// Throws PointCancelled when a point before this one failed, or what
  /// SweepOptions::interrupted throws (core::Interrupted) after a signal. Call it often (at
  /// progress ticks): a point stops only where it checks.
  void check() const;
  /// A simulation of the point begins (`what` names it on the progress line) ...
  void begin(const std::string& what, const RunContext* run = nullptr);
  /// ... goes on: its simulated time and events so far ...
  void tick(const std::string& what, core::Time simulated, std::uint64_t events,
            const RunContext* run = nullptr);
  /// ... and ends (optional: the point's runs left end when it returns).
  void end(const std::string& what);
  /// A line of its own on the progress line's stream (nothing without a SweepProgress).
  void note(const std::string& text);
  /// This point's place among the sweep's points (after slicing) and their number.
  std::size_t index() const { return point_; }
  std::size_t count() const;

  void begin_run(const RunContext& c) override;
  void tick(const RunContext& c) override;
  void end_run(const RunContext& c) override { end(c.what); }

 private:
  friend class Sweep;
  PointRun(detail::SweepState& state, std::size_t point) : state_(state), point_(point) {}
  detail::SweepState& state_;
  std::size_t point_;
  std::string what_;       ///< the latest simulation's name
  std::uint64_t ended_ = 0;  ///< runs reported ended
  bool in_run_ = false;      ///< counted in SweepStatus::running (under the sweep's mutex)
};

/// One point, with its row type `Row`.
template <class Row>
struct Point {
  double cost = 0;   ///< an estimate (e.g. its messages): larger ones start first and weigh more
                     ///< in --shard slices; all equal (0): input order, equal slices
  std::string name;  ///< for the progress line until the point names its first simulation
  std::string key;   ///< what it runs, for the --shard fingerprint (jobs/shard.hpp)
  /// Part of the previous point's --shard block (a collective job's algorithms of one size,
  /// whose speedup column and closing rows need them all); else a block of its own.
  bool joins_previous = false;
  std::uint64_t runs = 1;  ///< its simulations (SweepStatus::runs)
  /// Runs the point on its own Session (on a thread of the sweep); returns its row.
  std::function<Row(PointRun&)> run;
  /// Takes the row, on the calling thread, in input order.
  std::function<void(Row&&)> deliver;
};

struct SweepOptions {
  unsigned jobs = 1;  ///< threads (resolve_jobs); at most one per point
  /// Called at every check: throws core::Interrupted after a signal (cli/interrupt.hpp's
  /// InterruptMonitor::check); empty: no signals.
  std::function<void()> interrupted;
  SweepProgress* progress = nullptr;  ///< nullptr: no progress data told
};

class Sweep {
 public:
  explicit Sweep(SweepOptions options = {}) : options_(std::move(options)) {}

  template <class Row>
  void add(Point<Row> p) {
    auto slot = std::make_shared<std::optional<Row>>();
    Entry e;
    e.cost = p.cost;
    e.name = std::move(p.name);
    e.key = std::move(p.key);
    e.joins_previous = p.joins_previous;
    e.runs = p.runs;
    e.run = [slot, run = std::move(p.run)](PointRun& r) { slot->emplace(run(r)); };
    e.deliver = [slot, deliver = std::move(p.deliver)] {
      Row row = std::move(**slot);
      slot->reset();
      if (deliver) deliver(std::move(row));
    };
    points_.push_back(std::move(e));
  }

  /// --shard: keeps shard `s`'s contiguous slice of whole blocks, cut where the points' costs
  /// are shared about evenly (jobs/shard.hpp shard_blocks), and returns the first line of its
  /// CSV (shard_line, with the fingerprint of every point's key); "" when `s` is not active.
  std::string slice(Shard s);

  std::size_t size() const { return points_.size(); }
  /// The threads run() uses: SweepOptions::jobs, at most one per point.
  unsigned threads() const;
  /// Runs every point and delivers the rows; throws as described at the top of this file.
  void run();

 private:
  struct Entry {
    double cost = 0;
    std::string name, key;
    bool joins_previous = false;
    std::uint64_t runs = 1;
    std::function<void(PointRun&)> run;
    std::function<void()> deliver;
  };
  void run_parallel(detail::SweepState& state, unsigned threads);
  void run_one(detail::SweepState& state, std::size_t i);

  SweepOptions options_;
  std::vector<Entry> points_;
};

}  // namespace collsim::jobs
