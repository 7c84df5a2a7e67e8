#include <ostream>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "config/scenario.hpp"
#include "report/writers.hpp"
#include "scheduler/collective_sweep.hpp"

namespace collsim::cli {

int run_scenario(const std::string& path, const OutputOptions& out_opt, std::ostream& out,
                 std::ostream& err) {
  report::parse_format(out_opt.format,
                       "--format");  // fail before simulating anything
  const config::Scenario s = config::load_scenario(path);
  std::vector<report::ResultRow> rows;
  for (const config::Platform& p : s.platforms) {
    for (const config::BackendChoice& b : s.backends) {
      for (const config::JobSpec& j : s.jobs) {
        scheduler::CollectiveJob job;
        job.collective = j.collective;
        job.sizes = j.sizes;
        job.algorithms = j.algorithms;
        job.chunks = j.chunks;
        job.max_time = j.max_time;
        job.backend_options = b.options;
        if (j.all_algorithms) {
          std::vector<std::string> skipped;
          job.algorithms =
              scheduler::expand_all_algorithms(p.topology, j.collective, j.chunks, &skipped);
          if (&b == &s.backends.front()) {
            for (const std::string& why : skipped) {
              err << "note: " << p.name << ": skipped " << why << '\n';
            }
          }
        }
        auto part = scheduler::run_collective_job(p.name, p.topology, *b.info, job);
        rows.insert(rows.end(), std::make_move_iterator(part.begin()),
                    std::make_move_iterator(part.end()));
      }
    }
  }
  emit(rows, out_opt, out);
  return 0;
}

}  // namespace collsim::cli
