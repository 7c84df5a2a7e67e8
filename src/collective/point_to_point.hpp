#pragma once
// A point-to-point message as a Program, so that the one executor runs it like any collective
// (observers, link metrics and traces see it): pipeline parallelism's activations, a Chakra
// trace's SEND / RECV nodes.
//
// It is the one-way half of a two-rank all-gather (collective.hpp conventions): rank 0 runs on
// `src` and holds piece 0 (`bytes` bytes), rank 1 runs on `dst` and receives it; piece 1 is never
// sent, so the verifier would (rightly) not call it an all-gather. It finishes when the message
// has arrived.
#include "collective/ir/program.hpp"
#include "core/units.hpp"

namespace collsim::collective {

/// Throws core::InputError if src == dst.
Program point_to_point(std::uint32_t src, std::uint32_t dst, core::Bytes bytes);

}  // namespace collsim::collective
