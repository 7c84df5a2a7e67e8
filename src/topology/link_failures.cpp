#include "topology/link_failures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "core/error.hpp"

namespace collsim::topology {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

NodeId parse_node(const Topology& t, std::string_view text, std::string_view item,
                  std::string_view field) {
  std::string_view digits = text;
  std::uint64_t base = 0, limit = t.num_nodes();
  const char* kind = "node";
  const char* kinds = "nodes";
  if (digits.starts_with("npu")) {
    digits.remove_prefix(3);
    limit = t.num_npus();
    kind = "NPU";
    kinds = "NPUs";
  } else if (digits.starts_with("sw")) {
    digits.remove_prefix(2);
    base = t.num_npus();
    limit = t.num_switches();
    kind = "switch";
    kinds = "switches";
  }
  std::uint64_t v = 0;
  const char* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, v);
  if (digits.empty() || ec != std::errc() || ptr != end) {
    throw core::InputError(fmt::format(
        "{}: \"{}\" in \"{}\" is not a node; write npuN, swN or a node id N", field, text, item));
  }
  if (v >= limit) {
    throw core::InputError(fmt::format("{}: {} {} in \"{}\" out of range: {} has {} {}", field,
                                       kind, v, item, t.name(), limit, kinds));
  }
  return static_cast<NodeId>(base + v);
}

}  // namespace

std::string node_name(const Topology& t, NodeId n) {
  return t.is_npu(n) ? fmt::format("npu{}", n) : fmt::format("sw{}", n - t.num_npus());
}

std::vector<LinkId> parse_failed_links(const Topology& t, std::string_view text,
                                       std::string_view field) {
  std::vector<LinkId> out;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const std::size_t sep = item.find_first_of("->");
    if (item.empty() || sep == std::string_view::npos) {
      throw core::InputError(fmt::format(
          "{}: \"{}\" is not a link; write A-B (both directions) or A>B (A to B only), e.g. "
          "sw0-sw8",
          field, item));
    }
    const bool both = item[sep] == '-';
    const NodeId a = parse_node(t, trim(item.substr(0, sep)), item, field);
    const NodeId b = parse_node(t, trim(item.substr(sep + 1)), item, field);
    std::size_t found = 0;
    for (LinkId l = 0; l < t.links().size(); ++l) {
      const Link& k = t.links()[l];
      if ((k.src == a && k.dst == b) || (both && k.src == b && k.dst == a)) {
        out.push_back(l);
        ++found;
      }
    }
    if (found == 0) {
      throw core::InputError(fmt::format("{}: \"{}\": {} has no link between {} and {}", field,
                                         item, t.name(), node_name(t, a), node_name(t, b)));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void apply_failed_links(Topology& t, std::string_view text, std::string_view field) {
  if (trim(text).empty()) return;
  const std::vector<LinkId> links = parse_failed_links(t, text, field);
  t.fail_links(links, field);
}

}  // namespace collsim::topology
