#include <ostream>

#include "cli/all_algorithms.hpp"
#include "cli/backend_flags.hpp"
#include "cli/commands.hpp"
#include "cli/endpoint_flags.hpp"
#include "cli/output.hpp"
#include "cli/run_jobs.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "network/backend.hpp"
#include "report/writers.hpp"
#include "scheduler/limits.hpp"
#include "jobs/collective_sweep.hpp"
#include "topology/builders.hpp"

namespace collsim::cli {

int run_collective(const CollectiveOptions& opt, const OutputOptions& out_opt, std::ostream& out,
                   std::ostream& err) {
  report::parse_format(out_opt.format, "--format");
  const topology::Topology topo = compact_topology(opt.platform);
  const auto backends = parse_backends(opt.backend);
  const std::vector<network::BackendOptions> options =
      backend_options(backends, opt.backend_params);

  jobs::CollectiveJob job;
  job.collective = collective::parse_collective(opt.collective, "--collective");
  job.sizes = core::parse_size_list(opt.sizes, "--sizes");
  if (opt.chunks == 0) throw core::InputError("--chunks: must be >= 1, got 0");
  job.chunks = opt.chunks;
  job.busiest_links = opt.busiest_links;
  if (!opt.max_time.empty()) {
    job.max_time = core::parse_time(opt.max_time, "--max-time", core::Zero::Reject);
  }
  job.group = opt.group;
  collective::parse_groups(opt.group, topo, "--group");  // before anything runs
  if (opt.algorithms == "all") {
    std::vector<std::string> skipped, warnings;
    job.algorithms = jobs::expand_all_algorithms(topo, job.collective, job.chunks, &skipped,
                                                      job.group, &warnings);
    // What `all` leaves out is a row of the table, with why (jobs/collective_sweep.hpp).
    for (const std::string& w : warnings) err << "warning: " << w << '\n';
    refuse_if_none_left(job.algorithms, skipped, "--algorithms",
                        collective::to_string(job.collective), topo.name());
    job.skipped = skipped_rows(skipped);
  } else {
    for (const std::string& name : split_commas(opt.algorithms)) {
      job.algorithms.push_back(collective::parse_algorithm(name, "--algorithms"));
    }
  }
  const auto endpoints = parse_endpoints(opt.endpoint);
  job.endpoint_params = parse_endpoint_params(opt.endpoint_params);
  // The flow backend's solver is bounded as it runs (network::BackendOptions::max_solver_work).
  const scheduler::RunLimits limits = parse_limits(out_opt.max_messages, out_opt.max_memory);
  std::vector<Work> work;
  for (const endpoint::EndpointInfo* e : endpoints) {
    job.endpoint = e;
    for (std::size_t i = 0; i < backends.size(); ++i) {
      job.backend_options = options[i];
      job.backend_options.max_solver_work = scheduler::solver_budget(limits);
      work.push_back(Work{topo.name(), &topo, backends[i], job});
    }
  }
  return run_work(work, out_opt, out, err);
}

}  // namespace collsim::cli
