// Imported graphs (graph_import.hpp): numbering, the switch-only shortest-path routing, the
// reachability check, reading a file and the `file:PATH` form.
#include "topology/graph_import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>
#include <sstream>
#include <utility>

#include "core/error.hpp"
#include "core/input_file.hpp"
#include "topology/forms.hpp"

namespace collsim::topology {
namespace {

constexpr LinkId kNone = std::numeric_limits<LinkId>::max();
constexpr std::uint32_t kFar = std::numeric_limits<std::uint32_t>::max();

// Which of k equally short next hops node u takes toward dst: a well-mixed hash of the pair
// (splitmix64), so that the destinations behind one switch spread over its up-links whatever
// their numbering (a rail's NPUs 0, 8, 16, ... would all take the same one by dst mod k).
std::uint64_t spread(NodeId u, NodeId dst) {
  std::uint64_t x = (std::uint64_t{u} << 32 | dst) + 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The routing's state: per destination NPU, each node's next link toward it, filled on first use
// (as Topology's own next-hop tables are) under a lock, never changed after.
struct SwitchRouting {
  std::vector<std::uint8_t> nvswitch;  // per collsim node: an NVSwitch, preferred on ties
  std::vector<std::uint32_t> file_id;  // per collsim node: its id in the file, for messages
  NodeId npus = 0;
  // Out-links per node in link-id order, contiguous (links are duplex, so a node's out-neighbours
  // are also the nodes with a link into it): neighbour and link id.
  std::vector<std::uint32_t> offset;
  std::vector<NodeId> neighbour;
  std::vector<LinkId> link;
  mutable std::mutex mu;
  mutable std::vector<std::vector<LinkId>> next;  // [destination NPU][node]

  void index(const Topology& t) {
    offset.assign(1, 0);
    for (NodeId u = 0; u < t.num_nodes(); ++u) {
      for (LinkId id : t.out_links(u)) {
        neighbour.push_back(t.links()[id].dst);
        link.push_back(id);
      }
      offset.push_back(static_cast<std::uint32_t>(link.size()));
    }
  }

  const std::vector<LinkId>& toward(NodeId dst) const {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<LinkId>& nh = next[dst];
    if (!nh.empty()) return nh;
    // Hops to dst on paths whose inner nodes are switches: a BFS from dst (on reversed links,
    // which are the same pairs) that goes on from dst and from switches only.
    const auto nodes = static_cast<NodeId>(offset.size() - 1);
    std::vector<std::uint32_t> dist(nodes, kFar);
    std::vector<NodeId> queue;
    queue.reserve(nodes);
    queue.push_back(dst);
    dist[dst] = 0;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const NodeId v = queue[head];
      if (v != dst && v < npus) continue;
      for (std::uint32_t i = offset[v]; i < offset[v + 1]; ++i) {
        const NodeId u = neighbour[i];
        if (dist[u] == kFar) {
          dist[u] = dist[v] + 1;
          queue.push_back(u);
        }
      }
    }
    nh.assign(nodes, kNone);
    std::vector<LinkId> equal;
    for (const NodeId u : queue) {
      if (u == dst) continue;
      equal.clear();
      bool via_nvswitch = false;
      for (std::uint32_t i = offset[u]; i < offset[u + 1]; ++i) {
        const NodeId v = neighbour[i];
        if (dist[v] + 1 != dist[u] || (v != dst && v < npus)) continue;
        // SimAI's CalculateRoute: an NVSwitch next hop replaces the others.
        if (nvswitch[v] && !via_nvswitch) {
          equal.clear();
          via_nvswitch = true;
        }
        if (nvswitch[v] == via_nvswitch) equal.push_back(link[i]);
      }
      if (!equal.empty()) nh[u] = equal[spread(u, dst) % equal.size()];
    }
    return nh;
  }
};

void route_imported(const Topology& t, std::uint32_t, std::uint32_t, NodeId src, NodeId dst,
                    std::vector<LinkId>& out) {
  const auto& r = *static_cast<const SwitchRouting*>(t.routing_state());
  const std::vector<LinkId>& nh = r.toward(dst);
  for (NodeId at = src; at != dst;) {
    const LinkId l = nh[at];
    if (l == kNone) {
      throw std::out_of_range(fmt::format("topology {}: route: node {} cannot reach node {}",
                                          t.name(), src, dst));
    }
    out.push_back(l);
    at = t.links()[l].dst;
  }
}

// Every NPU reaches every other through switches only. Links are duplex, so switches fall into
// connected components (union-find over switch-to-switch links); two NPUs reach each other iff
// they are linked directly or touch a common component.
void check_reachable(const Topology& t, const SwitchRouting& r, std::string_view source) {
  const std::uint32_t n = t.num_npus(), nodes = t.num_nodes();
  std::vector<NodeId> root(nodes);
  std::iota(root.begin(), root.end(), 0);
  auto find = [&](NodeId x) {
    while (root[x] != x) x = root[x] = root[root[x]];
    return x;
  };
  for (const Link& l : t.links()) {
    if (!t.is_npu(l.src) && !t.is_npu(l.dst)) root[find(l.src)] = find(l.dst);
  }
  std::vector<std::vector<NodeId>> touches(n);  // per NPU: components and NPUs it is linked to
  std::vector<std::vector<NodeId>> peers(n);
  for (const Link& l : t.links()) {
    if (!t.is_npu(l.src)) continue;
    (t.is_npu(l.dst) ? peers[l.src] : touches[l.src]).push_back(t.is_npu(l.dst) ? l.dst
                                                                                 : find(l.dst));
  }
  for (auto& v : touches) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  // Usually one component touches every NPU (a switched fabric): nothing more to check.
  std::vector<std::uint32_t> count(nodes, 0);
  for (const auto& v : touches) {
    for (NodeId c : v) {
      if (++count[c] == n) return;
    }
  }
  for (NodeId a = 0; a < n; ++a) {
    for (NodeId b = a + 1; b < n; ++b) {
      bool ok = std::find(peers[a].begin(), peers[a].end(), b) != peers[a].end();
      for (std::size_t i = 0, j = 0; !ok && i < touches[a].size() && j < touches[b].size();) {
        if (touches[a][i] == touches[b][j]) ok = true;
        touches[a][i] < touches[b][j] ? ++i : ++j;
      }
      if (!ok) {
        throw core::InputError(fmt::format(
            "{}: NPU {} cannot reach NPU {} (node ids of the file; a path may cross switches, "
            "not other NPUs): every NPU must reach every other",
            source, r.file_id[a], r.file_id[b]));
      }
    }
  }
}

bool has_extension(const std::string& path, std::initializer_list<std::string_view> exts) {
  const std::string e = std::filesystem::path(path).extension().string();
  for (std::string_view x : exts) {
    if (e == x) return true;
  }
  return false;
}

// The dimension a link carries (graph_import.hpp): its own, else between two NPUs the lowest
// dimension in which their coordinates differ, at an NVSwitch dimension 0, else the last.
std::uint32_t edge_dim(const ImportedGraph& g, const ImportedGraph::Edge& e, NodeId a, NodeId b,
                       std::uint32_t npus) {
  if (e.dim >= 0) return static_cast<std::uint32_t>(e.dim);
  const auto last = static_cast<std::uint32_t>(g.dims.size() - 1);
  if (a < npus && b < npus) {
    for (std::uint32_t d = 0, stride = 1; d < g.dims.size(); stride *= g.dims[d].size, ++d) {
      if (a / stride % g.dims[d].size != b / stride % g.dims[d].size) return d;
    }
    return last;
  }
  return g.kind[e.a] == 2 || g.kind[e.b] == 2 ? 0 : last;
}

// The DimSpecs: what the file gives, the rest from NPU 0's links in each dimension (bandwidth
// summed, the largest latency): the rate and per-hop delay at which an NPU talks in it.
std::vector<DimSpec> dim_specs(const ImportedGraph& g, const std::vector<Link>& links) {
  std::vector<DimSpec> specs;
  for (std::uint32_t d = 0; d < g.dims.size(); ++d) {
    const ImportedDim& in = g.dims[d];
    double bw = 0;
    core::Time lat{};
    for (const Link& l : links) {
      if (l.src == 0 && l.dim == d) {
        bw += l.bandwidth.bytes_per_s;
        lat = std::max(lat, l.latency);
      }
    }
    if (bw <= 0) {
      throw core::InputError(fmt::format(
          "{}: no link of NPU 0 carries dimension {} (a link between two NPUs carries the "
          "lowest dimension in which they differ, one at an NVSwitch dimension 0, any other the "
          "last); give links a \"dim\"",
          in.field, d));
    }
    DimSpec s;
    s.kind = in.kind.value_or(DimKind::Switch);
    s.size = in.size;
    s.bandwidth = in.bandwidth.value_or(core::Bandwidth{bw});
    s.latency = in.latency.value_or(lat);
    specs.push_back(s);
  }
  return specs;
}

}  // namespace

Topology imported_topology(const ImportedGraph& g, std::string_view source) {
  // collsim ids: the file's NPUs in id order, then its switches in id order.
  std::vector<NodeId> id(g.nodes);
  auto state = std::make_shared<SwitchRouting>();
  state->nvswitch.assign(g.nodes, 0);
  state->file_id.assign(g.nodes, 0);
  std::uint32_t npus = 0;
  for (std::uint32_t v = 0; v < g.nodes; ++v) npus += g.kind[v] == 0 ? 1 : 0;
  if (npus < 2) {
    throw core::InputError(
        fmt::format("{}: {} NPU(s) (nodes that are not switches); need at least 2", source, npus));
  }
  std::uint32_t next_npu = 0, next_switch = npus;
  for (std::uint32_t v = 0; v < g.nodes; ++v) {
    id[v] = g.kind[v] == 0 ? next_npu++ : next_switch++;
    state->nvswitch[id[v]] = g.kind[v] == 2 ? 1 : 0;
    state->file_id[id[v]] = v;
  }
  std::vector<Link> links;
  links.reserve(2 * g.edges.size());
  for (const ImportedGraph::Edge& e : g.edges) {
    const std::uint32_t d = g.dims.empty() ? 0 : edge_dim(g, e, id[e.a], id[e.b], npus);
    links.push_back(Link{id[e.a], id[e.b], e.bandwidth, e.latency, d});
    links.push_back(Link{id[e.b], id[e.a], e.bandwidth, e.latency, d});
  }
  const GraphRouting routing{&route_imported, 0, 0};
  std::vector<DimSpec> specs = dim_specs(g, links);
  Topology t = [&] {
    try {
      if (g.dims.empty()) return Topology::graph(g.name, npus, g.nodes, std::move(links));
      return Topology::switched(g.name, npus, g.nodes, std::move(links), std::move(specs),
                                routing);
    } catch (const core::InputError& e) {
      throw core::InputError(fmt::format("{}: {}", source, e.what()));
    }
  }();
  state->next.resize(npus);
  state->npus = npus;
  state->index(t);
  check_reachable(t, *state, source);
  t.set_graph_routing(routing, std::move(state));
  t.set_dims_label_graph(!g.dims.empty());
  t.set_switches_only_forward(true);  // as the routing above: a GPU never forwards
  return t;
}

Topology load_topology_file(const std::string& path, std::string_view field) {
  std::error_code ec;
  if (path.empty()) {
    throw core::InputError(fmt::format("{}: file: needs a path, e.g. file:fabric.json", field));
  }
  if (!std::filesystem::exists(path, ec)) {
    throw core::InputError(fmt::format("{}: no topology file \"{}\"", field, path));
  }
  const std::string text = core::read_input(path, "topology file");
  const ImportedGraph g = has_extension(path, {".json", ".yaml", ".yml"})
                              ? parse_json_topology(text, path)
                              : parse_simai_topology(text, path);
  return imported_topology(g, path);
}

TopologyForm file_form() {
  return {.name = "file",
          .syntax = "file:PATH",
          .example = "file:examples/topologies/Spectrum-X_16g_8gps_100Gbps_A100",
          .description =
              "a topology read from a graph file: collsim's JSON/YAML (*.json, *.yaml) or the "
              "text SimAI's topology generator writes (any other name); its links carry their "
              "own bandwidth and latency",
          .source = "docs/topology-import.md; SimAI (aliyun/SimAI) "
                    "gen_Topo_Template.py and its ns-3 frontend's reader",
          .args = FormArgs::Path,
          .own_links = true,
          .own_links_why = "its links are the file's",
          .build = [](const CompactArgs& a, core::Bandwidth, core::Time) {
            return load_topology_file(a.path, a.field);
          }};
}

}  // namespace collsim::topology
