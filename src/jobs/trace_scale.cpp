#include "jobs/trace_scale.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "topology/builders.hpp"

namespace collsim::jobs {

using workload::chakra::Node;
using workload::chakra::NodeKind;
using workload::chakra::RankTrace;

namespace {

bool is_world(const std::string& pg) { return pg.empty() || pg == "0"; }

std::string clone_name(const std::string& group, std::uint32_t c) {
  return c == 0 ? group : fmt::format("{}#{}", group, c);
}

}  // namespace

ScaledTrace scale_trace(const std::vector<RankTrace>& ranks, std::uint32_t npus,
                        const std::map<std::string, std::vector<topology::NodeId>>& groups,
                        std::uint32_t factor, const std::vector<std::string>& widen) {
  if (factor == 0) throw core::InputError("--scale: must be >= 1, got 0");
  if (static_cast<std::uint64_t>(npus) * factor > UINT32_MAX) {
    throw core::InputError(
        fmt::format("--scale: {} x {} ranks is more than 2^32", factor, npus));
  }
  for (const std::string& w : widen) {
    if (groups.find(w) == groups.end()) {
      std::string names;
      for (const auto& [name, members] : groups) {
        names += fmt::format("{}\"{}\"", names.empty() ? "" : ", ", name);
      }
      throw core::InputError(fmt::format(
          "--widen: \"{}\" is not a group of --comm-group-configuration (groups: {})", w,
          names.empty() ? "none" : names));
    }
  }
  const auto widened = [&widen](const std::string& g) {
    return std::find(widen.begin(), widen.end(), g) != widen.end();
  };
  ScaledTrace out;
  for (const auto& [name, members] : groups) {
    if (widened(name)) {
      std::vector<topology::NodeId> all;
      all.reserve(members.size() * factor);
      for (std::uint32_t c = 0; c < factor; ++c) {
        for (topology::NodeId m : members) all.push_back(m + c * npus);
      }
      out.groups.emplace(name, std::move(all));
      ++out.widened_groups;
      continue;
    }
    ++out.cloned_groups;
    for (std::uint32_t c = 0; c < factor; ++c) {
      const std::string clone = clone_name(name, c);
      if (c > 0 && groups.find(clone) != groups.end()) {
        throw core::InputError(fmt::format(
            "--scale: clone {} of group \"{}\" would be named \"{}\", which is already a group",
            c, name, clone));
      }
      std::vector<topology::NodeId> moved = members;
      for (topology::NodeId& m : moved) m += c * npus;
      out.groups.emplace(clone, std::move(moved));
    }
  }
  if (ranks.size() == 1 || factor == 1) {  // one file runs on every NPU; or nothing to clone
    out.ranks = ranks;
    return out;
  }
  out.ranks.reserve(ranks.size() * factor);
  for (std::uint32_t c = 0; c < factor; ++c) {
    const std::uint32_t base = c * npus;
    for (const RankTrace& t : ranks) {
      RankTrace& copy = out.ranks.emplace_back(t);
      if (c == 0) continue;
      copy.file = fmt::format("{} (clone {} of {})", t.file, c, factor);
      for (Node& n : copy.nodes) {
        if (n.kind == NodeKind::Send || n.kind == NodeKind::Recv) {
          if (n.comm_src >= 0) n.comm_src += static_cast<std::int32_t>(base);
          if (n.comm_dst >= 0) n.comm_dst += static_cast<std::int32_t>(base);
        } else if (n.kind == NodeKind::Collective && !is_world(n.pg_name) &&
                   !widened(n.pg_name) && groups.count(n.pg_name) != 0) {
          n.pg_name = clone_name(n.pg_name, c);
        }
      }
    }
  }
  return out;
}

topology::Topology scale_platform(std::vector<topology::DimSpec>& dims, std::uint32_t factor) {
  if (factor == 0) throw core::InputError("--scale: must be >= 1, got 0");
  if (dims.empty()) throw core::InputError("--scale: the platform has no dimension");
  std::uint64_t npus = factor;
  for (const auto& d : dims) npus *= d.size;
  if (npus > UINT32_MAX) {
    throw core::InputError(fmt::format("--scale: {} NPUs is more than 2^32", npus));
  }
  topology::DimSpec& outer = dims.back();
  const std::uint32_t old = outer.size;
  outer.size *= factor;
  // A fully connected dimension keeps its links per peer.
  if (outer.kind == topology::DimKind::FullyConnected && outer.links_per_npu != 0 && old > 1) {
    outer.links_per_npu = outer.links_per_npu / (old - 1) * (outer.size - 1);
  }
  return topology::hierarchical(dims);
}

}  // namespace collsim::jobs
