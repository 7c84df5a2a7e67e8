#include <fmt/format.h>

#include <ostream>

#include "cli/all_algorithms.hpp"
#include "cli/commands.hpp"
#include "cli/llm_runs.hpp"
#include "cli/run_jobs.hpp"
#include "cli/train_runs.hpp"
#include "config/scenario.hpp"
#include "core/error.hpp"
#include "report/writers.hpp"
#include "jobs/collective_sweep.hpp"
#include "cli/backend_flags.hpp"
#include "scheduler/limits.hpp"

namespace collsim::cli {

int run_scenario(const std::string& path, const OutputOptions& out_opt, std::ostream& out,
                 std::ostream& err) {
  report::parse_format(out_opt.format, "--format");  // fail before simulating anything
  const config::Scenario s = config::load_scenario(path);
  if (s.jobs.front().llm) {  // all or none (scenario.cpp)
    LlmOptions lo;
    std::vector<LlmScenarioRun> runs;
    for (const config::Platform& p : s.platforms) {
      for (const config::BackendChoice& b : s.backends) {
        for (const config::JobSpec& j : s.jobs) {
          runs.push_back(LlmScenarioRun{fmt::format("{} {} {}", p.name, b.info->name, j.name),
                                        *j.llm, &p.topology, p.name, b.info, b.options});
        }
      }
    }
    return run_llm_runs(runs, lo, out_opt, out, err);
  }
  if (s.jobs.front().training) {  // all or none (scenario.cpp)
    std::vector<TrainingWork> work;
    for (const config::Platform& p : s.platforms) {
      for (const endpoint::EndpointInfo* e : p.endpoints) {
        for (const config::BackendChoice& b : s.backends) {
          for (const config::JobSpec& j : s.jobs) {
            work.push_back(TrainingWork{p.name, &p.topology, b.info, b.options, e,
                                        p.endpoint_params, *j.training, j.max_time,
                                        j.name + ".training.workload"});
          }
        }
      }
    }
    return run_training_work(work, out_opt, out, err);
  }
  // The flow backend's solver is bounded as it runs (network::BackendOptions::max_solver_work).
  const std::uint64_t solver_work =
      scheduler::solver_budget(parse_limits(out_opt.max_messages, out_opt.max_memory));
  if (!out_opt.export_chakra.empty()) {
    throw core::InputError(fmt::format(
        "--export-chakra: {} has collective jobs, which are not workload graphs; export a "
        "scenario of training or llm jobs",
        path));
  }
  std::vector<Work> work;
  for (const config::Platform& p : s.platforms) {
    for (const endpoint::EndpointInfo* e : p.endpoints) {
      for (const config::BackendChoice& b : s.backends) {
        for (const config::JobSpec& j : s.jobs) {
          // What every kind of job takes from the platform, backend and endpoint it runs on.
          const auto on_run = [&](auto& job) {
            job.max_time = j.max_time;
            job.backend_options = b.options;
            job.backend_options.max_solver_work = solver_work;
            job.endpoint = e;
            job.endpoint_params = p.endpoint_params;
          };
          if (!j.concurrent.empty()) {
            jobs::ConcurrentJob job;
            job.name = j.name;
            job.members = j.concurrent;
            on_run(job);
            work.push_back(Work{p.name, &p.topology, b.info, std::move(job)});
            continue;
          }
          jobs::CollectiveJob job;
          job.collective = j.collective;
          job.sizes = j.sizes;
          job.algorithms = j.algorithms;
          job.chunks = j.chunks;
          job.group = j.group;
          on_run(job);
          if (j.all_algorithms) {
            std::vector<std::string> skipped, warnings;
            job.algorithms = jobs::expand_all_algorithms(p.topology, j.collective, j.chunks,
                                                              &skipped, j.group, &warnings);
            if (&b == &s.backends.front() && e == p.endpoints.front()) {
              for (const std::string& w : warnings)
                err << "warning: " << p.name << ": " << w << '\n';
            }
            refuse_if_none_left(job.algorithms, skipped, j.name + ".algorithms",
                                collective::to_string(j.collective), p.name);
            job.skipped = skipped_rows(skipped);
          }
          work.push_back(Work{p.name, &p.topology, b.info, std::move(job)});
        }
      }
    }
  }
  return run_work(work, out_opt, out, err);
}

}  // namespace collsim::cli
