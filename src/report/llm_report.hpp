#pragma once
// `collsim llm` reports (docs/llm.md "Outputs"): a table for people, CSV (one row per run, the
// iteration time in milliseconds in column iteration_time_ms) and JSON (one envelope with units;
// the cluster used is named in the JSON, not in the CSV), and a Chrome trace with a lane per
// pipeline stage.
#include <string>
#include <vector>

#include "jobs/llm_iteration.hpp"
#include "report/writers.hpp"
#include "workload/llm_config.hpp"

namespace collsim::report {

struct LlmRow {
  std::string config;  ///< the config file (or job name)
  workload::LlmConfig setup;
  jobs::LlmResult result;
};

std::string render_llm(const std::vector<LlmRow>& rows, Format f);
/// Chrome trace-event JSON of one run: a lane (tid) per pipeline stage, one slice per pass.
std::string render_llm_trace(const LlmRow& row);

}  // namespace collsim::report
