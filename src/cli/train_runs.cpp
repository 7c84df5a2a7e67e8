#include "cli/train_runs.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <optional>
#include <ostream>

#include "cli/backend_flags.hpp"
#include "cli/interrupt.hpp"
#include "cli/parallel_points.hpp"
#include "cli/progress.hpp"
#include "cli/shard.hpp"
#include "core/error.hpp"
#include "report/link_csv.hpp"
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
  // --shard I/N: this machine's slice of the runs, CSV for `collsim merge`.
  const Shard shard = parse_shard(opt.shard);
  std::string shard_prefix;
  if (shard.active() && (format != report::Format::Csv || !opt.trace.empty() ||
                         !opt.links.empty())) {
    throw core::InputError(
        "--shard: a shard writes CSV rows for `collsim merge`; add --format csv and leave out "
        "--trace and --links");
  }
  jobs::TrainingSweepOptions so;
  so.all_links = !opt.links.empty();
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
    sweep = jobs::prepare_training_sweep(work, so);
    std::vector<jobs::TrainingPoint> points = jobs::training_points(work);
    if (shard.active()) {
      // Every run a block of its own, of equal cost (cli/shard.hpp).
      std::vector<std::string> what;
      for (const jobs::TrainingPoint& p : points) {
        const TrainingWork& w = work[p.work];
        what.push_back(fmt::format(
            "{} {} {} {} {} {}", w.spec.workload, w.platform,
            network::backend_label(*w.backend, w.backend_options),
            jobs::endpoint_label(w.endpoint, w.endpoint_params),
            w.spec.algorithms[p.algorithm].label, jobs::to_string(w.spec.overlaps[p.overlap])));
      }
      const auto [first, last] = shard_blocks(std::vector<double>(points.size(), 1.0), shard);
      shard_prefix = shard_line(shard, first, last, points.size(), sweep_fingerprint(what));
      points = std::vector<jobs::TrainingPoint>(points.begin() + static_cast<std::ptrdiff_t>(first),
                                                points.begin() + static_cast<std::ptrdiff_t>(last));
    }
    const unsigned threads = resolve_jobs(opt.jobs);
    // Several threads: one progress line for all (counting finished runs), notes under it.
    std::unique_ptr<PointsProgress> shared;
    if (threads > 1 && points.size() > 1) {
      if (progress) progress->clear();
      progress.reset();
      shared = std::make_unique<PointsProgress>(
          err, points.size(), !opt.quiet && (opt.progress || (&err == &std::cerr &&
                                                              isatty(STDERR_FILENO))));
    }
    std::vector<std::optional<jobs::TrainingRow>> results(points.size());
    const auto run = [&](std::size_t i, const PointStop& stop) {
      const jobs::TrainingPoint& p = points[i];
      if (!shared) {
        results[i] = jobs::run_training_point(work[p.work], sweep.workloads[p.work], p, so, i + 1,
                                              points.size());
        return;
      }
      jobs::TrainingSweepOptions mine = so;  // this thread's callbacks
      mine.on_start = [&](std::size_t k, std::size_t n, const std::string& line,
                          const std::string& what) {
        stop.check(i);
        if (!opt.quiet) shared->note(fmt::format("collsim: [{}/{}] {}", k, n, line));
        shared->started(what);
      };
      mine.on_progress = [&](const std::string& what, core::Time t, std::uint64_t) {
        stop.check(i);
        shared->tick(what, t);
      };
      results[i] = jobs::run_training_point(work[p.work], sweep.workloads[p.work], p, mine, i + 1,
                                            points.size());
      shared->finished(results[i]->workload + " on " + results[i]->platform + ": " +
                       results[i]->algorithm);
    };
    const auto deliver = [&](std::size_t i) {
      jobs::TrainingRow row = std::move(*results[i]);
      results[i].reset();
      so.on_row(row);
      sweep.rows.push_back(std::move(row));
      sweep.row_workload.push_back(points[i].work);
    };
    PointsOptions po;
    po.jobs = threads;
    try {
      run_points(points.size(), po, run, deliver);
    } catch (...) {
      if (shared) shared->clear();
      throw;
    }
    if (shared) shared->clear();
  } catch (const core::Interrupted&) {
    // Nothing lost: the rows that finished, on standard output.
    if (progress) progress->clear();
    if (!finished.empty()) out << report::render_training(finished, format, !opt.no_layers);
    if (!opt.trace.empty()) {  // as far as it got: the runs that finished
      std::vector<const workload::Workload*> done;
      for (std::size_t i : sweep.row_workload) done.push_back(&sweep.workloads[i]);
      report::write_file_atomically(opt.trace, report::render_training_trace(sweep.rows, done),
                                    "--trace");
    }
    throw;
  }
  const auto& rows = sweep.rows;
  std::vector<const workload::Workload*> row_workloads;
  for (std::size_t i : sweep.row_workload) row_workloads.push_back(&sweep.workloads[i]);
  if (!opt.trace.empty()) {
    report::write_file_atomically(opt.trace, report::render_training_trace(rows, row_workloads),
                                  "--trace");
  }
  if (!opt.links.empty()) {
    report::write_file_atomically(opt.links, report::render_training_links_csv(rows), "--links");
  }
  const std::string text = shard_prefix + report::render_training(rows, format, !opt.no_layers);
  if (opt.output.empty()) {
    out << text;
  } else {
    report::write_file_atomically(opt.output, text);
  }
  return 0;
}

}  // namespace collsim::cli
