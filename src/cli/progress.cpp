#include "cli/progress.hpp"

#include <fmt/format.h>

#include <ostream>

namespace collsim::cli {
namespace {

// "40 s left", "3 min left", "2.5 h left": rounded as a person reads an estimate.
std::string time_left(double seconds) {
  if (seconds < 90) return fmt::format("{:.0f} s left", seconds);
  if (seconds < 90 * 60) return fmt::format("{:.0f} min left", seconds / 60);
  return fmt::format("{:.1f} h left", seconds / 3600);
}

}  // namespace

ProgressLine::ProgressLine(std::ostream& err, std::uint64_t total,
                           std::chrono::milliseconds min_interval)
    : err_(err), total_(total), min_interval_(min_interval), ticker_([this] { keep_setting_up(); }) {}

ProgressLine::~ProgressLine() {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  ticker_.join();
  clear();
}

void ProgressLine::keep_setting_up() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_cv_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stop_; })) {
    // Only a line on screen that still says "setting up" and is a second old: the run's own
    // ticks redraw it once it simulates.
    if (drawn_ && setting_up_ &&
        std::chrono::steady_clock::now() - last_draw_ >= std::chrono::seconds(1)) {
      draw(what_, core::Time{}, run_events_start_, true);
    }
  }
}

void ProgressLine::count_messages(const jobs::RunContext& c) {
  sent_ = c.session.executor().messages_sent();
  expected_ = c.session.messages_expected();
}

void ProgressLine::begin_run(const jobs::RunContext& c) {
  begin_run(c.what, c.sim.now(), c.sim.events_processed());
}

void ProgressLine::tick(const jobs::RunContext& c) {
  const std::lock_guard<std::mutex> lock(mu_);
  count_messages(c);
  draw(c.what, c.sim.now(), c.sim.events_processed(), false);
}

void ProgressLine::begin_run(const std::string& what, core::Time simulated, std::uint64_t events) {
  const std::lock_guard<std::mutex> lock(mu_);
  ++started_;
  sent_ = expected_ = 0;
  run_start_ = std::chrono::steady_clock::now();
  run_events_start_ = events;
  draw(what, simulated, events, true);  // every run is named once, however short
}

void ProgressLine::tick(const std::string& what, core::Time simulated, std::uint64_t events) {
  const std::lock_guard<std::mutex> lock(mu_);
  draw(what, simulated, events, false);
}

void ProgressLine::draw(const std::string& what, core::Time simulated, std::uint64_t events_now,
                        bool force) {
  const auto now = std::chrono::steady_clock::now();
  // The first tick after set-up is drawn at once: the line shows that simulating has begun.
  if (!force && drawn_ && !setting_up_ && now - last_draw_ < min_interval_) return;
  last_draw_ = now;
  if (&what != &what_) what_ = what;
  const double wall = std::chrono::duration<double>(now - run_start_).count();
  const double events = static_cast<double>(events_now - run_events_start_);
  std::string rate;
  if (wall > 0.05) rate = fmt::format(", {:.1f} M events/s", events / wall / 1e6);
  // Before its first event a run is building its schedule and network: say so rather than
  // "0 simulated", which reads as a hang on a large platform.
  setting_up_ = events == 0 && simulated == core::Time{};
  std::string share, left;
  if (expected_ > 0 && sent_ <= expected_) {
    const double done = static_cast<double>(sent_) / static_cast<double>(expected_);
    share = fmt::format(", {:.0f}% of {:.3g} messages", 100 * done, static_cast<double>(expected_));
    // The time left, once enough has run for the rate to mean something.
    if (wall >= 2 && done >= 0.01) left = ", about " + time_left(wall * (1 - done) / done);
  }
  const std::string state =
      setting_up_ ? fmt::format("setting up ({:.0f} s)", wall)
                  : core::to_string(simulated) + " simulated" + share + rate + left;
  err_ << fmt::format("\r\033[Kcollsim: [{}/{}] {}: {}", started_, total_, what, state)
       << std::flush;
  drawn_ = true;
}

void ProgressLine::clear() {
  const std::lock_guard<std::mutex> lock(mu_);
  clear_locked();
}

void ProgressLine::clear_locked() {
  if (!drawn_) return;
  err_ << "\r\033[K" << std::flush;
  drawn_ = false;
}

PointsProgress::PointsProgress(std::ostream& err, bool line,
                               std::chrono::milliseconds min_interval)
    : err_(err), line_(line), min_interval_(min_interval) {}

PointsProgress::~PointsProgress() { clear(); }

void PointsProgress::started(const jobs::SweepStatus& s, const std::string& what) {
  std::lock_guard<std::mutex> lock(mu_);
  draw(s, what, "setting up", true);
}

void PointsProgress::tick(const jobs::SweepStatus& s, const std::string& what,
                          core::Time simulated) {
  std::lock_guard<std::mutex> lock(mu_);
  draw(s, what, core::to_string(simulated) + " simulated", false);
}

void PointsProgress::finished(const jobs::SweepStatus& s, const std::string& what) {
  std::lock_guard<std::mutex> lock(mu_);
  draw(s, what, "finished", true);
}

void PointsProgress::note(const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  if (drawn_) err_ << "\r\033[K";
  err_ << text << '\n' << std::flush;
  drawn_ = false;
}

void PointsProgress::draw(const jobs::SweepStatus& s, const std::string& what,
                          const std::string& news, bool force) {
  if (!line_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && drawn_ && now - last_draw_ < min_interval_) return;
  last_draw_ = now;
  err_ << fmt::format("\r\033[Kcollsim: [{}/{} done, {} running] {}: {}", s.runs_done, s.runs,
                      s.running, what, news)
       << std::flush;
  drawn_ = true;
}

void PointsProgress::clear() {
  const std::lock_guard<std::mutex> lock(mu_);
  if (!drawn_) return;
  err_ << "\r\033[K" << std::flush;
  drawn_ = false;
}

}  // namespace collsim::cli

