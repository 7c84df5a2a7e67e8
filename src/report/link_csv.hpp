// `--links FILE.csv`: every link's use in every run, for the runs of `collective`, `run` and
// `train` (the per-link figures the tables summarise as per-dimension utilization and the
// busiest links).
#pragma once

#include <string>
#include <vector>

#include "jobs/result.hpp"
#include "jobs/training_sweep.hpp"

namespace collsim::report {

/// One line per (run, link or backend resource), runs in output order, links by id:
///   run,platform,backend,collective,algorithm,size_bytes,link,kind,src,dst,dim,bytes,busy_ns,
///   utilization
/// run is the 1-based row index; kind is "link" or a resource ("npu-injection"); utilization =
/// bytes / (bandwidth x the run's time). Rows without link figures (skipped, reference) add none.
std::string render_links_csv(const std::vector<jobs::ResultRow>& rows);

/// The same for training runs: run,workload,platform,backend,algorithm,overlap, then the link
/// columns; figures over the whole run (all iterations, compute time included).
std::string render_training_links_csv(const std::vector<jobs::TrainingRow>& rows);

}  // namespace collsim::report
