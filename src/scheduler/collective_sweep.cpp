#include "scheduler/collective_sweep.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "scheduler/executor.hpp"

namespace collsim::scheduler {

std::vector<collective::AlgorithmChoice> expand_all_algorithms(const topology::Topology& topo,
                                                               collective::Collective c,
                                                               std::uint32_t chunks,
                                                               std::vector<std::string>* skipped) {
  std::vector<collective::AlgorithmChoice> out;
  for (const collective::AlgorithmInfo& info : collective::algorithms()) {
    auto choice = collective::make_choice(info, {}, info.name, "algorithms");
    if (!info.supports(c)) continue;
    try {
      // Building on a tiny size is cheap and runs the algorithm's own applicability checks.
      collective::build_program(choice, topo, c, core::Bytes{1}, chunks);
      out.push_back(std::move(choice));
    } catch (const core::InputError& e) {
      if (skipped) skipped->push_back(info.name + ": " + e.what());
    }
  }
  return out;
}

std::vector<report::ResultRow> run_collective_job(const std::string& platform,
                                                  const topology::Topology& topo,
                                                  const network::BackendInfo& backend,
                                                  const CollectiveJob& job) {
  std::vector<report::ResultRow> rows;
  for (core::Bytes size : job.sizes) {
    const std::size_t first = rows.size();
    for (const collective::AlgorithmChoice& choice : job.algorithms) {
      const collective::Program program =
          collective::build_program(choice, topo, job.collective, size, job.chunks);
      core::Simulation sim;
      auto net = network::make_backend(backend, sim, topo, job.backend_options, "backend");
      const ExecutionResult res = execute(program, *net, sim, ExecuteOptions{job.max_time});

      report::ResultRow row;
      row.platform = platform;
      row.topology = topo.name();
      row.npus = topo.num_npus();
      row.backend = network::backend_label(backend, job.backend_options);
      row.collective = job.collective;
      row.algorithm = choice.label;
      row.chunks = job.chunks;
      row.size = size;
      row.time = res.time;
      row.messages = res.messages;
      row.bytes_sent = res.bytes;
      report::derive_bandwidths(row);
      report::fill_link_metrics(row, topo, net->link_stats(), job.busiest_links);
      row.backend_metrics = net->summary();
      const core::Time base = rows.size() > first ? rows[first].time : res.time;
      row.speedup =
          res.time.ps > 0 ? static_cast<double>(base.ps) / static_cast<double>(res.time.ps) : 1.0;
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace collsim::scheduler
