#pragma once
// The collectives collsim simulates and the conventions that tie a Program's pieces to them.
//
// Piece conventions (what the verifier checks; N ranks, C chunks):
//   all-reduce      space = S bytes, pieces P = C*N (any split is fine for the verifier);
//                   every rank starts with every piece holding its own contribution and ends
//                   with every piece reduced over all N ranks.
//   reduce-scatter  space = S, P = C*N; piece p belongs to rank p % N. Rank r must end with its
//                   own pieces reduced over all ranks (S/N bytes per rank).
//   all-gather      space = S, P = C*N; rank r starts with only its own pieces (p % N == r), each
//                   ending up on every rank unchanged.
//   all-to-all      space = N*S (S = one rank's send buffer), P = C*N*N; piece p carries data from
//                   rank (p / N) % N to rank p % N. Every rank ends with the pieces addressed to
//                   it.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/units.hpp"

namespace collsim::collective {

using Rank = std::uint32_t;

enum class Collective { AllReduce, ReduceScatter, AllGather, AllToAll };

const char* to_string(Collective c);
/// Parses "all-reduce", "reduce-scatter", "all-gather", "all-to-all". Throws core::InputError
/// naming `field` and listing the valid names.
Collective parse_collective(std::string_view text, std::string_view field);
const std::vector<Collective>& all_collectives();

/// NCCL's bus-bandwidth factor: all-reduce 2(n-1)/n; reduce-scatter, all-gather and all-to-all
/// (n-1)/n. busbw = algbw * factor.
double busbw_factor(Collective c, std::uint32_t n);

/// Bytes of the piece space for a collective of size S on n ranks (see the conventions above).
std::uint64_t space_bytes(Collective c, std::uint32_t n, core::Bytes size);
/// Pieces per chunk: n for all-reduce, reduce-scatter, all-gather; n*n for all-to-all.
std::uint32_t pieces_per_chunk(Collective c, std::uint32_t n);

}  // namespace collsim::collective
