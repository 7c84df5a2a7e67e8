#pragma once
// Communicators: the NPUs that take part in a collective, in rank order (MPI's and NCCL's
// communicator). A collective runs on a communicator, not on the whole topology, so an all-reduce
// over the X rings of a torus, over one dimension of a hierarchical platform (Themis Sec. 2.3) or
// over any list of NPUs is one build call per group.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "collective/collective.hpp"
#include "topology/topology.hpp"

namespace collsim::collective {

struct Communicator {
  std::vector<topology::NodeId> npus;  ///< rank r runs on npus[r]; distinct NPU ids
  std::string label;                   ///< for reports: "all", "dim0[3]", "npus:0,4,8,12"
  /// The ranks' order was given (npus:LIST): ring algorithms follow it even when it names every
  /// NPU, instead of the topology's Hamiltonian ring order (ring_order below).
  bool explicit_order = false;

  std::uint32_t size() const { return static_cast<std::uint32_t>(npus.size()); }
  /// True when rank r is NPU r for every NPU of a topology of `num_npus`.
  bool is_identity(std::uint32_t num_npus) const;
  /// The default communicator (`all`): the identity with no order given, so the topology picks
  /// the ring order. An npus:LIST naming 0..N-1 in order is the identity but not the default.
  bool is_default(std::uint32_t num_npus) const {
    return !explicit_order && is_identity(num_npus);
  }
};

/// Every NPU of the topology, rank r = NPU r.
Communicator whole(const topology::Topology& topo);

/// Communicators from text (CLI `--group`, scenario `group:`):
///   all          one communicator over every NPU (the default);
///   dim:K        one per group of dimension K (0 = innermost, as topology names "dim0"): the
///                X rings of a torus for dim:0; the groups run concurrently;
///   npus:LIST    explicit NPUs in rank order, LIST = ids and ranges "0,4,8,12" or "0-7";
///                several communicators separated by ';' ("npus:0-3;4-7").
/// Throws core::InputError naming `field`: unknown form, dimension out of range, an NPU id out of
/// range, an NPU twice in one communicator, fewer than 2 NPUs.
std::vector<Communicator> parse_groups(std::string_view text, const topology::Topology& topo,
                                       std::string_view field);

/// The order in which ring algorithms visit the ranks: the topology's Hamiltonian ring order
/// (Topology::ring_order) when the communicator is every NPU and its order was not given
/// (`all`), otherwise rank order: an npus:LIST's order as written, also when it names every NPU
/// (users align rings with rails that way), and a dimension group along its dimension, so a ring
/// dimension's group is one hop per step.
std::vector<Rank> ring_order(const topology::Topology& topo, const Communicator& comm);

}  // namespace collsim::collective
