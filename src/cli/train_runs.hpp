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
#include "report/training_report.hpp"

namespace collsim::cli {

struct TrainingWork {
  std::string platform;
  const topology::Topology* topology = nullptr;
  const network::BackendInfo* backend = nullptr;
  network::BackendOptions backend_options;
  const endpoint::EndpointInfo* endpoint = nullptr;  ///< nullptr: ideal
  endpoint::EndpointParams endpoint_params;
  config::TrainingSpec spec;
  std::optional<core::Time> max_time;
  std::string field = "workload";  ///< names the workload in errors: --workload, jobs[0]...
};

/// Loads each work's workload (core::InputError before anything runs if one cannot be loaded or
/// does not fit its platform), runs them in order and writes the report. Returns 0.
/// `on_row`, if set, sees each row as its run ends (`collsim astra` prints ASTRA-sim's lines).
int run_training_work(const std::vector<TrainingWork>& work, const OutputOptions& opt,
                      std::ostream& out, std::ostream& err,
                      const std::function<void(const report::TrainingRow&)>& on_row = {});

}  // namespace collsim::cli
