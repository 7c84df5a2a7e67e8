#pragma once
// `collsim llm --breakdown` (docs/llm.md "Where the compute goes"): each pipeline stage's compute
// over one iteration by kernel class (jobs/llm_cost.hpp llm_stage_breakdown), as a table, CSV
// (config, stage, class, kernels share, time_ms, share of the stage) or JSON.
#include <cstdint>
#include <string>
#include <vector>

#include "jobs/llm_cost.hpp"
#include "report/writers.hpp"

namespace collsim::report {

struct LlmBreakdownRow {
  std::string config;
  std::vector<jobs::StageKernelTime> stages;
  std::uint32_t critical_stage = 0;
  double iteration_ms = 0;
};

std::string render_llm_breakdown(const std::vector<LlmBreakdownRow>& rows, Format f);

}  // namespace collsim::report
