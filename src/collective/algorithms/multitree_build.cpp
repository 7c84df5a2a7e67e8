#include "collective/algorithms/multitree_build.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <span>

#include "core/error.hpp"

namespace collsim::collective {
namespace {

using topology::LinkId;
using topology::NodeId;

// Each NPU's outgoing links to neighbouring NPUs, in the order the algorithm examines them: on a
// 2D torus or mesh north (y - 1), south (y + 1), west (x - 1), east (x + 1) (Sec. III-C: "Y
// dimension then X"); otherwise the topology's link order.
std::vector<std::vector<LinkId>> neighbour_links(const topology::Topology& topo) {
  const std::uint32_t n = topo.num_npus();
  std::vector<std::vector<LinkId>> out(n);
  const auto& dims = topo.dimensions();
  const bool grid =
      dims.size() == 2 && std::all_of(dims.begin(), dims.end(), [](const topology::Dimension& d) {
        return d.spec.kind == topology::DimKind::Ring || d.spec.kind == topology::DimKind::Line;
      });
  for (NodeId p = 0; p < n; ++p) {
    auto link_to = [&](NodeId q) -> LinkId {
      for (LinkId l : topo.out_links(p)) {
        if (topo.links()[l].dst == q) return l;
      }
      return UINT32_MAX;
    };
    if (grid) {
      const std::uint32_t kx = dims[0].spec.size, ky = dims[1].spec.size;
      const std::uint32_t x = p % kx, y = p / kx;
      const bool wx = dims[0].spec.kind == topology::DimKind::Ring;
      const bool wy = dims[1].spec.kind == topology::DimKind::Ring;
      std::vector<NodeId> order;
      if (y > 0 || (wy && ky > 2)) order.push_back(((y + ky - 1) % ky) * kx + x);  // north
      if (y + 1 < ky || (wy && ky > 2)) order.push_back(((y + 1) % ky) * kx + x);  // south
      if (x > 0 || (wx && kx > 2)) order.push_back(y * kx + (x + kx - 1) % kx);    // west
      if (x + 1 < kx || (wx && kx > 2)) order.push_back(y * kx + (x + 1) % kx);    // east
      for (NodeId q : order) {
        const LinkId l = link_to(q);
        if (l != UINT32_MAX && std::find(out[p].begin(), out[p].end(), l) == out[p].end()) {
          out[p].push_back(l);
        }
      }
    } else {
      for (LinkId l : topo.out_links(p)) {
        // Failed links (Topology::fail_links) carry no tree edge.
        if (topo.is_npu(topo.links()[l].dst) && !topo.link_failed(l)) out[p].push_back(l);
      }
    }
  }
  return out;
}

// Reference-mode root priority: 0 on a torus; on a mesh the authors' distance to the farthest
// corner. Their KNCube numbers node p as (row p / k, column p % k) and calls the row "x"; their
// distance's second term is |row(c) - col(c)| of the corner c (their bug) rather than
// |col(p) - col(c)|. So NPU p's priority is the max over the corners (rc, cc) of
// |row(p) - rc| + |rc - cc|, with row(p) = p / kx (collsim's y).
std::vector<std::int64_t> priorities(const topology::Topology& topo) {
  const std::uint32_t n = topo.num_npus();
  std::vector<std::int64_t> pr(n, 0);
  const auto& dims = topo.dimensions();
  if (dims.size() != 2 || dims[0].spec.kind != topology::DimKind::Line) return pr;
  const std::int64_t kx = dims[0].spec.size, ky = dims[1].spec.size;
  for (NodeId p = 0; p < n; ++p) {
    const std::int64_t row = p / kx;
    std::int64_t best = 0;
    for (std::int64_t rc : {std::int64_t{0}, ky - 1}) {
      for (std::int64_t cc : {std::int64_t{0}, kx - 1}) {
        best = std::max(best, std::abs(row - rc) + std::abs(rc - cc));
      }
    }
    pr[p] = best;
  }
  return pr;
}

// Tree edges a link may carry per step: a link of c times the slowest NPU link's bandwidth is c
// parallel links (Sec. VII-B), e.g. BiGraph's aggregated inter-switch links.
std::vector<std::uint32_t> capacities(const topology::Topology& topo) {
  double slowest = 0;
  for (NodeId p = 0; p < topo.num_npus(); ++p) {
    for (LinkId l : topo.out_links(p)) {
      const double bw = topo.links()[l].bandwidth.bytes_per_s;
      slowest = slowest == 0 ? bw : std::min(slowest, bw);
    }
  }
  std::vector<std::uint32_t> c(topo.links().size());
  for (LinkId l = 0; l < c.size(); ++l) {
    c[l] = std::max(
        1u, static_cast<std::uint32_t>(topo.links()[l].bandwidth.bytes_per_s / slowest + 1e-9));
  }
  return c;
}

// A switched network whose NPUs each have exactly one link, to a switch (fat tree, BiGraph,
// switch): each NPU's switch and links, each switch's NPUs (ascending id) and its links to other
// switches (link order). Empty switch_of when the network is not of that shape.
struct SwitchGraph {
  std::vector<NodeId> switch_of;
  std::vector<LinkId> up, down;
  std::vector<std::vector<NodeId>> attached;
  std::vector<std::vector<LinkId>> switch_links;
};

SwitchGraph switch_graph(const topology::Topology& topo) {
  const std::uint32_t n = topo.num_npus();
  SwitchGraph g;
  g.switch_of.resize(n);
  g.up.resize(n);
  g.down.resize(n);
  g.attached.assign(topo.num_nodes(), {});
  g.switch_links.assign(topo.num_nodes(), {});
  for (NodeId p = 0; p < n; ++p) {
    const auto out = topo.out_links(p);
    if (out.size() != 1 || topo.is_npu(topo.links()[out[0]].dst)) return {};
    const NodeId s = topo.links()[out[0]].dst;
    g.switch_of[p] = s;
    g.up[p] = out[0];
    g.down[p] = topo.link_between(s, p);
    g.attached[s].push_back(p);
  }
  for (NodeId s = n; s < topo.num_nodes(); ++s) {
    for (LinkId l : topo.out_links(s)) {
      if (!topo.is_npu(topo.links()[l].dst)) g.switch_links[s].push_back(l);
    }
  }
  return g;
}

}  // namespace

MultiTreePlan build_multitree(const topology::Topology& topo, MultiTreeMode mode,
                              std::uint32_t kary) {
  if (kary < 2) throw core::InputError("algorithm multitree: kary must be >= 2");
  const std::uint32_t n = topo.num_npus();
  const bool switched = topo.num_switches() != 0;
  // Direct networks: each NPU's links to its neighbours. Switched networks (Sec. III-C3): every
  // other NPU, nearest first (own switch, then farther switches), reached over the network's
  // route; a tree edge then holds every link of that route for the step.
  const auto nbr = switched ? std::vector<std::vector<LinkId>>(n) : neighbour_links(topo);
  // The construction's work: N trees x T steps x up to N parents x d links each, T at least
  // N(N-1) over the links of a step and (N-1)/(kary-1); checked before the N^2 routes of a
  // switched network are found (minutes and gigabytes at 10^4 NPUs). Measured: 1.1e9 (32x32 torus)
  // builds in 2.5 s, 1.7e10 (fc:512) in 3.9 s; above 2e10 it is refused rather than left running.
  std::uint64_t degree = switched ? n - 1 : 0;
  std::uint64_t nlinks = switched ? topo.links().size() : 0;
  for (const auto& l : nbr) {
    degree = std::max<std::uint64_t>(degree, l.size());
    nlinks += l.size();
  }
  const double steps = std::max(double(n) * (n - 1) / double(std::max<std::uint64_t>(nlinks, 1)),
                                double(n - 1) / (kary - 1));
  const double work = double(n) * steps * double(n) * double(degree);
  if (work > 2e10) {
    throw core::InputError(fmt::format(
        "algorithm multitree: building {} trees on {} (degree {}) is about {:.2g} link checks, "
        "over collsim's 2e10 (minutes); MultiTree is meant for low-degree direct networks of up to "
        "a few thousand NPUs",
        n, topo.name(), degree, work));
  }
  // Reference mode on a network where every NPU has one link, to a switch: the authors' search
  // (any free switch path, found depth-first). Otherwise switched networks use the routes.
  const SwitchGraph sg =
      mode == MultiTreeMode::Reference && switched ? switch_graph(topo) : SwitchGraph{};
  const bool dfs = !sg.switch_of.empty();
  std::vector<std::vector<NodeId>> candidates;
  std::vector<std::vector<std::vector<LinkId>>> routes;
  if (switched && !dfs) {
    candidates.assign(n, {});
    routes.assign(n, std::vector<std::vector<LinkId>>(n));
    for (NodeId p = 0; p < n; ++p) {
      for (NodeId q = 0; q < n; ++q) {
        if (q == p) continue;
        candidates[p].push_back(q);
        topo.route(p, q, routes[p][q]);
      }
      std::stable_sort(candidates[p].begin(), candidates[p].end(), [&](NodeId a, NodeId b) {
        return routes[p][a].size() < routes[p][b].size();
      });
    }
  }
  const auto& links = topo.links();
  MultiTreePlan plan;
  plan.trees.assign(n, {});
  std::vector<std::vector<NodeId>> members(n);  // insertion order
  std::vector<std::vector<std::uint8_t>> in_tree(n, std::vector<std::uint8_t>(n, 0));
  for (NodeId r = 0; r < n; ++r) {
    members[r].push_back(r);
    in_tree[r][r] = 1;
  }
  std::vector<NodeId> order(n);
  std::iota(order.begin(), order.end(), 0);
  const auto prio = priorities(topo);
  const std::vector<std::uint32_t> capacity = capacities(topo);
  std::vector<std::uint32_t> free_link(links.size());
  std::vector<std::uint32_t> send(n), recv(n), before(n);
  std::uint32_t complete = n == 1 ? 1 : 0;
  // The depth-first search's state: switches seen in this search, the switch links of the path.
  std::vector<std::uint32_t> seen(topo.num_nodes(), 0);
  std::uint32_t stamp = 0;
  std::vector<LinkId> trail;
  // From switch `s` over free switch links, depth-first, to a leaf switch offering a node not in
  // tree r that may still receive: its first such node, or UINT32_MAX. Spine switches (no NPUs)
  // are passed through; a leaf switch whose NPUs are all taken is a dead end (the authors'
  // search). `trail` holds the switch links taken.
  auto search = [&](auto&& self, NodeId s, NodeId r) -> NodeId {
    for (LinkId l : sg.switch_links[s]) {
      const NodeId s2 = links[l].dst;
      if (free_link[l] == 0 || seen[s2] == stamp) continue;
      seen[s2] = stamp;
      trail.push_back(l);
      for (NodeId c : sg.attached[s2]) {
        if (!in_tree[r][c] && recv[c] > 0) return c;
      }
      // A leaf switch (one with NPUs) ends the search there; a spine is descended into.
      const NodeId c = sg.attached[s2].empty() ? self(self, s2, r) : UINT32_MAX;
      if (c != UINT32_MAX) return c;
      trail.pop_back();
    }
    return UINT32_MAX;
  };
  // Direct networks: members[r][0 .. first_open[r]) have every neighbour in tree r already, so
  // they can never again be a parent in it (trees only grow); the scan for a parent skips them.
  // A tree grows outward, so its earliest members are the first to be surrounded: on a ring the
  // scan is two members long instead of the whole tree (the same parent is found, so the same
  // trees are built).
  std::vector<std::uint32_t> first_open(n, 0);
  const auto surrounded = [&](NodeId r, NodeId p) {
    return std::all_of(nbr[p].begin(), nbr[p].end(),
                       [&](LinkId l) { return in_tree[r][links[l].dst] != 0; });
  };
  // Adds one node to tree `r` in step `t`; false when it cannot grow.
  auto grow = [&](NodeId r, std::uint32_t t) {
    if (members[r].size() == n) return false;
    if (!switched) {
      std::uint32_t& f = first_open[r];
      while (f < before[r] && surrounded(r, members[r][f])) ++f;
    }
    for (std::uint32_t i = switched ? 0 : first_open[r]; i < before[r]; ++i) {
      const NodeId p = members[r][i];
      if (send[p] == 0) continue;
      // Child c joins tree r under p over `path` (its links' capacity already checked).
      auto attach = [&](NodeId c, std::span<const LinkId> path) {
        for (LinkId l : path) --free_link[l];
        --send[p];
        --recv[c];
        in_tree[r][c] = 1;
        members[r].push_back(c);
        plan.trees[r].push_back(TreeEdge{c, p, t, {}});
        if (members[r].size() == n) ++complete;
        return true;
      };
      if (dfs) {
        // The authors' order: a node on the parent's own switch, else the first node the
        // depth-first search over free switch links reaches. The edge keeps its whole path.
        const NodeId s0 = sg.switch_of[p];
        NodeId c = UINT32_MAX;
        trail.clear();
        for (NodeId q : sg.attached[s0]) {
          if (!in_tree[r][q] && recv[q] > 0) {
            c = q;
            break;
          }
        }
        if (c == UINT32_MAX) {
          ++stamp;
          seen[s0] = stamp;
          c = search(search, s0, r);
        }
        if (c == UINT32_MAX) continue;
        std::vector<LinkId> path;
        path.reserve(trail.size() + 2);
        path.push_back(sg.up[p]);
        path.insert(path.end(), trail.begin(), trail.end());
        path.push_back(sg.down[c]);
        attach(c, trail);
        plan.trees[r].back().path = std::move(path);
        return true;
      }
      if (switched) {
        for (NodeId c : candidates[p]) {
          if (in_tree[r][c] || recv[c] == 0) continue;
          const auto& path = routes[p][c];
          if (std::all_of(path.begin(), path.end(), [&](LinkId l) { return free_link[l] > 0; })) {
            return attach(c, path);
          }
        }
        continue;
      }
      for (LinkId l : nbr[p]) {
        const NodeId c = links[l].dst;
        if (free_link[l] > 0 && !in_tree[r][c] && recv[c] > 0) return attach(c, {&l, 1});
      }
    }
    return false;
  };
  std::uint32_t t = 0;
  bool first_round = true;
  while (complete < n) {
    ++t;
    free_link = capacity;
    // The authors' switched networks: an NPU sends and receives one tree edge per step.
    std::fill(send.begin(), send.end(), dfs ? 1 : kary - 1);
    std::fill(recv.begin(), recv.end(), dfs ? 1 : kary - 1);
    for (NodeId r = 0; r < n; ++r) before[r] = static_cast<std::uint32_t>(members[r].size());
    bool grew_in_step = false;
    for (;;) {
      bool any = false, last = false;
      for (std::uint32_t i = 0; i < n; ++i) {
        last = grow(order[i], t);
        any = any || last;
      }
      grew_in_step = grew_in_step || any;
      if (mode == MultiTreeMode::Reference && first_round) {
        // From the second round on: descending priority, ties by descending root id.
        std::sort(order.begin(), order.end(), [&](NodeId a, NodeId b) {
          return prio[a] != prio[b] ? prio[a] > prio[b] : a > b;
        });
      }
      first_round = false;
      if (mode == MultiTreeMode::Paper ? !any : !last) break;
    }
    if (!grew_in_step) {
      throw core::InputError(fmt::format(
          "algorithm multitree: the trees cannot grow on {} (an NPU unreachable over direct "
          "links, or kary too small)",
          topo.name()));
    }
  }
  plan.steps = t;
  return plan;
}

std::string check_multitree(const topology::Topology& topo, const MultiTreePlan& plan) {
  const std::uint32_t n = topo.num_npus();
  const std::vector<std::uint32_t> capacity = capacities(topo);
  std::vector<std::vector<std::uint32_t>> used(plan.steps + 1);  // (step) -> link ids
  for (std::uint32_t r = 0; r < plan.trees.size(); ++r) {
    std::vector<std::uint8_t> seen(n, 0);
    seen[r] = 1;
    for (const TreeEdge& e : plan.trees[r]) {
      if (!seen[e.parent])
        return fmt::format("tree {}: parent {} of {} not in the tree", r, e.parent, e.child);
      if (seen[e.child]) return fmt::format("tree {}: {} added twice", r, e.child);
      seen[e.child] = 1;
      // The edge holds the links of its route (one link between a direct network's neighbours).
      auto& u = used.at(e.step);
      const std::vector<topology::LinkId> path =
          e.path.empty() ? topo.route(e.parent, e.child) : e.path;
      NodeId at = e.parent;
      for (topology::LinkId link : path) {
        if (topo.links()[link].src != at) {
          return fmt::format("tree {}: the path of {} -> {} is not contiguous", r, e.parent,
                             e.child);
        }
        at = topo.links()[link].dst;
        const auto uses = static_cast<std::uint32_t>(std::count(u.begin(), u.end(), link));
        if (uses >= capacity[link]) {
          return fmt::format("step {}: link {} -> {} carries two tree edges (at {} -> {})", e.step,
                             topo.links()[link].src, topo.links()[link].dst, e.parent, e.child);
        }
        u.push_back(link);
      }
      if (at != e.child) {
        return fmt::format("tree {}: the path of {} -> {} ends at {}", r, e.parent, e.child, at);
      }
    }
    if (std::count(seen.begin(), seen.end(), 1) != static_cast<std::ptrdiff_t>(n)) {
      return fmt::format("tree {} does not span every NPU", r);
    }
  }
  return "";
}

}  // namespace collsim::collective
