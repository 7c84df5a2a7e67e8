#pragma once
// A collective job: one collective, a list of sizes and a list of algorithms on one platform,
// each (algorithm, size) pair run in its own Simulation on a fresh backend.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collective/algorithm.hpp"
#include "network/backend.hpp"
#include "report/result.hpp"
#include "topology/topology.hpp"

namespace collsim::scheduler {

struct CollectiveJob {
  collective::Collective collective = collective::Collective::AllReduce;
  std::vector<core::Bytes> sizes;
  std::vector<collective::AlgorithmChoice> algorithms;  ///< the first is the speedup baseline
  std::uint32_t chunks = 1;
  std::optional<core::Time> max_time;  ///< per run; exceeding it is a core::SimulationError
  network::BackendOptions backend_options;
  std::uint32_t busiest_links = 3;  ///< how many of the busiest links each row lists
};

/// Algorithms from `names` ("all" expands to every registered algorithm that supports the
/// collective and can be built on the topology; skipped ones are reported in `skipped`).
std::vector<collective::AlgorithmChoice> expand_all_algorithms(const topology::Topology& topo,
                                                               collective::Collective c,
                                                               std::uint32_t chunks,
                                                               std::vector<std::string>* skipped);

/// Runs every (size, algorithm) pair; rows are ordered by size, then algorithm as listed.
/// Throws core::InputError when an algorithm cannot run on the topology (saying why).
std::vector<report::ResultRow> run_collective_job(const std::string& platform,
                                                  const topology::Topology& topo,
                                                  const network::BackendInfo& backend,
                                                  const CollectiveJob& job);

}  // namespace collsim::scheduler
