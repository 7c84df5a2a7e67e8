#pragma once
// One flat Program equivalent to a hierarchical collective (hierarchical.hpp), so that the
// symbolic verifier can check the composition of the stages, not only each stage alone: every
// chunk's stages, in its planned dimension order, on every group, with each stage's pieces
// mapped onto the part of the chunk the NPU holds at that point (a reduce-scatter on a dimension
// of P NPUs leaves each NPU 1/P of its part; the matching all-gather restores it).
//
// Pieces: chunk c owns flat pieces [c N, (c + 1) N). Where the walk leaves chunk c's parts with
// an order other than the NPU order (Themis gives chunks different dimension orders), the parts
// are relabelled per chunk so that the collective.hpp conventions hold (reduce-scatter: NPU r
// ends with piece c N + r; all-gather: starts with it). All-to-all: chunk c owns pieces
// [c N^2, (c + 1) N^2), piece (c N + src) N + dst; each stage forwards every item to the group
// member sharing its destination's coordinate in that dimension. Ops are emitted one piece each.
// The result is for verification at small sizes, not for simulation.
#include "collective/ir/program.hpp"
#include "scheduler/hierarchical.hpp"
#include "topology/topology.hpp"

namespace collsim::scheduler {

/// Throws core::InputError as prepare() does, and std::logic_error if the plan leaves a group's
/// NPUs on different parts (a bug). A stage whose algorithm runs several streams per rank is
/// composed with its streams one after the other on the rank (they share no pieces).
collective::Program compose_program(const topology::Topology& topo, HierarchicalSpec spec);

}  // namespace collsim::scheduler
