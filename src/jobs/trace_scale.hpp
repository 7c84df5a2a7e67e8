#pragma once
// Scaling a Chakra trace (issue 35): replay a trace of N ranks as K x N ranks, to see a job's
// iteration at a scale nobody collected a trace of. Clone c (0 <= c < K) of rank r is rank
// c x N + r and runs rank r's graph unchanged (the same compute, collective sizes, sends), so a
// clone is another data-parallel replica of the whole N-rank job (weak scaling: each replica its
// own batch). What is cloned and what is widened:
//   - send / recv nodes: comm_src and comm_dst r become c x N + r (a clone talks to itself:
//     pipeline stages stay inside their replica);
//   - collectives on the world (pg_name "" or "0", no involved_dim): every rank of every clone,
//     K x N ranks (the data-parallel gradient all-reduce of a pure data-parallel trace, widened);
//   - collectives with involved_dim: the dimensions of the scaled platform, whose outermost
//     dimension is K times the original's (`scale_platform`), so clone c holds the outermost
//     coordinates [c x D, (c + 1) x D): a collective that involves the outermost dimension spans
//     the clones (widened), one that does not stays inside its clone;
//   - named communicator groups (pg_name, --comm-group-configuration): cloned by default, group
//     G of members g becoming K groups {c x N + g}, clone 0's keeping the name and clone c's named
//     "G#c" (its ranks' nodes renamed to match); a group listed in `widen` (the trace's
//     data-parallel groups) becomes one group of K x |G| members, g + c x N for every clone, in
//     clone order then the group's order.
// Sizes stay as they are: a widened all-reduce reduces the same bytes over more ranks.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "topology/topology.hpp"
#include "workload/formats/chakra.hpp"

namespace collsim::jobs {

struct ScaledTrace {
  std::vector<workload::chakra::RankTrace> ranks;  ///< K x N (or 1: one file for every NPU)
  std::map<std::string, std::vector<topology::NodeId>> groups;
  std::uint32_t cloned_groups = 0, widened_groups = 0;
};

/// The trace `ranks` of a platform of `npus` NPUs (one file per NPU, or one for all) as `factor`
/// clones (see above). Throws core::InputError: factor 0, a `widen` name that is not in `groups`
/// (naming it and the groups), a cloned group name "G#c" that is already a group, more than 2^32
/// ranks.
ScaledTrace scale_trace(const std::vector<workload::chakra::RankTrace>& ranks, std::uint32_t npus,
                        const std::map<std::string, std::vector<topology::NodeId>>& groups,
                        std::uint32_t factor, const std::vector<std::string>& widen);

/// The platform the scaled trace runs on: `dims` (innermost first) with the outermost dimension
/// `factor` times as large (same kind, bandwidth, latency and links), built as
/// topology::hierarchical; the clones are its blocks of N NPUs. Throws core::InputError for
/// factor 0 or more than 2^32 NPUs.
topology::Topology scale_platform(std::vector<topology::DimSpec>& dims, std::uint32_t factor);

}  // namespace collsim::jobs
