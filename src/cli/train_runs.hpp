#pragma once
// Training runs for `collsim train` and scenario training jobs: one run per algorithm x overlap
// policy of a training spec on a platform and backend, with a progress line per run, and the
// report at the end (all or nothing with --output).
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "config/scenario.hpp"
#include "jobs/training_sweep.hpp"
#include "report/training_report.hpp"

namespace collsim::cli {

using jobs::TrainingWork;

/// Runs the sweep (jobs/training_sweep.hpp) with a progress line per run, then writes the report
/// (all or nothing with --output). Returns 0.
/// `on_row`, if set, sees each row as its run ends (`collsim astra` prints ASTRA-sim's lines).
int run_training_work(const std::vector<TrainingWork>& work, const OutputOptions& opt,
                      std::ostream& out, std::ostream& err,
                      const std::function<void(const jobs::TrainingRow&)>& on_row = {});

}  // namespace collsim::cli
