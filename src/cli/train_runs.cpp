#include "cli/train_runs.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <ostream>

#include "cli/backend_flags.hpp"
#include "cli/interrupt.hpp"
#include "cli/progress.hpp"
#include "core/error.hpp"
#include "report/training_trace.hpp"

namespace collsim::cli {

int run_training_work(const std::vector<TrainingWork>& work, const OutputOptions& opt,
                      std::ostream& out, std::ostream& err,
                      const std::function<void(const jobs::TrainingRow&)>& on_row) {
  const report::Format format = report::parse_format(opt.format, "--format");
  if (!opt.activity.empty()) {
    throw core::InputError(
        "--activity: training runs have no activity series; use --trace for their timeline");
  }
  if (!opt.lightpaths.empty()) {
    throw core::InputError(
        "--lightpaths: training runs do not log lightpaths; run the collectives with "
        "`collsim collective` or `collsim run`");
  }
  if (!opt.packet_trace.empty()) {
    throw core::InputError(
        "--packet-trace: training runs do not log packet events; run the collectives with "
        "`collsim collective` or `collsim run`");
  }
  jobs::TrainingSweepOptions so;
  so.timeline = !opt.trace.empty();
  so.limits = parse_limits(opt.max_messages, opt.max_memory);
  // A progress line with simulated time on a terminal (or with --progress).
  std::unique_ptr<ProgressLine> progress;
  if (!opt.quiet && (opt.progress || (&err == &std::cerr && isatty(STDERR_FILENO)))) {
    std::size_t total = 0;
    for (const TrainingWork& w : work) total += w.spec.algorithms.size() * w.spec.overlaps.size();
    progress = std::make_unique<ProgressLine>(err, total);
  }
  so.on_start = [&](std::size_t k, std::size_t n, const std::string& line,
                    const std::string& what) {
    InterruptMonitor::check();  // Ctrl-C between runs
    if (progress) progress->clear();
    if (!opt.quiet) err << fmt::format("collsim: [{}/{}] {}\n", k, n, line);
    if (progress) progress->begin_run(what, core::Time{}, 0);
  };
  so.on_progress = [&](const std::string& what, core::Time t, std::uint64_t events) {
    InterruptMonitor::check();  // Ctrl-C during a run
    if (progress) progress->tick(what, t, events);
  };
  std::vector<jobs::TrainingRow> finished;
  so.on_row = [&](const jobs::TrainingRow& row) {
    if (progress) progress->clear();
    finished.push_back(row);
    if (on_row) on_row(row);
  };
  jobs::TrainingSweep sweep;
  try {
    sweep = jobs::run_training_sweep(work, so);
  } catch (const core::Interrupted&) {
    // Nothing lost: the rows that finished, on standard output.
    if (progress) progress->clear();
    if (!finished.empty()) out << report::render_training(finished, format, !opt.no_layers);
    throw;
  }
  const auto& rows = sweep.rows;
  std::vector<const workload::Workload*> row_workloads;
  for (std::size_t i : sweep.row_workload) row_workloads.push_back(&sweep.workloads[i]);
  if (!opt.trace.empty()) {
    report::write_file_atomically(opt.trace, report::render_training_trace(rows, row_workloads),
                                  "--trace");
  }
  const std::string text = report::render_training(rows, format, !opt.no_layers);
  if (opt.output.empty()) {
    out << text;
  } else {
    report::write_file_atomically(opt.output, text);
  }
  return 0;
}

}  // namespace collsim::cli
