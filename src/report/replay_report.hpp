#pragma once
// Reports of a Chakra trace replay (jobs/trace_replay.hpp): one row per rank with
// its finish time, GPU compute time and exposed communication (finish - compute, ASTRA-sim's
// definition), as a table, CSV or JSON; and its timeline in the Chrome trace-event format
// (ui.perfetto.dev): one process per rank, with tracks "compute", "cpu", "communication"
// (collectives and sends, a track per overlapping one), "recv" and "memory". Times in the table
// are microseconds; CSV and JSON carry units in their column names.
#include <string>

#include "report/writers.hpp"
#include "jobs/trace_replay.hpp"

namespace collsim::report {

struct ReplayReport {
  std::string trace;     ///< the trace's prefix
  std::string platform;  ///< the network file's stem
  std::string backend;
  const std::vector<workload::chakra::RankTrace>* ranks = nullptr;  ///< names the nodes
  jobs::ReplayResult result;
};

std::string render_replay(const ReplayReport& r, Format f);
std::string render_replay_trace(const ReplayReport& r);

}  // namespace collsim::report
