#include "workload/graph.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace collsim::workload {

const char* to_string(NodeKind k) {
  switch (k) {
    case NodeKind::Compute:
      return "compute";
    case NodeKind::Collective:
      return "collective";
    case NodeKind::Send:
      return "send";
    case NodeKind::Recv:
      return "recv";
    case NodeKind::MemLoad:
      return "mem-load";
    case NodeKind::MemStore:
      return "mem-store";
    case NodeKind::Delay:
      return "delay";
  }
  return "?";
}

std::uint32_t Graph::stream(std::string n, bool serial, bool lifo) {
  for (std::uint32_t i = 0; i < streams.size(); ++i) {
    if (streams[i].name == n) return i;
  }
  streams.push_back({std::move(n), serial, lifo});
  return static_cast<std::uint32_t>(streams.size() - 1);
}

std::uint32_t Graph::category(const std::string& n) {
  for (std::uint32_t i = 0; i < categories.size(); ++i) {
    if (categories[i] == n) return i;
  }
  categories.push_back(n);
  return static_cast<std::uint32_t>(categories.size() - 1);
}

std::uint32_t Graph::intern(const std::string& n) {
  names.push_back(n);
  return static_cast<std::uint32_t>(names.size() - 1);
}

const std::string& Graph::name_of(const Node& n) const {
  static const std::string empty;
  return n.name == kNone ? empty : names[n.name];
}

std::uint32_t ProgramBuilder::add(Node n, const std::vector<std::uint32_t>& data,
                                  const std::vector<std::uint32_t>& ctrl) {
  const auto index = static_cast<std::uint32_t>(p_.nodes.size());
  if (n.id == 0) n.id = index;
  n.deps_begin = static_cast<std::uint32_t>(p_.deps.size());
  n.data_deps = static_cast<std::uint16_t>(data.size());
  n.ctrl_deps = static_cast<std::uint16_t>(ctrl.size());
  if (data.size() > 0xffff || ctrl.size() > 0xffff) {
    throw core::InputError(fmt::format("{}: node {} has more than 65535 dependencies", p_.source,
                                       index));
  }
  p_.deps.insert(p_.deps.end(), data.begin(), data.end());
  p_.deps.insert(p_.deps.end(), ctrl.begin(), ctrl.end());
  p_.nodes.push_back(n);
  return index;
}

namespace {

std::string where(const Graph& g, const Program& p, std::size_t i) {
  const Node& n = p.nodes[i];
  const std::string& name = g.name_of(n);
  return fmt::format("{}: node {} (id {}{}{})", p.source, i, n.id, name.empty() ? "" : ", ",
                     name);
}

void check_program(const Graph& g, const Program& p, std::uint32_t npus) {
  const std::size_t n = p.nodes.size();
  std::vector<std::uint32_t> waiting(n, 0);
  std::vector<std::vector<std::uint32_t>> children(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Node& nd = p.nodes[i];
    const auto at = [&] { return where(g, p, i); };
    if (nd.stream >= g.streams.size()) {
      throw core::InputError(fmt::format("{}: stream {} of {}", at(), nd.stream, g.streams.size()));
    }
    if (nd.category >= g.categories.size()) {
      throw core::InputError(fmt::format("{}: category {} of {}", at(), nd.category,
                                         g.categories.size()));
    }
    if (nd.name != kNone && nd.name >= g.names.size()) {
      throw core::InputError(fmt::format("{}: name {} of {}", at(), nd.name, g.names.size()));
    }
    if (std::size_t{nd.deps_begin} + nd.data_deps + nd.ctrl_deps > p.deps.size()) {
      throw core::InputError(fmt::format("{}: dependencies out of range", at()));
    }
    switch (nd.kind) {
      case NodeKind::Collective:
        if (nd.group == kNone || nd.group >= g.groups.size()) {
          throw core::InputError(fmt::format("{}: no group", at()));
        }
        if (nd.algorithm != kNone && nd.algorithm >= g.algorithms.size()) {
          throw core::InputError(fmt::format("{}: algorithm {} of {}", at(), nd.algorithm,
                                             g.algorithms.size()));
        }
        break;
      case NodeKind::Send:
      case NodeKind::Recv:
        if ((nd.src != kSelf && nd.src >= npus) || (nd.dst != kSelf && nd.dst >= npus)) {
          throw core::InputError(fmt::format("{}: a {} from NPU {} to NPU {} on a platform of {} "
                                             "NPUs",
                                             at(), to_string(nd.kind), nd.src, nd.dst, npus));
        }
        if (nd.src == nd.dst) {
          throw core::InputError(
              fmt::format("{}: a {} from NPU {} to itself", at(), to_string(nd.kind), nd.src));
        }
        break;
      default:
        break;
    }
    for (std::uint32_t k = 0; k < std::uint32_t{nd.data_deps} + nd.ctrl_deps; ++k) {
      const std::uint32_t d = p.deps[nd.deps_begin + k];
      if (d >= n || d == i) {
        throw core::InputError(fmt::format("{}: dependency on node {} ({} nodes)", at(), d, n));
      }
      children[d].push_back(static_cast<std::uint32_t>(i));
      ++waiting[i];
    }
  }
  // Kahn's algorithm: a node left over whose parent is left over too is on, or behind, a cycle.
  std::vector<std::uint32_t> next;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (waiting[i] == 0) next.push_back(i);
  }
  std::size_t seen = 0;
  while (!next.empty()) {
    const std::uint32_t i = next.back();
    next.pop_back();
    ++seen;
    for (std::uint32_t c : children[i]) {
      if (--waiting[c] == 0) next.push_back(c);
    }
  }
  if (seen == n) return;
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t c : children[i]) {
      if (waiting[i] > 0 && waiting[c] > 0) {
        throw core::InputError(fmt::format(
            "{}: on a dependency cycle with node id {} (or behind one): {} of the {} nodes can "
            "never run",
            where(g, p, c), p.nodes[i].id, n - seen, n));
      }
    }
  }
}

}  // namespace

void validate(const Graph& g, std::uint32_t npus) {
  if (g.timelines.empty()) throw core::InputError(fmt::format("workload {}: no timelines", g.name));
  for (const Program& p : g.programs) check_program(g, p, npus);
  for (std::size_t t = 0; t < g.timelines.size(); ++t) {
    const Timeline& tl = g.timelines[t];
    if (tl.program >= g.programs.size()) {
      throw core::InputError(fmt::format("workload {}: timeline {} runs program {} of {}", g.name,
                                         t, tl.program, g.programs.size()));
    }
    if (tl.npu >= npus) {
      throw core::InputError(fmt::format("workload {}: timeline {} runs on NPU {}, but the "
                                         "platform has {} NPUs",
                                         g.name, t, tl.npu, npus));
    }
    for (std::uint32_t m : tl.groups) {
      if (m >= g.groups.size()) {
        throw core::InputError(
            fmt::format("workload {}: timeline {} maps a group to {} of {}", g.name, t, m,
                        g.groups.size()));
      }
    }
  }
  for (const Group& gr : g.groups) {
    for (std::uint32_t t : gr.participants) {
      if (t >= g.timelines.size()) {
        throw core::InputError(fmt::format("workload {}: group {} has participant timeline {} "
                                           "of {}",
                                           g.name, gr.name, t, g.timelines.size()));
      }
    }
    for (const auto& c : gr.comms) {
      for (topology::NodeId npu : c.npus) {
        if (npu >= npus) {
          throw core::InputError(fmt::format("workload {}: group {} names NPU {}; the platform "
                                             "has {} NPUs",
                                             g.name, gr.name, npu, npus));
        }
      }
    }
  }
}

std::uint64_t total_nodes(const Graph& g) {
  std::uint64_t n = 0;
  for (const Timeline& t : g.timelines) n += g.programs[t.program].nodes.size();
  return n;
}

}  // namespace collsim::workload
