#include "collective/communicator.hpp"

#include <fmt/format.h>

#include <charconv>

#include "core/error.hpp"
#include "core/suggest.hpp"

namespace collsim::collective {
namespace {

std::uint32_t parse_id(std::string_view text, std::uint32_t limit, std::string_view field,
                       std::string_view whole) {
  std::uint32_t v = 0;
  const char* end = text.data() + text.size();
  if (text.empty() || std::from_chars(text.data(), end, v).ptr != end) {
    throw core::InputError(
        fmt::format("{}: \"{}\" in \"{}\" is not an NPU id", field, text, whole));
  }
  if (v >= limit) {
    throw core::InputError(
        fmt::format("{}: NPU {} in \"{}\" is out of range (the topology has {} "
                    "NPUs, ids 0..{})",
                    field, v, whole, limit, limit - 1));
  }
  return v;
}

Communicator parse_list(std::string_view list, const topology::Topology& topo,
                        std::string_view field, std::string_view whole) {
  Communicator c;
  c.label = "npus:" + std::string(list);
  c.explicit_order = true;
  std::vector<std::uint8_t> seen(topo.num_npus(), 0);
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? "" : list.substr(comma + 1);
    const std::size_t dash = item.find('-');
    const std::uint32_t lo = parse_id(item.substr(0, dash), topo.num_npus(), field, whole);
    const std::uint32_t hi = dash == std::string_view::npos
                                 ? lo
                                 : parse_id(item.substr(dash + 1), topo.num_npus(), field, whole);
    if (hi < lo) {
      throw core::InputError(
          fmt::format("{}: range \"{}\" in \"{}\" goes down; write LO-HI", field, item, whole));
    }
    for (std::uint32_t n = lo; n <= hi; ++n) {
      if (seen[n]) {
        throw core::InputError(
            fmt::format("{}: NPU {} appears twice in \"{}\"; a rank is one NPU", field, n, whole));
      }
      seen[n] = 1;
      c.npus.push_back(n);
    }
  }
  if (c.size() < 2) {
    throw core::InputError(fmt::format("{}: \"{}\" names {} NPU(s); a collective needs at least 2",
                                       field, whole, c.size()));
  }
  return c;
}

}  // namespace

bool Communicator::is_identity(std::uint32_t num_npus) const {
  if (npus.size() != num_npus) return false;
  for (std::uint32_t r = 0; r < num_npus; ++r) {
    if (npus[r] != r) return false;
  }
  return true;
}

Communicator whole(const topology::Topology& topo) {
  Communicator c;
  c.label = "all";
  c.npus.resize(topo.num_npus());
  for (std::uint32_t r = 0; r < topo.num_npus(); ++r) c.npus[r] = r;
  return c;
}

std::vector<Communicator> parse_groups(std::string_view text, const topology::Topology& topo,
                                       std::string_view field) {
  constexpr std::string_view kForms = "all, dim:K (K = 0 innermost), npus:0,4,8 or npus:0-3;4-7";
  if (text == "all") return {whole(topo)};
  if (text.starts_with("dim:")) {
    const std::string_view k = text.substr(4);
    std::uint32_t d = 0;
    const auto& dims = topo.dimensions();
    if (k.empty() || std::from_chars(k.data(), k.data() + k.size(), d).ptr != k.data() + k.size()) {
      throw core::InputError(
          fmt::format("{}: \"{}\": K must be a dimension index; forms: {}", field, text, kForms));
    }
    if (dims.empty()) {
      throw core::InputError(
          fmt::format("{}: \"{}\": {} has no dimensions; name the NPUs with npus:LIST", field, text,
                      topo.name()));
    }
    if (d >= dims.size()) {
      throw core::InputError(fmt::format("{}: \"{}\": {} has dimensions dim:0..dim:{}", field, text,
                                         topo.name(), dims.size() - 1));
    }
    std::vector<Communicator> out;
    for (std::size_t g = 0; g < dims[d].groups.size(); ++g) {
      out.push_back(Communicator{dims[d].groups[g], fmt::format("dim{}[{}]", d, g)});
    }
    return out;
  }
  if (text.starts_with("npus:")) {
    std::vector<Communicator> out;
    std::string_view rest = text.substr(5);
    std::vector<std::uint8_t> used(topo.num_npus(), 0);
    while (true) {
      const std::size_t semi = rest.find(';');
      Communicator c = parse_list(rest.substr(0, semi), topo, field, text);
      for (topology::NodeId n : c.npus) {
        if (used[n]) {
          throw core::InputError(fmt::format(
              "{}: NPU {} is in two communicators of \"{}\"; concurrent groups must be disjoint",
              field, n, text));
        }
        used[n] = 1;
      }
      out.push_back(std::move(c));
      if (semi == std::string_view::npos) break;
      rest = rest.substr(semi + 1);
    }
    return out;
  }
  const std::string_view kind = text.substr(0, text.find(':'));
  throw core::InputError(fmt::format("{}: unknown group \"{}\"{}; forms: {}", field, text,
                                     core::did_you_mean(kind, {"all", "dim", "npus"}), kForms));
}

std::vector<Rank> ring_order(const topology::Topology& topo, const Communicator& comm) {
  std::vector<Rank> order(comm.size());
  if (comm.size() == topo.num_npus() && !comm.explicit_order) {
    std::vector<Rank> rank_of(topo.num_npus());
    for (Rank r = 0; r < comm.size(); ++r) rank_of[comm.npus[r]] = r;
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = rank_of[topo.ring_order()[k]];
  } else {
    for (Rank r = 0; r < comm.size(); ++r) order[r] = r;
  }
  return order;
}

}  // namespace collsim::collective
