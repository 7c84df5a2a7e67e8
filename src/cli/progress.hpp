#pragma once
// The progress line of long runs: "collsim: [3/48] torus-8x8 ring 64 MiB flow: 2.31 ms
// simulated, 41% of 2.1e+08 messages, 4.2 M events/s, about 3 min left", rewritten in place on
// standard error (only when it is a terminal and --quiet is not given: the CLI decides), at most
// five times a second. The share of messages and the time left are shown where the run's message
// total is known (flat collectives and sends; not hierarchical ones, whose chunk-stages are
// decided as they run): the time left assumes the rest goes at the rate so far. While a run sets
// up (before its first event: programs, routes) a thread of the line's own redraws "setting up
// (N s)" every second, so the line never stands still on a long set-up.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <iosfwd>
#include <mutex>
#include <string>
#include <thread>

#include "jobs/collective_sweep.hpp"
#include "jobs/sweep.hpp"

namespace collsim::cli {

class ProgressLine final : public jobs::RunMonitor {
 public:
  /// `total`: the runs that will be started; `min_interval`: between two redraws.
  ProgressLine(std::ostream& err, std::uint64_t total,
               std::chrono::milliseconds min_interval = std::chrono::milliseconds(200));
  ~ProgressLine();
  void begin_run(const jobs::RunContext& c) override;
  void tick(const jobs::RunContext& c) override;
  /// The same for a run that has no RunContext (a training run): `what` once, then its
  /// simulated time and events as they go.
  void begin_run(const std::string& what, core::Time simulated, std::uint64_t events);
  void tick(const std::string& what, core::Time simulated, std::uint64_t events);
  /// Erase the line (before results or an error are printed).
  void clear();

 private:
  // `mu_` held by every caller of these.
  void draw(const std::string& what, core::Time simulated, std::uint64_t events, bool force);
  void clear_locked();
  void keep_setting_up();  // the ticker thread
  std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::string what_;  ///< the run the line shows
  // The run's messages sent and expected (Session::messages_expected; 0: unknown).
  void count_messages(const jobs::RunContext& c);
  std::ostream& err_;
  std::uint64_t sent_ = 0, expected_ = 0;
  std::uint64_t total_;
  std::uint64_t started_ = 0;
  std::chrono::milliseconds min_interval_;
  std::chrono::steady_clock::time_point run_start_, last_draw_;
  std::uint64_t run_events_start_ = 0;
  bool drawn_ = false;
  bool setting_up_ = false;  ///< the line says the run is still setting up
  std::thread ticker_;       ///< last: started when everything it reads is made
};

/// The progress line of a sweep run on several threads (--jobs): the runs that finished, the
/// points running and the latest news of one, "collsim: [3/48 done, 2 running] torus-8x8 ring 64 MiB flow:
/// 2.31 ms simulated", at most five times a second. The counts are the sweep's
/// (jobs::SweepStatus); the sweep calls one method at a time, clear() may come from another
/// thread.
class PointsProgress {
 public:
  /// `line`: draw the line (else only note() writes).
  PointsProgress(std::ostream& err, bool line = true,
                 std::chrono::milliseconds min_interval = std::chrono::milliseconds(200));
  ~PointsProgress();
  void started(const jobs::SweepStatus& s, const std::string& what);
  void tick(const jobs::SweepStatus& s, const std::string& what, core::Time simulated);
  void finished(const jobs::SweepStatus& s, const std::string& what);
  /// A line of its own on standard error ("collsim: [2/6] resnet50 on ..."), above the line.
  void note(const std::string& text);
  /// Erase the line (before results or an error are printed).
  void clear();

 private:
  void draw(const jobs::SweepStatus& s, const std::string& what, const std::string& news,
            bool force);  // `mu_` held
  std::mutex mu_;
  std::ostream& err_;
  bool line_;
  std::chrono::milliseconds min_interval_;
  std::chrono::steady_clock::time_point last_draw_;
  bool drawn_ = false;
};

}  // namespace collsim::cli
