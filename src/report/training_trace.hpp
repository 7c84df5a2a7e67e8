#pragma once
// The timeline of training runs in the Chrome trace-event format (ui.perfetto.dev,
// chrome://tracing; docs/traces.md). One process per run; its tracks:
//   "compute"                a slice per compute step ("conv1 forward", "conv1 update");
//   "waiting"                when the compute timeline waited for a collective, and for which;
//   "collectives k"          a slice per collective from its start to its end ("conv1
//                            weight-gradient all-reduce"), on the first of these tracks free at
//                            its start (hierarchical collectives overlap).
// Every NPU runs the same timeline (SPMD, jobs/training.hpp), so one stands for all of them.
// Times are microseconds.
#include <string>
#include <vector>

#include "report/training_report.hpp"
#include "workload/workload.hpp"

namespace collsim::report {

/// Rows must have been run with TrainingOptions::timeline; `layers` names each row's layers.
std::string render_training_trace(const std::vector<jobs::TrainingRow>& rows,
                                  const std::vector<const workload::Workload*>& workloads);

}  // namespace collsim::report
