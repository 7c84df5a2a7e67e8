#include "topology/equal_cost_paths.hpp"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

namespace collsim::topology {
namespace {

constexpr std::uint32_t kUnreached = std::numeric_limits<std::uint32_t>::max();
constexpr LinkId kNone = std::numeric_limits<LinkId>::max();

}  // namespace

bool has_flat_switch_links(const Topology& t) {
  std::vector<std::uint32_t> level(t.num_nodes(), kUnreached);
  std::vector<NodeId> queue;
  queue.reserve(t.num_nodes());
  for (NodeId n = 0; n < t.num_npus(); ++n) {
    level[n] = 0;
    queue.push_back(n);
  }
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const NodeId v = queue[head];
    for (LinkId id : t.out_links(v)) {
      if (t.link_failed(id)) continue;
      const NodeId u = t.links()[id].dst;
      if (level[u] == kUnreached) {
        level[u] = level[v] + 1;
        queue.push_back(u);
      }
    }
  }
  for (LinkId id = 0; id < t.links().size(); ++id) {
    const Link& l = t.links()[id];
    if (!t.link_failed(id) && !t.is_npu(l.src) && !t.is_npu(l.dst) && level[l.src] == level[l.dst]) {
      return true;
    }
  }
  return false;
}

EqualCostPaths::EqualCostPaths(const Topology& topo)
    : topo_(topo),
      closed_(topo.failed_links().empty() ? topo.equal_cost_paths() : nullptr) {}

NodeId EqualCostPaths::target_of(NodeId dst, LinkId& last) const {
  last = kNone;
  LinkId only = kNone;
  std::uint32_t working = 0;
  for (LinkId l : topo_.in_links(dst)) {
    if (topo_.link_failed(l)) continue;
    ++working;
    only = l;
  }
  if (working != 1) return dst;
  last = only;
  return topo_.links()[only].src;
}

const EqualCostPaths::Target& EqualCostPaths::target(NodeId t) {
  if (slot_.empty()) slot_.assign(topo_.num_nodes(), 0);  // on first use: none when unused
  if (slot_[t] != 0) return targets_[slot_[t] - 1];
  // Backward breadth-first search from t over working links, then the path counts in order of
  // distance: paths(u) = sum of paths(v) over u's links to nodes v one hop closer.
  const std::uint32_t n = topo_.num_nodes();
  Target g;
  g.dist.assign(n, kUnreached);
  g.paths.assign(n, 0);
  std::vector<NodeId> order;
  order.reserve(n);
  g.dist[t] = 0;
  g.paths[t] = 1;
  order.push_back(t);
  for (std::size_t head = 0; head < order.size(); ++head) {
    const NodeId v = order[head];
    if (transit_barred(v, t)) continue;  // reached, but no path continues through it
    for (LinkId id : topo_.in_links(v)) {
      if (topo_.link_failed(id)) continue;
      const NodeId u = topo_.links()[id].src;
      if (g.dist[u] == kUnreached) {
        g.dist[u] = g.dist[v] + 1;
        order.push_back(u);
      }
    }
  }
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  for (std::size_t i = 1; i < order.size(); ++i) {
    const NodeId u = order[i];
    std::uint64_t sum = 0;
    for (LinkId id : topo_.out_links(u)) {
      if (topo_.link_failed(id)) continue;
      const NodeId v = topo_.links()[id].dst;
      if (g.dist[v] + 1 != g.dist[u] || transit_barred(v, t)) continue;
      sum = g.paths[v] > kMax - sum ? kMax : sum + g.paths[v];
    }
    g.paths[u] = sum;
  }
  targets_.push_back(std::move(g));
  slot_[t] = static_cast<std::uint32_t>(targets_.size());
  return targets_.back();
}

std::uint64_t EqualCostPaths::count(NodeId src, NodeId dst) {
  if (src >= topo_.num_npus() || dst >= topo_.num_npus()) {
    throw std::out_of_range(
        fmt::format("topology {}: paths {} -> {}: not NPUs", topo_.name(), src, dst));
  }
  if (src == dst) return 1;
  if (closed_ != nullptr) return closed_(topo_, src, dst, 0, nullptr);
  LinkId last = kNone;
  const NodeId t = target_of(dst, last);
  if (t == src) return 1;
  const std::uint64_t p = target(t).paths[src];
  if (p == 0) {
    throw std::out_of_range(
        fmt::format("topology {}: node {} cannot reach node {}", topo_.name(), src, dst));
  }
  return p;
}

void EqualCostPaths::append(NodeId src, NodeId dst, std::uint64_t index,
                            std::vector<LinkId>& out) {
  if (closed_ != nullptr && src != dst) {
    count(src, dst);  // checks the ids
    closed_(topo_, src, dst, index, &out);
    return;
  }
  const std::uint64_t total = count(src, dst);
  if (src == dst) return;
  LinkId last = kNone;
  const NodeId t = target_of(dst, last);
  std::uint64_t i = index % total;
  if (t != src) {
    const Target& g = target(t);
    for (NodeId u = src; u != t;) {
      LinkId take = kNone;
      for (LinkId id : topo_.out_links(u)) {
        if (topo_.link_failed(id)) continue;
        const NodeId v = topo_.links()[id].dst;
        if (g.dist[v] + 1 != g.dist[u] || transit_barred(v, t)) continue;
        take = id;  // the last candidate, if saturated counts leave i past them all
        if (i < g.paths[v]) break;
        i -= g.paths[v];
      }
      out.push_back(take);
      u = topo_.links()[take].dst;
    }
  }
  if (last != kNone) out.push_back(last);
}

}  // namespace collsim::topology
