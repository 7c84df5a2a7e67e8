#pragma once
// Running the jobs of a command: progress on standard error, CSV rows written as runs finish
// (an interrupted sweep keeps every finished row, never half a row), an optional timeline trace,
// and the results in the chosen format at the end.
#include <iosfwd>
#include <string>
#include <variant>
#include <vector>

#include "cli/commands.hpp"
#include "network/backend.hpp"
#include "jobs/collective_sweep.hpp"
#include "topology/topology.hpp"

namespace collsim::cli {

struct Work {
  std::string platform;
  const topology::Topology* topology = nullptr;
  const network::BackendInfo* backend = nullptr;
  std::variant<jobs::CollectiveJob, jobs::ConcurrentJob> job;
};

/// Runs `work` in order and writes the rows. Returns the exit status (0). Throws what the runs
/// throw; with CSV output the rows finished before the error are already written (to standard
/// output, or to OUTPUT.partial with --output).
int run_work(const std::vector<Work>& work, const OutputOptions& opt, std::ostream& out,
             std::ostream& err);

}  // namespace collsim::cli
