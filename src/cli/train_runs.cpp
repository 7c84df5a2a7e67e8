#include "cli/train_runs.hpp"

#include <fmt/format.h>

#include <ostream>

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
  jobs::TrainingSweepOptions so;
  so.timeline = !opt.trace.empty();
  so.on_row = on_row;
  if (!opt.quiet) {
    so.on_start = [&err](std::size_t k, std::size_t n, const std::string& what) {
      err << fmt::format("collsim: [{}/{}] {}\n", k, n, what);
    };
  }
  const jobs::TrainingSweep sweep = jobs::run_training_sweep(work, so);
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
