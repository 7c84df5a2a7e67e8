#include "scheduler/group_symmetry.hpp"

#include <fmt/format.h>

#include <limits>

namespace collsim::scheduler {

namespace {
constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
}

GroupSymmetry group_symmetry(const topology::Topology& topo) {
  GroupSymmetry s;
  const auto& links = topo.links();
  s.representative.resize(links.size());
  for (std::size_t l = 0; l < links.size(); ++l)
    s.representative[l] = static_cast<std::uint32_t>(l);
  // owner: which (dimension, group) uses a link; seen/back: within one group, the link each of
  // the first group's links maps to (the map must be one-to-one).
  std::vector<std::uint32_t> owner(links.size(), kNone), seen(links.size(), kNone),
      back(links.size(), kNone);
  std::vector<topology::LinkId> r0, r;
  std::uint32_t id = 0;
  std::uint64_t visited = 0;  // route hops looked at, against kSymmetryCheckBudget
  const auto fail = [&s](std::string why) {
    s.broken = std::move(why);
    return s;
  };
  const auto& dims = topo.dimensions();
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const auto& groups = dims[d].groups;
    if (dims[d].spec.size < 2 || groups.empty()) continue;
    if (dims[d].spec.kind == topology::DimKind::LocalSwitches) {
      return fail(fmt::format("dim{} has parallel paths (local switches)", d));
    }
    const auto& g0 = groups.front();
    for (std::size_t g = 0; g < groups.size(); ++g, ++id) {
      const auto& grp = groups[g];
      if (grp.size() != g0.size()) return fail(fmt::format("dim{}: groups differ in size", d));
      for (std::size_t i = 0; i < grp.size(); ++i) {
        for (std::size_t j = 0; j < grp.size(); ++j) {
          if (i == j) continue;
          r0.clear();
          r.clear();
          topo.route(g0[i], g0[j], r0);
          topo.route(grp[i], grp[j], r);
          visited += r0.size() + r.size();
          if (visited > kSymmetryCheckBudget) {
            return fail(fmt::format(
                "dim{}: more than {} route hops to compare (groups of {} NPUs); not checked", d,
                kSymmetryCheckBudget, grp.size()));
          }
          if (r.size() != r0.size()) {
            return fail(fmt::format("dim{} group {}: routes of different lengths", d, g));
          }
          for (std::size_t k = 0; k < r.size(); ++k) {
            const topology::LinkId l = r[k], l0 = r0[k];
            if (links[l].bandwidth.bytes_per_s != links[l0].bandwidth.bytes_per_s ||
                links[l].latency != links[l0].latency) {
              return fail(fmt::format("dim{} group {}: links differ from the first group's", d, g));
            }
            if (owner[l] == kNone) {
              owner[l] = id;
              s.representative[l] = l0;
            } else if (owner[l] != id) {
              return fail(fmt::format("link {} is used by two groups", l));
            } else if (s.representative[l] != l0) {
              return fail(fmt::format("dim{} group {}: its routes share links differently", d, g));
            }
            if (seen[l0] == id && back[l0] != l) {
              return fail(fmt::format("dim{} group {}: its routes share links differently", d, g));
            }
            seen[l0] = id;
            back[l0] = l;
          }
        }
      }
    }
  }
  return s;
}

std::string one_group_blocker(const network::Backend& backend, const endpoint::Endpoint& endpoint) {
  if (!backend.link_contention_only()) {
    return fmt::format("the {} backend shares resources beyond links", backend.name());
  }
  if (!endpoint.messages_independent()) {
    return fmt::format("the {} endpoint shares resources between messages", endpoint.name());
  }
  return {};
}

std::string planned_blocker(const topology::Topology& topo, const network::BackendInfo& backend,
                            const network::BackendOptions& options,
                            const endpoint::EndpointInfo& endpoint,
                            const endpoint::EndpointParams& params) {
  if (backend.links_only == nullptr || !backend.links_only(options)) {
    return fmt::format("the {} backend shares resources beyond links", backend.name);
  }
  if (endpoint.messages_independent == nullptr || !endpoint.messages_independent(params)) {
    return fmt::format("the {} endpoint shares resources between messages", endpoint.name);
  }
  return group_symmetry(topo).broken;
}

GroupSymmetry run_symmetry(const topology::Topology& topo, const network::Backend& backend,
                           const Executor& executor) {
  GroupSymmetry s;
  s.broken = one_group_blocker(backend, executor.endpoint());
  if (s.broken.empty() && executor.observer() && executor.observer()->watches_messages()) {
    s.broken = "a trace watches every message";
  }
  return s.broken.empty() ? group_symmetry(topo) : s;
}

std::vector<network::LinkStats> expand_link_stats(const std::vector<network::LinkStats>& stats,
                                                  const GroupSymmetry& symmetry) {
  std::vector<network::LinkStats> out = stats;
  for (std::size_t l = 0; l < symmetry.representative.size() && l < out.size(); ++l) {
    out[l] = stats[symmetry.representative[l]];
  }
  return out;
}

}  // namespace collsim::scheduler
