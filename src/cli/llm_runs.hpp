#pragma once
// LLM iteration runs for `collsim llm` and scenario llm jobs: simulate each (jobs/llm_iteration),
// state the cluster and any memory overflow on standard error, then write the report (all or
// nothing with --output).
#include <iosfwd>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "network/backend.hpp"
#include "topology/topology.hpp"
#include "workload/llm_config.hpp"

namespace collsim::cli {

struct LlmScenarioRun {
  std::string name;  ///< the report's `config` column
  workload::LlmConfig config;
  /// A scenario's platform and backend; null topology: the config's own cluster.
  const topology::Topology* topology = nullptr;
  std::string platform;
  const network::BackendInfo* backend = nullptr;
  network::BackendOptions backend_options;
};

/// Returns 0; throws core::InputError for --strict-memory overflows and bad input.
int run_llm_runs(const std::vector<LlmScenarioRun>& runs, const LlmOptions& opt,
                 const OutputOptions& out_opt, std::ostream& out, std::ostream& err);

}  // namespace collsim::cli
