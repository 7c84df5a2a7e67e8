// The dragonfly and dragonfly+ (dragonfly.hpp): builder, minimal and Valiant routing, and the
// compact form `dragonfly:GxAxP[:key=value...]`.
//   dragonfly:9x4x2                 Kim et al.'s balanced a = 2p = 2h example size: 9 groups of 4
//                                   routers with 2 NPUs each (72 NPUs), one link per group pair
//   dragonfly:9x4x2:routing=valiant the same with Valiant routing
//   dragonfly:5x4x4:group=leafspine dragonfly+: 4 leaves and 4 spines per group
#include "topology/dragonfly.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "topology/forms.hpp"

namespace collsim::topology {
namespace {

constexpr std::uint64_t kMaxNpus = 1u << 20;
constexpr std::uint64_t kMaxLinks = std::uint64_t{1} << 27;

// What the routing needs, fixed at build time (GraphRouting::state).
struct Plan {
  std::uint32_t groups = 0, routers = 0, terminals = 0, spines = 0;  // spines 0: flat groups
  std::uint32_t global = 1;  // c
  std::uint32_t per_owner = 1;  // h: global ports per router (spine)
  bool valiant = false;
  std::uint64_t seed = 0;
  NodeId npus = 0;

  NodeId router(std::uint32_t g, std::uint32_t r) const { return npus + g * routers + r; }
  NodeId spine(std::uint32_t g, std::uint32_t s) const {
    return npus + groups * routers + g * spines + s;
  }
  // The router (flat) or spine (leaf/spine) index of group g holding copy m of the link to o.
  std::uint32_t owner(std::uint32_t g, std::uint32_t o, std::uint32_t m) const {
    const std::uint32_t k = global * (o < g ? o : o - 1) + m;
    return k / per_owner;
  }
  // The node of group g where global ports live.
  NodeId global_node(std::uint32_t g, std::uint32_t o, std::uint32_t m) const {
    return spines == 0 ? router(g, owner(g, o, m)) : spine(g, owner(g, o, m));
  }
};

Plan plan_of(const DragonflySpec& s) {
  Plan p;
  p.groups = s.groups;
  p.routers = s.routers;
  p.terminals = s.terminals;
  p.spines = s.leaf_spine ? (s.spines == 0 ? s.routers : s.spines) : 0;
  p.global = s.global;
  const std::uint64_t ports = std::uint64_t{s.global} * (s.groups - 1);
  const std::uint32_t owners = s.leaf_spine ? p.spines : s.routers;
  p.per_owner = static_cast<std::uint32_t>((ports + owners - 1) / owners);
  p.valiant = s.valiant;
  p.seed = s.seed;
  p.npus = s.groups * s.routers * s.terminals;
  return p;
}

// splitmix64: a well-mixed, platform-independent hash.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::uint64_t pair_hash(const Plan& p, NodeId src, NodeId dst) {
  return mix((std::uint64_t{src} << 32 | dst) ^ mix(p.seed));
}

std::uint32_t valiant_group(const Plan& p, std::uint32_t gs, std::uint32_t gd, std::uint64_t h) {
  // The (h mod (G-2))-th group other than gs and gd, in id order.
  std::uint32_t gi = static_cast<std::uint32_t>(h % (p.groups - 2));
  const std::uint32_t lo = gs < gd ? gs : gd, hi = gs < gd ? gd : gs;
  if (gi >= lo) ++gi;
  if (gi >= hi) ++gi;
  return gi;
}

class Walker {
 public:
  Walker(const Topology& t, std::vector<LinkId>& out, NodeId at) : t_(t), out_(out), at_(at) {}
  void to(NodeId next) {
    if (next == at_) return;
    out_.push_back(t_.link_between(at_, next));
    at_ = next;
  }
  NodeId at() const { return at_; }

 private:
  const Topology& t_;
  std::vector<LinkId>& out_;
  NodeId at_;
};

// From a router, leaf or spine of group g to the node of g holding copy m of the link to group
// o, then across it. `via_leaf`: the leaf a spine-to-spine move inside a dragonfly+ group takes.
void cross(const Plan& p, Walker& w, std::uint32_t g, std::uint32_t o, std::uint32_t m,
           std::uint32_t via_leaf) {
  const NodeId exit = p.global_node(g, o, m);
  if (p.spines != 0 && w.at() != exit && w.at() >= p.spine(0, 0)) w.to(p.router(g, via_leaf));
  w.to(exit);
  w.to(p.global_node(o, g, m));
}

// From a node of group g to the router (leaf) `r` of g. Dragonfly+ leaf to leaf goes through
// spine `via_spine`.
void within(const Plan& p, Walker& w, std::uint32_t g, std::uint32_t r, std::uint32_t via_spine) {
  const NodeId target = p.router(g, r);
  if (w.at() == target) return;
  if (p.spines != 0 && w.at() < p.spine(0, 0)) w.to(p.spine(g, via_spine));
  w.to(target);
}

void route_dragonfly(const Topology& t, std::uint32_t, std::uint32_t, NodeId src, NodeId dst,
                     std::vector<LinkId>& out) {
  const Plan& p = *static_cast<const Plan*>(t.routing_state());
  const std::uint32_t per_group = p.routers * p.terminals;
  const std::uint32_t gs = src / per_group, gd = dst / per_group;
  const std::uint32_t rs = src / p.terminals % p.routers, rd = dst / p.terminals % p.routers;
  const std::uint64_t h = pair_hash(p, src, dst);
  const std::uint32_t spine = p.spines == 0 ? 0 : dst % p.spines;
  Walker w(t, out, src);
  w.to(p.router(gs, rs));
  if (gs != gd) {
    const std::uint32_t m1 = static_cast<std::uint32_t>((h >> 20) % p.global);
    if (p.valiant && p.groups >= 3) {
      const std::uint32_t gi = valiant_group(p, gs, gd, h);
      const std::uint32_t m2 = static_cast<std::uint32_t>((h >> 40) % p.global);
      cross(p, w, gs, gi, m1, 0);
      cross(p, w, gi, gd, m2, static_cast<std::uint32_t>((h >> 52) % p.routers));
    } else {
      cross(p, w, gs, gd, m1, 0);
    }
  }
  within(p, w, gd, rd, spine);
  w.to(dst);
}

// "400 Gb/s" -> "400Gb/s": a name without spaces, as written on the command line.
std::string compact(std::string text) {
  std::erase(text, ' ');
  return text;
}

std::string name_of(const DragonflySpec& s, const Plan& p) {
  std::string n = fmt::format("dragonfly:{}x{}x{}", s.groups, s.routers, s.terminals);
  if (s.global != 1) n += fmt::format(":global={}", s.global);
  if (s.leaf_spine) {
    n += ":group=leafspine";
    if (p.spines != s.routers) n += fmt::format(":spines={}", p.spines);
  }
  if (s.valiant) {
    n += ":routing=valiant";
    if (s.seed != 0) n += fmt::format(":seed={}", s.seed);
  }
  // Link figures that differ from the NPU links' (which the report gives on its own).
  if (s.local_bandwidth != s.terminal_bandwidth) {
    n += ":local_bandwidth=" + compact(core::to_string(s.local_bandwidth));
  }
  if (s.local_latency != s.terminal_latency) {
    n += ":local_latency=" + compact(core::to_string(s.local_latency));
  }
  if (s.global_bandwidth != s.terminal_bandwidth) {
    n += ":global_bandwidth=" + compact(core::to_string(s.global_bandwidth));
  }
  if (s.global_latency != s.terminal_latency) {
    n += ":global_latency=" + compact(core::to_string(s.global_latency));
  }
  return n;
}

}  // namespace

Topology dragonfly(const DragonflySpec& s) {
  if (s.groups < 2 || s.routers < 1 || s.terminals < 1) {
    throw core::InputError(fmt::format(
        "dragonfly: at least 2 groups, 1 router per group and 1 NPU per router, got {}x{}x{}",
        s.groups, s.routers, s.terminals));
  }
  if (s.global < 1) throw core::InputError("dragonfly: option global: must be >= 1");
  const std::uint64_t npus = std::uint64_t{s.groups} * s.routers * s.terminals;
  if (npus > kMaxNpus) {
    throw core::InputError(fmt::format("dragonfly:{}x{}x{}: {} NPUs, at most {}", s.groups,
                                       s.routers, s.terminals, npus, kMaxNpus));
  }
  const Plan p = plan_of(s);
  // Directed links before merging parallel ones: terminals, local, global.
  const std::uint64_t local = s.leaf_spine
                                  ? std::uint64_t{2} * s.groups * s.routers * p.spines
                                  : std::uint64_t{s.groups} * s.routers * (s.routers - 1);
  const std::uint64_t global = std::uint64_t{s.groups} * (s.groups - 1) * s.global;
  if (2 * npus + local + global > kMaxLinks) {
    throw core::InputError(fmt::format(
        "{}: {} directed links, at most {} are supported; use fewer groups, routers or global "
        "links",
        name_of(s, p), 2 * npus + local + global, kMaxLinks));
  }
  const auto n = static_cast<NodeId>(npus);
  std::vector<Link> links;
  links.reserve(2 * npus + local + global);
  auto both = [&](NodeId a, NodeId b, core::Bandwidth bw, core::Time lat) {
    links.push_back(Link{a, b, bw, lat, 0});
    links.push_back(Link{b, a, bw, lat, 0});
  };
  for (NodeId i = 0; i < n; ++i) {
    both(i, p.router(i / (s.routers * s.terminals), i / s.terminals % s.routers),
         s.terminal_bandwidth, s.terminal_latency);
  }
  for (std::uint32_t g = 0; g < s.groups; ++g) {
    for (std::uint32_t r = 0; r < s.routers; ++r) {
      if (s.leaf_spine) {
        for (std::uint32_t sp = 0; sp < p.spines; ++sp) {
          both(p.router(g, r), p.spine(g, sp), s.local_bandwidth, s.local_latency);
        }
      } else {
        for (std::uint32_t q = r + 1; q < s.routers; ++q) {
          both(p.router(g, r), p.router(g, q), s.local_bandwidth, s.local_latency);
        }
      }
    }
  }
  // Global links, parallel ones between one router pair merged into one of summed bandwidth.
  const std::size_t first_global = links.size();
  std::map<std::pair<NodeId, NodeId>, std::size_t> seen;
  for (std::uint32_t g = 0; g < s.groups; ++g) {
    for (std::uint32_t o = g + 1; o < s.groups; ++o) {
      for (std::uint32_t m = 0; m < s.global; ++m) {
        const NodeId a = p.global_node(g, o, m), b = p.global_node(o, g, m);
        const auto [it, fresh] = seen.emplace(std::make_pair(a, b), links.size());
        if (fresh) {
          both(a, b, s.global_bandwidth, s.global_latency);
        } else {
          links[it->second].bandwidth.bytes_per_s += s.global_bandwidth.bytes_per_s;
          links[it->second + 1].bandwidth.bytes_per_s += s.global_bandwidth.bytes_per_s;
        }
      }
    }
  }
  const std::uint64_t switches =
      std::uint64_t{s.groups} * s.routers + std::uint64_t{s.groups} * p.spines;
  Topology t = Topology::graph(name_of(s, p), n, static_cast<std::uint32_t>(npus + switches),
                               std::move(links));
  t.set_graph_routing(GraphRouting{&route_dragonfly, 0, 0}, std::make_shared<const Plan>(p));
  // Kim et al. Sec. 4.2: a packet moves to the next virtual-channel class on each global hop, so
  // its route's channels take strictly rising classes across groups and one group's local
  // channels (the only cycles, through the global links) cannot wait on each other in a cycle:
  // l-g-l (minimal) needs 2 classes, l-g-l-g-l (Valiant) 3. Dragonfly+ minimal routes need none:
  // they go up to a spine, across at most one global link and down, as in a fat tree, with no
  // cycle (its Valiant routes turn down then up in the intermediate group and do need them).
  const bool valiant = p.valiant && p.groups >= 3;
  if (p.spines == 0 || valiant) {
    std::vector<std::uint8_t> raises(t.links().size(), 0);
    std::fill(raises.begin() + static_cast<std::ptrdiff_t>(first_global), raises.end(), 1);
    t.set_vc_classes(valiant ? 3 : 2, std::move(raises));
  }
  return t;
}

NodeId dragonfly_router(const DragonflySpec& spec, std::uint32_t g, std::uint32_t r) {
  return plan_of(spec).router(g, r);
}

NodeId dragonfly_spine(const DragonflySpec& spec, std::uint32_t g, std::uint32_t s) {
  return plan_of(spec).spine(g, s);
}

std::uint32_t dragonfly_port_owner(const DragonflySpec& spec, std::uint32_t g, std::uint32_t o,
                                   std::uint32_t m) {
  return plan_of(spec).owner(g, o, m);
}

std::uint32_t dragonfly_valiant_group(const DragonflySpec& spec, NodeId src, NodeId dst) {
  const Plan p = plan_of(spec);
  const std::uint32_t per_group = p.routers * p.terminals;
  return valiant_group(p, src / per_group, dst / per_group, pair_hash(p, src, dst));
}

TopologyForm dragonfly_form() {
  return {
      .name = "dragonfly",
      .syntax = "dragonfly:GxAxP",
      .example = "dragonfly:9x4x2",
      .description =
          "dragonfly: G groups of A routers with P NPUs each, the routers of a group fully "
          "connected, `global` links (default 1) between every pair of groups (consecutive "
          "arrangement); routing=minimal|valiant (seed=N), group=leafspine (dragonfly+, "
          "spines=S, default A), local_/global_bandwidth and _latency (default the link's)",
      .source = "Kim et al., Technology-Driven, Highly-Scalable Dragonfly Topology (ISCA'08) "
                "Sec. 3-4; dragonfly+: Shpiner et al. (HiPINEB'17)",
      .args = FormArgs::Shape,
      .options = "global,routing,seed,group,spines,local_bandwidth,local_latency,"
                 "global_bandwidth,global_latency",
      .build = [](const CompactArgs& a, core::Bandwidth bw, core::Time lat) {
        if (a.sizes.size() != 3) {
          throw core::InputError(fmt::format(
              "{}: write dragonfly:GxAxP (groups x routers per group x NPUs per router), e.g. "
              "dragonfly:9x4x2; got \"{}\"",
              a.field, a.spec));
        }
        DragonflySpec s;
        s.groups = a.sizes[0];
        s.routers = a.sizes[1];
        s.terminals = a.sizes[2];
        s.global = a.option_uint("global", 1, 1, 1024);
        s.valiant = a.option_word("routing", "minimal", {"minimal", "valiant"}) == "valiant";
        s.seed = a.option_uint("seed", 0, 0, 0xffffffffu);
        s.leaf_spine = a.option_word("group", "full", {"full", "leafspine"}) == "leafspine";
        s.spines = a.option_uint("spines", 0, 1, 4096);
        if (a.option("spines") != nullptr && !s.leaf_spine) {
          throw core::InputError(fmt::format(
              "{}: option spines in \"{}\": only with group=leafspine (dragonfly+)", a.field,
              a.spec));
        }
        if (a.option("seed") != nullptr && !s.valiant) {
          throw core::InputError(fmt::format(
              "{}: option seed in \"{}\": only with routing=valiant", a.field, a.spec));
        }
        s.terminal_bandwidth = bw;
        s.terminal_latency = lat;
        s.local_bandwidth = a.option_bandwidth("local_bandwidth", bw);
        s.local_latency = a.option_time("local_latency", lat);
        s.global_bandwidth = a.option_bandwidth("global_bandwidth", bw);
        s.global_latency = a.option_time("global_latency", lat);
        return dragonfly(s);
      }};
}

}  // namespace collsim::topology
