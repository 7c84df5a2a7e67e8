#include "collective/collective.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/suggest.hpp"

namespace collsim::collective {

const char* to_string(Collective c) {
  switch (c) {
    case Collective::AllReduce:
      return "all-reduce";
    case Collective::ReduceScatter:
      return "reduce-scatter";
    case Collective::AllGather:
      return "all-gather";
    case Collective::AllToAll:
      return "all-to-all";
  }
  return "?";
}

const std::vector<Collective>& all_collectives() {
  static const std::vector<Collective> all = {Collective::AllReduce, Collective::ReduceScatter,
                                              Collective::AllGather, Collective::AllToAll};
  return all;
}

Collective parse_collective(std::string_view text, std::string_view field) {
  for (Collective c : all_collectives()) {
    if (text == to_string(c)) return c;
  }
  constexpr std::string_view kValid = "all-reduce, reduce-scatter, all-gather, all-to-all";
  throw core::InputError(fmt::format("{}: unknown collective \"{}\"{}; valid: {}", field, text,
                                     core::did_you_mean_in(text, kValid), kValid));
}

double busbw_factor(Collective c, std::uint32_t n) {
  const double nn = n;
  return c == Collective::AllReduce ? 2.0 * (nn - 1) / nn : (nn - 1) / nn;
}

std::uint64_t space_bytes(Collective c, std::uint32_t n, core::Bytes size) {
  return c == Collective::AllToAll ? size.count * n : size.count;
}

std::uint32_t pieces_per_chunk(Collective c, std::uint32_t n) {
  return c == Collective::AllToAll ? n * n : n;
}

}  // namespace collsim::collective
