#include "cli/sweep_progress.hpp"

#include <unistd.h>

#include <iostream>

namespace collsim::cli {

bool progress_wanted(const OutputOptions& opt, const std::ostream& err) {
  return !opt.quiet && (opt.progress || (&err == &std::cerr && isatty(STDERR_FILENO)));
}

void SweepLine::begin(const jobs::SweepStatus& s) {
  one_.reset();
  many_.reset();
  if (s.threads > 1) {
    many_ = std::make_unique<PointsProgress>(err_, line_);
  } else if (line_) {
    one_ = std::make_unique<ProgressLine>(err_, s.runs);
  }
}

void SweepLine::run_finished(const jobs::SweepStatus& s, const std::string& what) {
  if (many_) many_->finished(s, what);
}

void SweepLine::run_started(const jobs::SweepStatus& s, const std::string& what,
                            const jobs::RunContext* run) {
  if (many_) {
    many_->started(s, what);
  } else if (one_ && run) {
    one_->begin_run(*run);
  } else if (one_) {
    one_->begin_run(what, core::Time{}, 0);
  }
}

void SweepLine::run_tick(const jobs::SweepStatus& s, const std::string& what,
                         core::Time simulated, std::uint64_t events,
                         const jobs::RunContext* run) {
  if (many_) {
    many_->tick(s, what, simulated);
  } else if (one_ && run) {
    one_->tick(*run);
  } else if (one_) {
    one_->tick(what, simulated, events);
  }
}

void SweepLine::note(const std::string& text) {
  if (many_) {
    many_->note(text);
    return;
  }
  if (one_) one_->clear();
  err_ << text << '\n';
}

void SweepLine::clear() {
  if (one_) one_->clear();
  if (many_) many_->clear();
}

}  // namespace collsim::cli
