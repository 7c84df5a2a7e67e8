#pragma once
// A jobs::Sweep's progress on standard error (cli/progress.hpp draws it): with one thread a
// ProgressLine per simulation ("collsim: [3/48] torus-8x8 ring 64 MiB flow: 2.31 ms simulated,
// 41% of 2.1e+08 messages, ..."), with several a PointsProgress ("collsim: [3/48 done, 2
// running] ...": runs done of all, points running); notes (a training run's "collsim: [2/6]
// resnet50 on ...") above the line.
#include <iosfwd>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/progress.hpp"
#include "jobs/sweep.hpp"

namespace collsim::cli {

/// Whether a command draws the progress line: not --quiet, and --progress or standard error
/// (`err`) a terminal.
bool progress_wanted(const OutputOptions& opt, const std::ostream& err);

class SweepLine final : public jobs::SweepProgress {
 public:
  /// `line`: draw the line (progress_wanted); notes are written either way.
  SweepLine(std::ostream& err, bool line) : err_(err), line_(line) {}
  void begin(const jobs::SweepStatus& s) override;
  void run_started(const jobs::SweepStatus& s, const std::string& what,
                   const jobs::RunContext* run) override;
  void run_tick(const jobs::SweepStatus& s, const std::string& what, core::Time simulated,
                std::uint64_t events, const jobs::RunContext* run) override;
  void run_finished(const jobs::SweepStatus& s, const std::string& what) override;
  void note(const std::string& text) override;
  /// Erase the line (before rows or an error are printed); from the sweep's thread.
  void clear();

 private:
  std::ostream& err_;
  bool line_;
  std::unique_ptr<ProgressLine> one_;      ///< one thread
  std::unique_ptr<PointsProgress> many_;  ///< several
};

}  // namespace collsim::cli
