#pragma once
// Bounded resources for Chakra replays (scheduler/limits.hpp): before a trace is replayed, the
// messages its collectives and sends will take, refused past --max-messages / --max-memory as
// `collsim collective` refuses a collective.
#include <cstdint>
#include <vector>

#include "jobs/trace_replay.hpp"
#include "scheduler/limits.hpp"
#include "topology/topology.hpp"
#include "workload/formats/chakra.hpp"

namespace collsim::jobs {

/// The estimate of a replay: every rank's collective nodes count their share (1 / group size)
/// of their collective's closed-form messages (AlgorithmInfo::size; hierarchical ones on every
/// group, as a replay cannot use the one-group symmetry), with the group of their pg_name or
/// the whole platform (an upper bound for involved_dim); sends count one each. Stored ops: the
/// distinct programs'. `moved` receives the bytes sent, about (each member sends its buffer once
/// per phase), for the backend's work. Nodes the replay would refuse (an unknown comm_type or
/// group) are left to it: it names them.
scheduler::WorkEstimate estimate_replay(const topology::Topology& topo,
                                        const std::vector<workload::chakra::RankTrace>& traces,
                                        const ReplayOptions& o, std::uint64_t* moved = nullptr);

}  // namespace collsim::jobs
