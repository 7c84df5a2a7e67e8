#pragma once
// Reports of training runs (jobs/training.hpp): a table for people, CSV and JSON for
// programs (units in column names). CSV has one line per run and layer plus a "total" line per
// run, so that per-layer breakdowns and iteration totals plot from one file.
#include <string>
#include <vector>

#include "report/writers.hpp"
#include "jobs/training_sweep.hpp"

namespace collsim::report {

/// `layers`: the table's per-layer lines (CSV and JSON always have them).
std::string render_training(const std::vector<jobs::TrainingRow>& rows, Format f, bool layers = true);
/// Columns (the endpoint last):
/// workload,platform,npus,backend,algorithm,overlap,order,iterations,layer,
/// compute_ns,comm_ns,exposed_ns,iteration_ns,forward_compute_ns,exposed_weight_gradient_ns, every
/// time the mean per iteration (the last three on the "total" line only: iteration_ns = total /
/// iterations; the forward passes' share of compute; the exposed time spent waiting for
/// weight-gradient, i.e. data-parallel, collectives). JSON has the sums over all iterations.
std::string render_training_csv(const std::vector<jobs::TrainingRow>& rows);
std::string render_training_table(const std::vector<jobs::TrainingRow>& rows, bool layers = true);
std::string render_training_json(const std::vector<jobs::TrainingRow>& rows);

}  // namespace collsim::report
