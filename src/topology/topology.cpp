#include "topology/topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "topology/ring_order.hpp"

namespace collsim::topology {
namespace {

using core::InputError;

constexpr LinkId kNoLink = std::numeric_limits<LinkId>::max();
constexpr std::uint32_t kUnreached = std::numeric_limits<std::uint32_t>::max();
// Node ids and link ids are 32-bit with the top value reserved as "none". Links are also capped
// well below that so that an over-large spec (fc:60000 has 3.6e9 links) fails with a message
// instead of exhausting memory.
constexpr std::uint64_t kMaxNodes = std::numeric_limits<std::uint32_t>::max() - 1;
constexpr std::uint64_t kMaxLinks = kMaxLinksPerTopology;

bool bad_bandwidth(core::Bandwidth bw) {
  return !(bw.bytes_per_s > 0.0) || !std::isfinite(bw.bytes_per_s);
}

// Checks one dimension spec and returns it with links_per_npu resolved.
DimSpec checked_dim(DimSpec s, std::size_t i) {
  if (s.size < 2) {
    throw InputError(fmt::format("dims[{}].size: must be >= 2, got {}", i, s.size));
  }
  if (bad_bandwidth(s.bandwidth)) {
    throw InputError(
        fmt::format("dims[{}].bandwidth: must be > 0, got {} B/s", i, s.bandwidth.bytes_per_s));
  }
  if (s.latency.ps < 0) {
    throw InputError(fmt::format("dims[{}].latency: must be >= 0, got {} ps", i, s.latency.ps));
  }
  const DimKindTraits& k = traits(s.kind);
  if (s.links_per_npu == 0) s.links_per_npu = k.natural_links_per_npu(s.size);
  if (const std::string why = k.check_links_per_npu(s.size, s.links_per_npu); !why.empty()) {
    throw InputError(fmt::format("dims[{}].links_per_npu: {}", i, why));
  }
  return s;
}

// Counting sort of link ids by endpoint; ids within a node stay ascending, which the
// lowest-link-id tie-break of graph routing relies on.
void build_csr(std::uint32_t num_nodes, const std::vector<Link>& links, bool by_src,
               std::vector<std::uint32_t>& offsets, std::vector<LinkId>& ids) {
  offsets.assign(num_nodes + 1, 0);
  for (const Link& l : links) ++offsets[(by_src ? l.src : l.dst) + 1];
  for (std::uint32_t n = 0; n < num_nodes; ++n) offsets[n + 1] += offsets[n];
  ids.assign(links.size(), 0);
  std::vector<std::uint32_t> fill(offsets.begin(), offsets.end() - 1);
  for (LinkId id = 0; id < links.size(); ++id) {
    const Link& l = links[id];
    ids[fill[by_src ? l.src : l.dst]++] = id;
  }
}

void check_node(const Topology& t, NodeId n, const char* what) {
  if (n >= t.num_nodes()) {
    throw std::out_of_range(fmt::format("topology {}: {} node {} out of range (num_nodes {})",
                                        t.name(), what, n, t.num_nodes()));
  }
}

// Counts and per-link checks of validate(), usable before the adjacency exists.
void check_links(std::uint32_t num_npus, std::uint32_t num_nodes, const std::vector<Link>& links) {
  if (num_npus < 2) throw InputError(fmt::format("num_npus: must be >= 2, got {}", num_npus));
  if (num_nodes < num_npus) {
    throw InputError(
        fmt::format("num_nodes: must be >= num_npus ({}), got {}", num_npus, num_nodes));
  }
  if (links.size() > kMaxLinks) {
    throw InputError(
        fmt::format("links: at most {} links are supported, got {}", kMaxLinks, links.size()));
  }
  for (std::size_t i = 0; i < links.size(); ++i) {
    const Link& l = links[i];
    if (l.src >= num_nodes) {
      throw InputError(
          fmt::format("links[{}].src: node {} out of range (num_nodes {})", i, l.src, num_nodes));
    }
    if (l.dst >= num_nodes) {
      throw InputError(
          fmt::format("links[{}].dst: node {} out of range (num_nodes {})", i, l.dst, num_nodes));
    }
    if (l.src == l.dst) {
      throw InputError(fmt::format("links[{}]: src and dst are both node {}", i, l.src));
    }
    if (bad_bandwidth(l.bandwidth)) {
      throw InputError(
          fmt::format("links[{}].bandwidth: must be > 0, got {} B/s", i, l.bandwidth.bytes_per_s));
    }
    if (l.latency.ps < 0) {
      throw InputError(fmt::format("links[{}].latency: must be >= 0, got {} ps", i, l.latency.ps));
    }
  }
}

// BFS distances in hops from `from` along out-links (forward) or in-links (backward).
std::vector<std::uint32_t> bfs(const Topology& t, NodeId from, bool forward) {
  std::vector<std::uint32_t> dist(t.num_nodes(), kUnreached);
  std::vector<NodeId> queue;
  queue.reserve(t.num_nodes());
  dist[from] = 0;
  queue.push_back(from);
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const NodeId v = queue[head];
    for (LinkId id : forward ? t.out_links(v) : t.in_links(v)) {
      if (t.link_failed(id)) continue;
      const NodeId u = forward ? t.links()[id].dst : t.links()[id].src;
      if (dist[u] == kUnreached) {
        dist[u] = dist[v] + 1;
        queue.push_back(u);
      }
    }
  }
  return dist;
}

// Every NPU reaches every other iff all reach NPU 0 and NPU 0 reaches all: two BFS, O(links).
void check_connected(const Topology& t) {
  const auto from0 = bfs(t, 0, true);
  const auto to0 = bfs(t, 0, false);
  for (NodeId n = 1; n < t.num_npus(); ++n) {
    if (from0[n] == kUnreached) {
      throw InputError(fmt::format(
          "links: NPU {} is not reachable from NPU 0 (every NPU must reach every other)", n));
    }
    if (to0[n] == kUnreached) {
      throw InputError(fmt::format(
          "links: NPU 0 is not reachable from NPU {} (every NPU must reach every other)", n));
    }
  }
}

}  // namespace

Topology Topology::product(std::string name, std::vector<DimSpec> dims) {
  if (dims.empty()) throw InputError("dims: must have at least one dimension, got 0");
  std::uint64_t npus = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    dims[i] = checked_dim(dims[i], i);
    npus *= dims[i].size;
    if (npus > kMaxNodes) {
      throw InputError(fmt::format("{}: the product of the sizes (NPUs) must be <= {}", name,
                                   kMaxNodes));
    }
  }
  std::uint64_t num_links = 0;
  std::uint64_t num_switches = 0;
  for (const DimSpec& s : dims) {
    // Each term is < 2^64 as npus and size are < 2^32.
    num_links += traits(s.kind).directed_links(s.size, npus, s.links_per_npu);
    if (num_links > kMaxLinks) {
      throw InputError(fmt::format(
          "{}: {} NPUs need more than {} directed links, the most collsim supports; use fewer NPUs",
          name, npus, kMaxLinks));
    }
    if (traits(s.kind).wiring == Wiring::Star) num_switches += npus / s.size;
    if (traits(s.kind).wiring == Wiring::Stars) num_switches += npus / s.size * s.links_per_npu;
  }
  if (npus + num_switches > kMaxNodes) {
    throw InputError(
        fmt::format("{}: {} nodes (NPUs and switches), at most {} are supported", name,
                    npus + num_switches, kMaxNodes));
  }

  Topology t;
  t.name_ = std::move(name);
  t.num_npus_ = static_cast<std::uint32_t>(npus);
  t.num_nodes_ = static_cast<std::uint32_t>(npus + num_switches);
  t.links_.reserve(num_links);
  const std::size_t nd = dims.size();
  t.strides_.resize(nd);
  t.plus_link_.resize(nd);
  t.minus_link_.resize(nd);
  t.up_link_.resize(nd);
  t.down_link_.resize(nd);
  t.fc_base_.resize(nd);
  std::uint32_t stride = 1;
  NodeId next_switch = t.num_npus_;
  for (std::uint32_t d = 0; d < nd; ++d) {
    const DimSpec& s = dims[d];
    const std::uint32_t n = s.size;
    t.strides_[d] = stride;
    const DimKindTraits& kind = traits(s.kind);
    const core::Bandwidth bw = kind.directed_bandwidth(s.bandwidth, n, s.links_per_npu);
    auto add = [&](NodeId from, NodeId to) {
      t.links_.push_back(Link{from, to, bw, s.latency, d});
      return static_cast<LinkId>(t.links_.size() - 1);
    };
    switch (kind.wiring) {
      case Wiring::Neighbours:
        if (kind.forward) t.plus_link_[d].assign(npus, kNoLink);
        if (kind.backward) t.minus_link_[d].assign(npus, kNoLink);
        break;
      case Wiring::AllPairs:
        t.fc_base_[d].assign(npus, kNoLink);
        break;
      case Wiring::Star:
      case Wiring::Stars:
        t.up_link_[d].assign(npus, kNoLink);
        t.down_link_[d].assign(npus, kNoLink);
        break;
    }

    Dimension dim;
    dim.name = "dim" + std::to_string(d);
    dim.spec = s;
    const std::uint32_t num_groups = t.num_npus_ / n;
    dim.groups.reserve(num_groups);
    // Group g holds the NPUs whose other coordinates are the mixed-radix digits of g (lower
    // dimensions fastest), so groups come out ordered by their first NPU.
    for (std::uint32_t g = 0; g < num_groups; ++g) {
      const NodeId base = g % stride + (g / stride) * stride * n;
      std::vector<NodeId> m(n);
      for (std::uint32_t i = 0; i < n; ++i) m[i] = base + i * stride;
      for (std::uint32_t i = 0; i < n; ++i) {
        const NodeId a = m[i];
        switch (kind.wiring) {
          case Wiring::Neighbours:
            if (kind.forward && kind.backward && kind.wraps && n == 2) {
              // The +1 and -1 neighbours coincide: one link each way serves both tables.
              t.plus_link_[d][a] = t.minus_link_[d][a] = add(a, m[1 - i]);
              break;
            }
            if (kind.forward && (kind.wraps || i + 1 < n)) {
              t.plus_link_[d][a] = add(a, m[(i + 1) % n]);
            }
            if (kind.backward && (kind.wraps || i > 0)) {
              t.minus_link_[d][a] = add(a, m[(i + n - 1) % n]);
            }
            break;
          case Wiring::AllPairs:
            // Peers in coordinate order, skipping self: the link to peer j is base + j - (j > i).
            t.fc_base_[d][a] = static_cast<LinkId>(t.links_.size());
            for (std::uint32_t j = 0; j < n; ++j) {
              if (j != i) add(a, m[j]);
            }
            break;
          case Wiring::Star:
            t.up_link_[d][a] = add(a, next_switch);
            t.down_link_[d][a] = add(next_switch, a);
            break;
          case Wiring::Stars:
            // Switch j of the group is next_switch + j; its up and down links to NPU a are
            // up_link_ + 2 j and up_link_ + 2 j + 1.
            t.up_link_[d][a] = static_cast<LinkId>(t.links_.size());
            for (std::uint32_t j = 0; j < s.links_per_npu; ++j) {
              add(a, next_switch + j);
              add(next_switch + j, a);
            }
            break;
        }
      }
      if (kind.wiring == Wiring::Star) ++next_switch;
      if (kind.wiring == Wiring::Stars) next_switch += s.links_per_npu;
      dim.groups.push_back(std::move(m));
    }
    t.dims_.push_back(std::move(dim));
    stride *= n;
  }
  t.finish();
  return t;
}

Topology Topology::graph(std::string name, std::uint32_t num_npus, std::uint32_t num_nodes,
                         std::vector<Link> links) {
  check_links(num_npus, num_nodes, links);
  Topology t;
  t.name_ = std::move(name);
  t.num_npus_ = num_npus;
  t.num_nodes_ = num_nodes;
  t.links_ = std::move(links);
  t.finish();
  check_connected(t);
  return t;
}

Topology Topology::switched(std::string name, std::uint32_t num_npus, std::uint32_t num_nodes,
                            std::vector<Link> links, std::vector<DimSpec> dims,
                            const GraphRouting& routing) {
  check_links(num_npus, num_nodes, links);
  if (dims.empty()) throw InputError(fmt::format("{}: dims: at least one dimension", name));
  std::uint64_t npus = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    dims[i] = checked_dim(dims[i], i);
    npus *= dims[i].size;
  }
  if (npus != num_npus) {
    throw InputError(fmt::format("{}: the dimension sizes multiply to {} NPUs, not {}", name,
                                 npus, num_npus));
  }
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (links[i].dim >= dims.size()) {
      throw InputError(fmt::format("{}: links[{}].dim: {} out of range ({} dimensions)", name, i,
                                   links[i].dim, dims.size()));
    }
  }
  Topology t;
  t.name_ = std::move(name);
  t.num_npus_ = num_npus;
  t.num_nodes_ = num_nodes;
  t.links_ = std::move(links);
  t.graph_routing_ = routing;
  std::uint32_t stride = 1;
  for (std::uint32_t d = 0; d < dims.size(); ++d) {
    const std::uint32_t n = dims[d].size;
    t.strides_.push_back(stride);
    Dimension dim;
    dim.name = "dim" + std::to_string(d);
    dim.spec = dims[d];
    const std::uint32_t num_groups = num_npus / n;
    dim.groups.reserve(num_groups);
    for (std::uint32_t g = 0; g < num_groups; ++g) {  // as product(): ordered by first NPU
      const NodeId base = g % stride + (g / stride) * stride * n;
      std::vector<NodeId> m(n);
      for (std::uint32_t i = 0; i < n; ++i) m[i] = base + i * stride;
      dim.groups.push_back(std::move(m));
    }
    t.dims_.push_back(std::move(dim));
    stride *= n;
  }
  t.finish();
  check_connected(t);
  return t;
}

const SwitchReduction* Topology::in_network(NodeId sw) const {
  if (sw >= in_network_at_.size() || in_network_at_[sw] == UINT32_MAX) return nullptr;
  return &in_network_[in_network_at_[sw]].second;
}

void Topology::set_in_network(NodeId sw, const SwitchReduction& spec, std::string_view field) {
  if (sw < num_npus_ || sw >= num_nodes_) {
    throw core::InputError(fmt::format("{}: node {} of {} is not a switch", field, sw, name_));
  }
  if (!(spec.port_bandwidth.bytes_per_s > 0) || spec.latency < core::Time{}) {
    throw core::InputError(fmt::format(
        "{}: in-network reduction needs a port bandwidth > 0 and a latency >= 0", field));
  }
  // Indexed by node (railfat with reduce= and sharp= has a reducing switch per node and leaf).
  if (in_network_at_.empty()) in_network_at_.assign(num_nodes_, UINT32_MAX);
  if (in_network_at_[sw] != UINT32_MAX) {
    in_network_[in_network_at_[sw]].second = spec;
    return;
  }
  in_network_at_[sw] = static_cast<std::uint32_t>(in_network_.size());
  in_network_.emplace_back(sw, spec);
}

void Topology::set_ni_latency(core::Time t, std::string_view field) {
  if (t < core::Time{}) {
    throw core::InputError(fmt::format("{}: the NI latency must be >= 0", field));
  }
  ni_latency_ = t;
}

void Topology::set_vc_classes(std::uint32_t classes, std::vector<std::uint8_t> raises) {
  if (classes == 0 || raises.size() != links_.size()) {
    throw core::InputError(fmt::format(
        "{}: virtual-channel classes: need >= 1 class and one entry per link ({}), got {} and {}",
        name_, links_.size(), classes, raises.size()));
  }
  vc_classes_ = classes;
  vc_raises_ = std::move(raises);
}

void Topology::set_npu_links(std::optional<core::Bandwidth> bw, std::optional<core::Time> lat,
                             std::string_view field) {
  if (num_switches() == 0) {
    throw core::InputError(fmt::format(
        "{}: {} has no switches (every link joins two NPUs); use the link bandwidth and latency",
        field, name_));
  }
  for (Link& l : links_) {
    if (is_npu(l.src) == is_npu(l.dst)) continue;
    if (bw) l.bandwidth = *bw;
    if (lat) l.latency = *lat;
  }
}

void Topology::finish() {
  build_csr(num_nodes_, links_, true, out_offsets_, out_ids_);
  build_csr(num_nodes_, links_, false, in_offsets_, in_ids_);
  next_hop_.assign(num_nodes_, {});
  detail::RingOrder r = detail::compute_ring_order(*this);
  ring_order_ = std::move(r.order);
  ring_is_cycle_ = r.is_cycle;
}

std::span<const LinkId> Topology::out_links(NodeId n) const {
  check_node(*this, n, "out_links:");
  return {out_ids_.data() + out_offsets_[n], out_offsets_[n + 1] - out_offsets_[n]};
}

std::span<const LinkId> Topology::in_links(NodeId n) const {
  check_node(*this, n, "in_links:");
  return {in_ids_.data() + in_offsets_[n], in_offsets_[n + 1] - in_offsets_[n]};
}

std::vector<std::uint32_t> Topology::coords(NodeId npu) const {
  if (npu >= num_npus_) {
    throw std::out_of_range(
        fmt::format("topology {}: coords: {} is not an NPU (num_npus {})", name_, npu, num_npus_));
  }
  std::vector<std::uint32_t> c;
  c.reserve(dims_.size());
  for (std::size_t d = 0; d < dims_.size(); ++d) {
    c.push_back(npu / strides_[d] % dims_[d].spec.size);
  }
  return c;
}

NodeId Topology::npu_at(std::span<const std::uint32_t> coords) const {
  if (dims_.empty() || coords.size() != dims_.size()) {
    throw std::out_of_range(fmt::format("topology {}: npu_at: {} coordinates for {} dimensions",
                                        name_, coords.size(), dims_.size()));
  }
  NodeId id = 0;
  for (std::size_t d = 0; d < dims_.size(); ++d) {
    if (coords[d] >= dims_[d].spec.size) {
      throw std::out_of_range(fmt::format("topology {}: npu_at: coordinate {} is {}, size {}",
                                          name_, d, coords[d], dims_[d].spec.size));
    }
    id += coords[d] * strides_[d];
  }
  return id;
}

const char* to_string(RingTie t) { return t == RingTie::Plus ? "plus" : "parity"; }

RingTie parse_ring_tie(std::string_view text, std::string_view field) {
  if (text == "parity") return RingTie::Parity;
  if (text == "plus") return RingTie::Plus;
  throw core::InputError(
      fmt::format("{}: unknown ring tie rule \"{}\"; valid: parity (even source coordinates go "
                  "+1, odd -1), plus (always +1)",
                  field, text));
}

LinkId Topology::link_between(NodeId a, NodeId b) const {
  for (LinkId l : out_links(a)) {
    if (links_[l].dst == b) return l;
  }
  throw std::out_of_range(fmt::format("topology {}: no link {} -> {}", name_, a, b));
}

const char* to_string(LocalSwitchRule r) {
  return r == LocalSwitchRule::Source ? "source" : "distance";
}

LocalSwitchRule parse_local_switch_rule(std::string_view text, std::string_view field) {
  if (text == "distance") return LocalSwitchRule::Distance;
  if (text == "source") return LocalSwitchRule::Source;
  throw core::InputError(
      fmt::format("{}: unknown local-switch rule \"{}\"; valid: distance (switch (t - s - 1) mod "
                  "k: an NPU's peers spread over its switches), source (switch s mod k: every "
                  "pair of a step on its own switch when k = n)",
                  field, text));
}

void Topology::route(NodeId src, NodeId dst, std::vector<LinkId>& out, std::uint8_t path) const {
  check_node(*this, src, "route: source");
  check_node(*this, dst, "route: destination");
  if (src == dst) return;
  if (graph_routing_.route != nullptr && is_npu(src) && is_npu(dst)) {
    const std::size_t start = out.size();
    graph_routing_.route(*this, graph_routing_.a, graph_routing_.b, src, dst, out);
    if (failed_.empty() ||
        std::none_of(out.begin() + static_cast<std::ptrdiff_t>(start), out.end(),
                     [this](LinkId l) { return failed_[l] != 0; })) {
      return;
    }
    out.resize(start);  // the rule's route crosses a failed link: the remaining shortest path
  }
  if (graph_routed() || dims_label_graph_ || !is_npu(src) || !is_npu(dst)) {
    route_graph(src, dst, out);
    return;
  }
  // Dimension-order routing: earlier dimensions are already corrected, so the current node's
  // coordinate in dimension d is still src's.
  NodeId cur = src;
  for (std::size_t d = 0; d < dims_.size(); ++d) {
    const DimSpec& spec = dims_[d].spec;
    const std::uint32_t stride = strides_[d];
    const std::uint32_t n = spec.size;
    const std::uint32_t s = cur / stride % n;
    const std::uint32_t t = dst / stride % n;
    if (s == t) continue;
    auto walk = [&](const std::vector<LinkId>& table, std::uint32_t steps) {
      for (std::uint32_t k = 0; k < steps; ++k) {
        const LinkId l = table[cur];
        out.push_back(l);
        cur = links_[l].dst;
      }
    };
    const std::uint32_t fwd = (t + n - s) % n;
    switch (spec.kind) {
      case DimKind::Ring:
        // Shorter way round; at exactly half way the tie rule decides.
        if (2 * fwd < n || (2 * fwd == n && (ring_tie_ == RingTie::Plus || s % 2 == 0))) {
          walk(plus_link_[d], fwd);
        } else {
          walk(minus_link_[d], n - fwd);
        }
        break;
      case DimKind::UniRing:
        walk(plus_link_[d], fwd);
        break;
      case DimKind::Line:
        if (t > s) {
          walk(plus_link_[d], t - s);
        } else {
          walk(minus_link_[d], s - t);
        }
        break;
      case DimKind::FullyConnected: {
        const LinkId l = fc_base_[d][cur] + (t < s ? t : t - 1);
        out.push_back(l);
        cur = links_[l].dst;
        break;
      }
      case DimKind::Switch: {
        const NodeId next = cur - s * stride + t * stride;
        out.push_back(up_link_[d][cur]);
        out.push_back(down_link_[d][next]);
        cur = next;
        break;
      }
      case DimKind::LocalSwitches: {
        const std::uint32_t k = spec.links_per_npu;
        std::uint32_t j = local_switch_ == LocalSwitchRule::Source ? s % k : (fwd - 1) % k;
        if (path != kAnyPath) j = (j + path) % k;
        const NodeId next = cur - s * stride + t * stride;
        const LinkId up = up_link_[d][cur] + 2 * j;
        out.push_back(up);
        // The switch's down link to `next`: that NPU's block of 2 k links, entry 2 j + 1.
        out.push_back(up_link_[d][next] + 2 * j + 1);
        cur = next;
        break;
      }
    }
  }
}

std::vector<LinkId> Topology::route(NodeId src, NodeId dst) const {
  std::vector<LinkId> out;
  route(src, dst, out);
  return out;
}

const std::vector<LinkId>& Topology::next_hops(NodeId dst) const {
  std::lock_guard<std::mutex> lock(next_hop_lock_.mu);
  std::vector<LinkId>& nh = next_hop_[dst];
  if (!nh.empty()) return nh;  // filled once, never changed after, so safe to read unlocked
  // BFS toward dst on reversed links, then each node takes its lowest-id link that gets one
  // hop closer (out_ids_ is ascending per node), so ties break toward the lower link id.
  const auto dist = bfs(*this, dst, false);
  nh.assign(num_nodes_, kNoLink);
  for (NodeId u = 0; u < num_nodes_; ++u) {
    if (u == dst || dist[u] == kUnreached) continue;
    for (LinkId id : out_links(u)) {
      if (link_failed(id)) continue;
      if (dist[links_[id].dst] + 1 == dist[u]) {
        nh[u] = id;
        break;
      }
    }
  }
  return nh;
}

void Topology::route_graph(NodeId src, NodeId dst, std::vector<LinkId>& out) const {
  const std::vector<LinkId>& nh = next_hops(dst);
  for (NodeId cur = src; cur != dst;) {
    const LinkId l = nh[cur];
    if (l == kNoLink) {
      throw std::out_of_range(
          fmt::format("topology {}: route: node {} cannot reach node {}", name_, src, dst));
    }
    out.push_back(l);
    cur = links_[l].dst;
  }
}

std::uint32_t Topology::hops(NodeId src, NodeId dst) const {
  check_node(*this, src, "hops: source");
  check_node(*this, dst, "hops: destination");
  if (src == dst) return 0;
  if (graph_routing_.route != nullptr && is_npu(src) && is_npu(dst)) {
    std::vector<LinkId> r;
    route(src, dst, r);  // the rule's route, or with failed links the remaining shortest path
    return static_cast<std::uint32_t>(r.size());
  }
  if (dims_.empty() || !is_npu(src) || !is_npu(dst)) {
    const std::vector<LinkId>& nh = next_hops(dst);
    std::uint32_t h = 0;
    for (NodeId cur = src; cur != dst; ++h) {
      if (nh[cur] == kNoLink) {
        throw std::out_of_range(
            fmt::format("topology {}: hops: node {} cannot reach node {}", name_, src, dst));
      }
      cur = links_[nh[cur]].dst;
    }
    return h;
  }
  std::uint32_t h = 0;
  for (std::size_t d = 0; d < dims_.size(); ++d) {
    const DimSpec& spec = dims_[d].spec;
    const std::uint32_t s = src / strides_[d] % spec.size, t = dst / strides_[d] % spec.size;
    if (s != t) h += traits(spec.kind).hops(spec.size, s, t);
  }
  return h;
}

std::uint32_t Topology::diameter() const { return diameter(num_npus_); }

std::uint32_t Topology::diameter(std::uint32_t sources) const {
  // Dimension-order routes add up per dimension and each dimension's worst case is reachable
  // independently, so a product's diameter is the sum of its dimensions' diameters.
  if (!dims_.empty() && graph_routing_.route == nullptr) {
    std::uint32_t h = 0;
    for (const Dimension& d : dims_) h += traits(d.spec.kind).diameter(d.spec.size);
    return h;
  }
  std::uint32_t h = 0;
  const std::uint64_t n = num_npus_, k = std::min<std::uint64_t>(std::max(sources, 1u), n);
  for (std::uint64_t i = 0; i < k; ++i) {
    const auto dist = bfs(*this, static_cast<NodeId>(i * n / k), true);
    for (NodeId b = 0; b < num_npus_; ++b) {
      if (dist[b] != kUnreached) h = std::max(h, dist[b]);
    }
  }
  return h;
}

void Topology::fail_links(std::span<const LinkId> links, std::string_view field) {
  if (!graph_routed() && !dims_label_graph_) {
    throw InputError(fmt::format(
        "{}: {} routes dimension-order, which cannot go round a failed link; link failures "
        "apply to graph-routed topologies (fattree, bigraph, dragonfly, railfat, imported "
        "graphs, ...)",
        field, name_));
  }
  std::vector<std::uint8_t> failed(links_.size(), 0);
  std::vector<LinkId> list;
  for (LinkId l : links) {
    if (l >= links_.size()) {
      throw InputError(fmt::format("{}: link {} out of range ({} has {} directed links)", field,
                                   l, name_, links_.size()));
    }
    if (failed[l] == 0) list.push_back(l);
    failed[l] = 1;
  }
  std::sort(list.begin(), list.end());
  std::swap(failed_, failed);
  failed_list_ = std::move(list);
  if (failed_list_.empty()) failed_.clear();
  next_hop_.assign(num_nodes_, {});
  const auto from0 = bfs(*this, 0, true);
  const auto to0 = bfs(*this, 0, false);
  for (NodeId n = 1; n < num_npus_; ++n) {
    if (from0[n] == kUnreached || to0[n] == kUnreached) {
      const NodeId a = from0[n] == kUnreached ? 0 : n, b = from0[n] == kUnreached ? n : 0;
      throw InputError(fmt::format(
          "{}: with these links failed NPU {} can no longer reach NPU {} ({} of {}'s links "
          "failed); every NPU must reach every other",
          field, a, b, failed_list_.size(), name_));
    }
  }
}

void validate(const Topology& t) {
  check_links(t.num_npus(), t.num_nodes(), t.links());
  check_connected(t);
}

}  // namespace collsim::topology
