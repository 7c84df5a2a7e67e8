#pragma once
// Group symmetry: simulate one group per dimension when every group would do the same.
//
// A hierarchical collective runs each chunk-stage on every group of a dimension at once (64 groups
// of 16 NPUs on a 16x8x8 platform), and every group runs the same program at the same time. When
// no link is used by two groups (of any dimensions), every group's routes have the same shape
// (hop by hop the same bandwidth and latency, and the same links shared between the same pairs)
// as the first group's, the backend lets messages interact only through links and the endpoint
// not at all, every group of a dimension finishes its stage at the same instant as the first.
// Simulating only the first group of each dimension then gives the same times with 1/groups of
// the messages (Themis's 1024-NPU platforms: ~100x fewer); message and byte counts are scaled
// by the number of groups and link statistics copied from the first group's links to the
// others, so reports read as if every group ran. Checked, not assumed: a topology that fails
// the check (a torus whose ring ties alternate by coordinate, local switches with parallel
// paths), a backend or endpoint with shared per-NPU resources (packet routers, NIC caps, ACE),
// a message trace, or flat programs in the same run make the run simulate every group.
#include <cstdint>
#include <string>
#include <vector>

#include "endpoint/endpoint.hpp"
#include "network/backend.hpp"
#include "scheduler/executor.hpp"
#include "topology/topology.hpp"

namespace collsim::scheduler {

struct GroupSymmetry {
  /// Empty if the topology's groups are interchangeable; else why not (for notes and tests).
  std::string broken;
  /// Per link of the topology: the link playing its part in its dimension's first group (itself
  /// for the first group's links and for links no group uses).
  std::vector<topology::LinkId> representative;
  bool holds() const { return broken.empty(); }
};

/// Route hops the check below compares at most (about a second): past it the symmetry is
/// reported broken ("not checked") and the run simulates every group. A 1024-NPU ring
/// dimension alone has 10^6 routes of ~256 hops per group.
inline constexpr std::uint64_t kSymmetryCheckBudget = 200'000'000;

/// Check every dimension's groups against its first, route by route (O(sum over dimensions of
/// NPUs x group size) routes, at most kSymmetryCheckBudget hops). Never throws for a valid
/// topology.
GroupSymmetry group_symmetry(const topology::Topology& topo);

/// Before a run: why it will simulate every group on this backend (with `options`), endpoint (with
/// `params`) and
/// topology ("" if one group per dimension may stand for all), from the registries' declarations
/// (BackendInfo::links_only, EndpointInfo::messages_independent) and group_symmetry(topo). The
/// work estimates use it; run_symmetry decides the run itself, and agrees.
std::string planned_blocker(const topology::Topology& topo, const network::BackendInfo& backend,
                            const network::BackendOptions& options,
                            const endpoint::EndpointInfo& endpoint,
                            const endpoint::EndpointParams& params);

/// Why a run on this backend and endpoint must simulate every group ("" if it need not).
std::string one_group_blocker(const network::Backend& backend, const endpoint::Endpoint& endpoint);

/// The symmetry a run on `executor` (its endpoint and observer) and `backend` may use: broken,
/// with the reason, if one_group_blocker objects or an observer watches messages, else
/// group_symmetry(topo). The caller also makes sure no flat program shares the run.
GroupSymmetry run_symmetry(const topology::Topology& topo, const network::Backend& backend,
                           const Executor& executor);

/// Link statistics as if every group ran: each used link gets its representative's figures.
std::vector<network::LinkStats> expand_link_stats(const std::vector<network::LinkStats>& stats,
                                                  const GroupSymmetry& symmetry);

}  // namespace collsim::scheduler
