#include "cli/train_runs.hpp"

#include <fmt/format.h>

#include <ostream>

#include "cli/backend_flags.hpp"
#include "cli/export_chakra.hpp"
#include "cli/interrupt.hpp"
#include "cli/sweep_progress.hpp"
#include "core/error.hpp"
#include "jobs/sweep.hpp"
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
  const jobs::Shard shard = jobs::parse_shard(opt.shard);
  if (shard.active() && (format != report::Format::Csv || !opt.trace.empty() ||
                         !opt.links.empty())) {
    throw core::InputError(
        "--shard: a shard writes CSV rows for `collsim merge`; add --format csv and leave out "
        "--trace and --links");
  }
  if (!opt.export_chakra.empty()) {
    check_export_prefix(opt.export_chakra);
    std::size_t runs = 0;
    for (const TrainingWork& w : work) runs += w.spec.algorithms.size() * w.spec.overlaps.size();
    if (runs != 1 || shard.active()) {
      throw core::InputError(fmt::format(
          "--export-chakra: writes one run's workload; this has {} runs{} (give one algorithm, "
          "one overlap, one platform and backend)",
          runs, shard.active() ? " and a --shard" : ""));
    }
  }
  jobs::TrainingSweepOptions so;
  so.all_links = !opt.links.empty();
  so.timeline = !opt.trace.empty();
  so.limits = parse_limits(opt.max_messages, opt.max_memory);
  // A progress line with simulated time on a terminal (or with --progress), each run's note.
  SweepLine line(err, progress_wanted(opt, err));
  jobs::TrainingSweep sweep;
  std::string shard_prefix;
  try {
    sweep = jobs::prepare_training_sweep(work, so);
    jobs::SweepOptions po;
    po.jobs = jobs::resolve_jobs(opt.jobs);
    po.interrupted = &InterruptMonitor::check;
    po.progress = &line;
    jobs::Sweep points(po);
    // Every run a point, a --shard block of its own, all of equal cost (in input order).
    for (const jobs::TrainingPoint& p : jobs::training_points(work)) {
      const TrainingWork& w = work[p.work];
      const collective::AlgorithmChoice& a = w.spec.algorithms[p.algorithm];
      jobs::Point<jobs::TrainingRow> point;
      point.name = fmt::format("{} on {}: {}", sweep.workloads[p.work].name, w.platform, a.label);
      point.key = fmt::format("{} {} {} {} {} {}", w.spec.workload, w.platform,
                              network::backend_label(*w.backend, w.backend_options),
                              jobs::endpoint_label(w.endpoint, w.endpoint_params), a.label,
                              jobs::to_string(w.spec.overlaps[p.overlap]));
      point.run = [&, p](jobs::PointRun& r) {
        jobs::TrainingSweepOptions mine = so;  // this point's callbacks
        mine.on_start = [&](std::size_t k, std::size_t n, const std::string& text,
                            const std::string& what) {
          r.check();  // Ctrl-C between runs
          if (!opt.quiet) r.note(fmt::format("collsim: [{}/{}] {}", k, n, text));
          r.begin(what);
        };
        mine.on_progress = [&](const std::string& what, core::Time t, std::uint64_t events) {
          r.check();  // Ctrl-C during a run
          r.tick(what, t, events);
        };
        return jobs::run_training_point(work[p.work], sweep.workloads[p.work], p, mine,
                                        r.index() + 1, r.count());
      };
      point.deliver = [&, p](jobs::TrainingRow&& row) {
        line.clear();
        if (on_row) on_row(row);
        sweep.rows.push_back(std::move(row));
        sweep.row_workload.push_back(p.work);
      };
      points.add(std::move(point));
    }
    shard_prefix = points.slice(shard);
    points.run();
    line.clear();
  } catch (const core::Interrupted&) {
    // Nothing lost: the rows that finished, on standard output.
    line.clear();
    if (!sweep.rows.empty()) out << report::render_training(sweep.rows, format, !opt.no_layers);
    if (!opt.trace.empty()) {  // as far as it got: the runs that finished
      std::vector<const workload::Workload*> done;
      for (std::size_t i : sweep.row_workload) done.push_back(&sweep.workloads[i]);
      report::write_file_atomically(opt.trace, report::render_training_trace(sweep.rows, done),
                                    "--trace");
    }
    throw;
  }
  const auto& rows = sweep.rows;
  if (!opt.export_chakra.empty()) {
    export_chakra(opt.export_chakra, training_run_graph(work[0], sweep.workloads[0], 0, 0),
                  *work[0].topology, err, opt.quiet);
  }
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
