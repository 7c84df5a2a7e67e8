#include "cli/train_runs.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <ostream>

#include "cli/backend_flags.hpp"
#include "cli/progress.hpp"
#include "core/error.hpp"
#include "report/training_trace.hpp"
#include "scheduler/collective_sweep.hpp"
#include "workload/load.hpp"
#include "workload/training_limits.hpp"

namespace collsim::cli {

int run_training_work(const std::vector<TrainingWork>& work, const OutputOptions& opt,
                      std::ostream& out, std::ostream& err,
                      const std::function<void(const report::TrainingRow&)>& on_row) {
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
  // Load everything first: a bad workload is reported before hours of simulation.
  std::vector<workload::Workload> workloads;
  std::size_t total = 0;
  for (const TrainingWork& w : work) {
    workload::LoadOptions lo;
    lo.astra_clock_hz = w.spec.astra_clock_hz;
    lo.compute = w.spec.compute;
    lo.batch = w.spec.batch;
    lo.bytes_per_element = w.spec.bytes_per_element;
    lo.chakra = w.spec.chakra;
    // Compute coupling (ACE Sec. 5): training runs with what the endpoint leaves it.
    if (w.endpoint && w.endpoint->training_share) {
      const endpoint::TrainingShare share = w.endpoint->training_share(w.endpoint_params);
      lo.compute_share = share.compute;
      lo.memory_share = share.memory;
    }
    workloads.push_back(workload::load_workload(w.spec.workload, *w.topology, lo, w.field));
    workload::validate(workloads.back(), w.topology->num_npus());
    total += w.spec.algorithms.size() * w.spec.overlaps.size();
  }
  const auto options_for = [&](const TrainingWork& w, const collective::AlgorithmChoice& a,
                               workload::Overlap ov) {
    workload::TrainingOptions to;
    to.algorithm = a;
    to.per_collective = w.spec.per_collective;
    to.ideal = a.info == nullptr;
    to.chunks = w.spec.chunks;
    to.overlap = ov;
    to.order = w.spec.order;
    to.iterations = w.spec.iterations;
    to.backend_options = w.backend_options;
    to.endpoint = w.endpoint;
    to.endpoint_params = w.endpoint_params;
    to.max_time = w.max_time;
    to.timeline = !opt.trace.empty();
    return to;
  };
  // Every run's work against the limits before any runs (the overlap does not change it).
  const scheduler::RunLimits limits = parse_limits(opt.max_messages, opt.max_memory);
  for (std::size_t i = 0; i < work.size(); ++i) {
    const TrainingWork& w = work[i];
    for (const auto& a : w.spec.algorithms) {
      workload::check_training(
          *w.topology, *w.backend, workloads[i], options_for(w, a, w.spec.overlaps.front()), limits,
          fmt::format("{} on {}: {}", workloads[i].name, w.platform, a.info ? a.label : "ideal"));
    }
  }
  std::unique_ptr<ProgressLine> progress;
  if (!opt.quiet && (opt.progress || (&err == &std::cerr && isatty(STDERR_FILENO)))) {
    progress = std::make_unique<ProgressLine>(err, total);
  }
  std::vector<report::TrainingRow> rows;
  std::vector<const workload::Workload*> row_workloads;
  for (std::size_t i = 0; i < work.size(); ++i) {
    const TrainingWork& w = work[i];
    for (const auto& a : w.spec.algorithms) {
      for (workload::Overlap ov : w.spec.overlaps) {
        workload::TrainingOptions to = options_for(w, a, ov);
        const std::string what =
            fmt::format("{} on {}: {}", workloads[i].name, w.platform, a.label);
        if (!opt.quiet) {
          err << fmt::format("collsim: [{}/{}] {} on {}: {} / {}{} / overlap {}\n", rows.size() + 1,
                             total, workloads[i].name, w.platform, a.label, w.backend->name,
                             w.endpoint ? " / " + w.endpoint->name : std::string(),
                             workload::to_string(ov));
        }
        if (progress) {
          progress->begin_run(what, core::Time{}, 0);
          to.progress = [&](core::Time t, std::uint64_t events) {
            progress->tick(what, t, events);
          };
        }
        report::TrainingRow row;
        row.workload = workloads[i].name;
        row.platform = w.platform;
        row.npus = w.topology->num_npus();
        row.backend = network::backend_label(*w.backend, w.backend_options);
        row.endpoint = scheduler::endpoint_label(w.endpoint, w.endpoint_params);
        row.algorithm = a.label;
        row.overlap = workload::to_string(ov);
        row.order = workload::to_string(w.spec.order);
        row.iterations = w.spec.iterations;
        row.result = workload::run_training(*w.topology, *w.backend, workloads[i], to);
        if (progress) progress->clear();
        if (on_row) on_row(row);
        rows.push_back(std::move(row));
        row_workloads.push_back(&workloads[i]);
      }
    }
  }
  if (!opt.trace.empty()) {
    report::write_file_atomically(opt.trace, report::render_training_trace(rows, row_workloads));
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
