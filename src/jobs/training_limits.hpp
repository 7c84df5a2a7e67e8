#pragma once
// Bounded resources for training runs (scheduler/limits.hpp): before a run starts, the work of
// every collective of every iteration from its algorithm's closed-form size, refused past
// --max-messages / --max-memory as `collsim collective` refuses a collective.
#include <string>
#include <vector>

#include "collective/communicator.hpp"
#include "network/backend.hpp"
#include "scheduler/limits.hpp"
#include "topology/topology.hpp"
#include "jobs/training.hpp"
#include "workload/workload.hpp"

namespace collsim::jobs {

using workload::scope_groups;

/// The estimate of a training run: messages of every collective of every iteration (closed
/// forms; staged collectives count one group per dimension unless `every_group`), stored ops of
/// the distinct programs the run keeps. Collectives whose algorithm cannot run are left to the
/// run's own checks (which name the layer). `moved` receives the bytes every iteration moves in
/// all, for the backend's work.
scheduler::WorkEstimate estimate_training(const topology::Topology& topo, const workload::Workload& w,
                                          const TrainingOptions& o, std::uint64_t* moved = nullptr,
                                          bool every_group = false);

/// Throws core::ResourceError if the run's estimate, or its backend's work (BackendInfo::work),
/// exceeds `limits`, naming `what`.
void check_training(const topology::Topology& topo, const network::BackendInfo& backend,
                    const workload::Workload& w, const TrainingOptions& o, const scheduler::RunLimits& limits,
                    const std::string& what);

}  // namespace collsim::jobs
