// The rail-optimised leaf/spine fabric of GPU clusters (`railfat:NxG`): N nodes of G GPUs, a
// scale-up switch (NVSwitch) inside each node, one NIC per GPU, and NIC i of every node on rail i,
// a leaf/spine tree of its own (NVIDIA DGX SuperPOD reference architecture: one leaf switch per
// rail per scalable unit; gpu_systems/sources.hpp kRailOptimised). With planes=2 each NIC's
// ports are split over two planes, each with half the NIC's bandwidth and its own leaves and
// spines. docs/fabrics.md describes the form, its defaults and their sources.
//
// Node ids: NPU r = node * G + gpu (rank order), then the N scale-up switches (node a's is
// N*G + a), then for each rail r and plane p a block of L leaves and S spines.
// Dimensions: dim0 = the G GPUs of a node (a switch of G: the scale-up), dim1 = the N GPUs of one
// rail (a switch-like dimension of N: the rail's leaf/spine tree), so `-a hierarchical` reduces
// inside the node first and then along each rail, and every dim1 message stays on its rail.
//
// Routing (deterministic, route_rail below):
//   same node: GPU -> scale-up switch -> GPU;
//   other node, other GPU index: first over the scale-up switch to the GPU of the source node on
//     the destination's rail (as NCCL's PXN does), then along that rail;
//   along a rail from node a to node b: with two planes, b k nodes ahead of a in cyclic order
//     (1 <= k <= N/2) takes plane (k - 1) mod 2 and b k nodes behind (k < N/2) plane k mod 2, so
//     a ring's two neighbours are on different planes (a bidirectional ring sends forward on
//     plane 0, backward on plane 1) and a node's peers at growing distance alternate planes
//     (an all-to-all among nearby nodes, an MoE expert group, spreads evenly); then
//     NIC -> leaf of a -> [spine (b mod S), d-mod-k] -> leaf of b -> NIC.
//   A single-partner step (halving-doubling) sends each message on one plane, half its NIC:
//   a message takes one path, and spreading one message over both planes is multipath's job
//   (rail_paths below: the equal-cost paths over both planes and every spine).
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "topology/builders.hpp"
#include "topology/forms.hpp"
#include "topology/gpu_systems/gpu_system.hpp"

namespace collsim::topology {
namespace {

// NCCL 2.2x tuner (src/graph/tuning.cc), Hopper, Simple protocol: hardware latency per NVLink
// step of a ring, 3.4 us (the collective/nccl model's protocol_costs uses the same figure).
constexpr double kNvlinkStepSeconds = 3.4e-6;
// NVIDIA Quantum-2 QM9700 / Spectrum-4 SN5600 class switches: 64 ports (400 Gb/s NDR and
// 800 Gb/s Ethernet respectively), the leaf and spine of the DGX SuperPOD reference designs.
constexpr std::uint32_t kDefaultRadix = 64;

// a = nodes per leaf (the leaf's down ports); b = spines per rail-plane * 4 + planes.
// Link ids follow the build order of rail_fat_tree() below, so a route costs no search:
//   2 r, 2 r + 1: NPU r up to / down from its node's scale-up switch;
//   then per rail and plane a block of 2 N NIC links (node a: 2 a up, 2 a + 1 down) and
//   2 L S trunk links (leaf l, spine s: 2 (l S + s) up, + 1 down).
void route_rail(const Topology& t, std::uint32_t per_leaf, std::uint32_t packed, NodeId src,
                NodeId dst, std::vector<LinkId>& out) {
  const auto& dims = t.dimensions();
  const std::uint32_t g = dims[0].spec.size, nodes = dims[1].spec.size;
  const std::uint32_t spines = packed >> 2, planes = packed & 3;
  const NodeId n = t.num_npus();
  const std::uint32_t na = src / g, nb = dst / g, gb = dst % g;
  if (src % g != gb) {  // scale-up first, to the source node's GPU on the destination's rail
    out.push_back(2 * src);
    out.push_back(2 * (na * g + gb) + 1);
  }
  if (na == nb) return;
  // Plane: k nodes ahead (k <= N/2, cyclic) -> (k - 1) mod 2; k nodes behind -> k mod 2.
  const std::uint32_t ahead = (nb + nodes - na) % nodes;
  const std::uint32_t plane = planes == 1          ? 0
                              : 2 * ahead <= nodes ? (ahead - 1) % 2
                                                   : (nodes - ahead) % 2;
  const std::uint32_t leaves = (nodes + per_leaf - 1) / per_leaf;
  const LinkId block = 2 * n + (gb * planes + plane) * (2 * nodes + 2 * leaves * spines);
  const std::uint32_t la = na / per_leaf, lb = nb / per_leaf;
  out.push_back(block + 2 * na);
  if (la != lb) {
    const std::uint32_t spine = nb % spines;
    out.push_back(block + 2 * nodes + 2 * (la * spines + spine));
    out.push_back(block + 2 * nodes + 2 * (lb * spines + spine) + 1);
  }
  out.push_back(block + 2 * nb + 1);
}

// The equal-cost paths between NPUs (Topology::set_equal_cost_paths), numbered as
// topology/equal_cost_paths.hpp numbers them from the link ids above (its tables would take
// 12 bytes per node per destination NPU: ~4 GB at 2048x8:planes=2). With S' = S spines when the
// two nodes' leaves differ, else 1, a rail carries P = planes x S' paths between two nodes: plane
// j / S', spine j mod S'. Same node: the scale-up switch (1 path). Same rail: the P rail paths.
// Other rail: the route's PXN (the source node's scale-up switch, then the destination's rail),
// then its P rail paths. The graph also has P paths as short the other way round (the source's
// rail, then the destination node's scale-up switch); they are left out, as they would make a
// GPU forward leaf -> scale-up as well as scale-up -> leaf, a cycle of channel dependencies: the
// packet backend's direct all-to-all on railfat:4x8:planes=2 deadlocked with them.
std::uint64_t rail_paths(const Topology& t, NodeId src, NodeId dst, std::uint64_t index,
                         std::vector<LinkId>* out) {
  const auto& dims = t.dimensions();
  const std::uint32_t g = dims[0].spec.size, nodes = dims[1].spec.size;
  const std::uint32_t per_leaf = t.graph_routing().a, packed = t.graph_routing().b;
  const std::uint32_t spines = packed >> 2, planes = packed & 3;
  const NodeId n = t.num_npus();
  const std::uint32_t na = src / g, nb = dst / g, ga = src % g, gb = dst % g;
  if (na == nb) {
    if (out != nullptr) {
      out->push_back(2 * src);
      out->push_back(2 * dst + 1);
    }
    return 1;
  }
  const std::uint32_t leaves = (nodes + per_leaf - 1) / per_leaf;
  const std::uint32_t la = na / per_leaf, lb = nb / per_leaf;
  const std::uint64_t sp = la == lb ? 1 : spines;
  const std::uint64_t total = planes * sp;
  if (out == nullptr) return total;
  const std::uint64_t i = index % total;
  auto along = [&](std::uint32_t gpu, std::uint64_t j) {
    const auto plane = static_cast<std::uint32_t>(j / sp);
    const auto spine = static_cast<std::uint32_t>(j % sp);
    const LinkId block = 2 * n + (gpu * planes + plane) * (2 * nodes + 2 * leaves * spines);
    out->push_back(block + 2 * na);
    if (la != lb) {
      out->push_back(block + 2 * nodes + 2 * (la * spines + spine));
      out->push_back(block + 2 * nodes + 2 * (lb * spines + spine) + 1);
    }
    out->push_back(block + 2 * nb + 1);
  };
  if (ga != gb) {
    out->push_back(2 * src);
    out->push_back(2 * (na * g + gb) + 1);
  }
  along(gb, i);
  return total;
}

// reduce=system|F: every node's scale-up switch (node N*G + a) offers in-network reduction and
// multicast (NVLS) at the system's NVLS efficiency (NCCL's tuner, gpu_system.hpp) or F x the
// scale-up rate per port, with reduce_latency per operation.
void add_node_reduction(Topology& t, const CompactArgs& a, const GpuSystem& sys,
                        const RailFatTreeSpec& s) {
  const std::string* reduce = a.option("reduce");
  if (reduce == nullptr) {
    if (a.option("reduce_latency") != nullptr) {
      throw core::InputError(fmt::format(
          "{}: option reduce_latency in \"{}\" needs reduce=system or reduce=F", a.field,
          a.spec));
    }
    return;
  }
  double fraction = 0;
  if (*reduce == "system") {
    fraction = sys.nvls.efficiency.value;
    if (!(fraction > 0)) {
      throw core::InputError(fmt::format(
          "{}: option reduce=system in \"{}\": the {} system's NVSwitch has no in-network "
          "reduction (NVLS); give reduce=F for a hypothetical one",
          a.field, a.spec, sys.name));
    }
  } else {
    fraction = a.option_number("reduce", 1);
  }
  const core::Time latency = a.option_time("reduce_latency", core::Time{});
  for (std::uint32_t node = 0; node < s.nodes; ++node) {
    t.set_in_network(t.num_npus() + node,
                     {core::Bandwidth{fraction * s.scaleup.bytes_per_s}, latency}, a.field);
  }
}

// sharp=line|RATE: every leaf switch of every rail and plane offers in-network reduction and
// multicast (InfiniBand SHARP, as NCCL's CollNet uses it) at the NIC port's rate ("line":
// NVIDIA documents SHARPv2/v3 streaming aggregation at wire speed but no separate throughput
// figure) or RATE per port, with sharp_latency per operation. Leaves are the first L nodes of
// each rail-plane block of L leaves and S spines, after the NPUs and the node switches.
void add_leaf_sharp(Topology& t, const CompactArgs& a, const RailFatTreeSpec& s) {
  const std::string* sharp = a.option("sharp");
  if (sharp == nullptr) {
    if (a.option("sharp_latency") != nullptr) {
      throw core::InputError(fmt::format(
          "{}: option sharp_latency in \"{}\" needs sharp=line or sharp=RATE", a.field,
          a.spec));
    }
    return;
  }
  const core::Bandwidth port{s.nic.bytes_per_s / s.planes};
  const core::Bandwidth rate =
      *sharp == "line" ? port : a.option_bandwidth("sharp", core::Bandwidth{});
  const core::Time latency = a.option_time("sharp_latency", core::Time{});
  const std::uint32_t npus = t.num_npus();
  // Leaves and spines per rail-plane: the switches after the node switches, evenly.
  const std::uint32_t per_block =
      (t.num_nodes() - npus - s.nodes) / (s.gpus * s.planes);
  for (std::uint32_t b = 0; b < s.gpus * s.planes; ++b) {
    const std::uint32_t first = npus + s.nodes + b * per_block;
    for (std::uint32_t sw = first; sw < first + per_block; ++sw) {
      bool leaf = false;  // a leaf has NIC links; a spine has none
      for (LinkId l : t.in_links(sw)) leaf = leaf || t.is_npu(t.links()[l].src);
      if (leaf) t.set_in_network(sw, {rate, latency}, a.field);
    }
  }
}

std::string name_of(const CompactArgs& a) {
  std::string s = fmt::format("railfat:{}x{}", a.sizes[0], a.sizes[1]);
  for (const FormOption& o : a.options) s += fmt::format(":{}={}", o.key, o.value);
  return s;
}

}  // namespace

Topology rail_fat_tree(const RailFatTreeSpec& s, std::string name) {
  auto fail = [&](const std::string& why) {
    throw core::InputError(fmt::format("{}: {}", name, why));
  };
  if (s.nodes < 2 || s.gpus < 2) fail("needs 2 or more nodes of 2 or more GPUs");
  if (s.planes < 1 || s.planes > 2) fail(fmt::format("planes must be 1 or 2, got {}", s.planes));
  if (s.radix < 2) fail(fmt::format("leaf radix must be >= 2 ports, got {}", s.radix));
  if (!(s.oversub >= 1.0))
    fail(fmt::format("oversub must be >= 1 (1 = non-blocking), got {}", s.oversub));
  const std::uint64_t npus = std::uint64_t{s.nodes} * s.gpus;
  if (npus > (1u << 20)) fail("at most 1048576 GPUs");
  const auto n = static_cast<NodeId>(npus);
  const std::uint32_t nodes = s.nodes;
  // One leaf holds every node when its ports suffice; else the leaf splits its ports into
  // down : up = oversub : 1 and spines join the leaves.
  std::uint32_t per_leaf = nodes, up = 0, spines = 0;
  if (nodes > s.radix) {
    per_leaf = static_cast<std::uint32_t>(std::floor(s.radix * s.oversub / (1.0 + s.oversub)));
    if (per_leaf < 1) fail("the leaf has no down port");
    up = static_cast<std::uint32_t>(std::ceil(per_leaf / s.oversub - 1e-9));
    if (up < 1 || per_leaf + up > s.radix) {
      fail(fmt::format("a {}-port leaf cannot split its ports {}:{}", s.radix, s.oversub, 1));
    }
    spines = s.spines == 0 ? up : s.spines;
    if (spines > up || up % spines != 0) {
      fail(fmt::format("spines={} must divide the leaf's {} up-links", spines, up));
    }
  }
  const std::uint32_t leaves = (nodes + per_leaf - 1) / per_leaf;
  if (spines > 0 && std::uint64_t{leaves} * (up / spines) > s.radix) {
    fail(fmt::format(
        "{} nodes need {} leaves of {} nodes per rail, more than a {}-port spine reaches (two "
        "levels); give a larger leaf= radix",
        nodes, leaves, per_leaf, s.radix));
  }
  const std::uint64_t num_nodes =
      npus + nodes + std::uint64_t{s.gpus} * s.planes * (leaves + spines);
  const core::Bandwidth port{s.nic.bytes_per_s / s.planes};
  const core::Bandwidth trunk{port.bytes_per_s * (spines ? up / spines : 1)};
  // A step's latency is split over its two NPU-side hops (up to the switch, down from it);
  // switch-to-switch hops add none (the per-step figures are end to end).
  const core::Time up_half = core::Time::from_ps(s.scaleup_latency.ps / 2);
  const core::Time up_rest = s.scaleup_latency - up_half;
  const core::Time net_half = core::Time::from_ps(s.net_latency.ps / 2);
  const core::Time net_rest = s.net_latency - net_half;

  std::vector<Link> links;
  links.reserve(2 * (npus + npus * s.planes + std::uint64_t{s.gpus} * s.planes * leaves * up));
  for (NodeId r = 0; r < n; ++r) {  // scale-up: dim 0
    links.push_back(Link{r, n + r / s.gpus, s.scaleup, up_half, 0});
    links.push_back(Link{n + r / s.gpus, r, s.scaleup, up_rest, 0});
  }
  for (std::uint32_t rail = 0; rail < s.gpus; ++rail) {  // the rails: dim 1
    for (std::uint32_t p = 0; p < s.planes; ++p) {
      const NodeId block = n + nodes + (rail * s.planes + p) * (leaves + spines);
      for (std::uint32_t a = 0; a < nodes; ++a) {
        const NodeId gpu = a * s.gpus + rail, leaf = block + a / per_leaf;
        links.push_back(Link{gpu, leaf, port, net_half, 1});
        links.push_back(Link{leaf, gpu, port, net_rest, 1});
      }
      for (std::uint32_t l = 0; l < leaves; ++l) {
        for (std::uint32_t sp = 0; sp < spines; ++sp) {
          links.push_back(Link{block + l, block + leaves + sp, trunk, core::Time{}, 1});
          links.push_back(Link{block + leaves + sp, block + l, trunk, core::Time{}, 1});
        }
      }
    }
  }
  if (num_nodes > (std::uint64_t{1} << 31)) fail("too many switches");
  std::vector<DimSpec> dims = {DimSpec{DimKind::Switch, s.gpus, s.scaleup, up_half, 1},
                               DimSpec{DimKind::Switch, nodes, port, net_half, s.planes}};
  Topology t = Topology::switched(std::move(name), n, static_cast<std::uint32_t>(num_nodes),
                                  std::move(links), std::move(dims),
                                  GraphRouting{&route_rail, per_leaf, spines * 4 + s.planes});
  t.set_equal_cost_paths(&rail_paths);
  t.set_summary(fmt::format(
      "{} nodes x {} GPUs, scale-up {} per GPU ({} per step); {} rail{} x {} plane{}, NIC {} "
      "({} per plane port, {} per step); per rail-plane {} lea{} of {} nodes{}",
      nodes, s.gpus, core::to_string(s.scaleup), core::to_string(s.scaleup_latency), s.gpus,
      s.gpus == 1 ? "" : "s", s.planes, s.planes == 1 ? "" : "s", core::to_string(s.nic),
      core::to_string(port), core::to_string(s.net_latency), leaves, leaves == 1 ? "f" : "ves",
      per_leaf,
      spines == 0 ? std::string(s.oversub > 1 || s.spines > 0
                                    ? ", no spines (one leaf holds every node: oversub and spines "
                                      "unused)"
                                    : ", no spines")
                  : fmt::format(", {} spines, {} up-links per leaf (oversubscription {:.3g}:1), "
                                "{}-port switches",
                                spines, up, static_cast<double>(per_leaf) / up, s.radix)));
  return t;
}

TopologyForm rail_fat_tree_form() {
  return {
      .name = "railfat",
      .syntax = "railfat:NxG",
      .example = "railfat:4x8:planes=2",
      .description =
          "rail-optimised GPU cluster: N nodes of G GPUs on a scale-up switch, one NIC per "
          "GPU, NIC i of every node on rail i (a leaf/spine tree per rail and plane); dim0 "
          "the node, dim1 the rail",
      .source =
          "NVIDIA DGX SuperPOD reference architecture (rail-optimised leaf/spine); "
          "link rates and latencies of the GPU system presets (collsim list)",
      .args = FormArgs::Shape,
      .own_links = true,
      .options =
          "planes,leaf,spines,oversub,nic,scaleup,netlat,scaleuplat,system,reduce,reduce_latency,"
          "sharp,sharp_latency",
      .option_help =
          "planes=1|2 (1; a NIC's ports split over the planes), leaf=ports (64, leaf and "
          "spine radix), spines=per rail-plane (the leaf's up-links), oversub=down:up at "
          "the leaf (1, non-blocking), nic=bandwidth per GPU (the system's: 400Gb/s), "
          "scaleup=bandwidth per GPU per direction (the system's: 450GB/s, NVLink4), "
          "netlat=per network step (14us), scaleuplat=per scale-up step (3.4us), "
          "system=GPU preset for the defaults (h100), reduce=system|F (each node's scale-up "
          "switch reduces and multicasts in the network, NVLS: at the system's NVLS efficiency "
          "or F x the scale-up rate per port; default none), reduce_latency=per operation (0), "
          "sharp=line|bandwidth (every leaf switch reduces and multicasts in the network, "
          "InfiniBand SHARP for collnet: at the NIC port's line rate or the given rate per "
          "port; default none), sharp_latency=per operation (0)",
      .build = [](const CompactArgs& a, core::Bandwidth, core::Time) {
        if (a.sizes.size() != 2) {
          throw core::InputError(fmt::format(
              "{}: write railfat:NxG (N nodes of G GPUs), e.g. railfat:2048x8:planes=2", a.field));
        }
        const std::string* system = a.option("system");
        const GpuSystem& sys = find_gpu_system(system ? *system : "h100",
                                               a.field + ": option system in \"" + a.spec + "\"");
        RailFatTreeSpec s;
        s.nodes = a.sizes[0];
        s.gpus = a.sizes[1];
        s.planes = a.option_uint("planes", 1, 1, 2);
        s.radix = a.option_uint("leaf", kDefaultRadix, 2, 1u << 16);
        s.spines = a.option_uint("spines", 0, 1, 1u << 16);
        s.oversub = a.option_number("oversub", 1.0);
        s.nic = a.option_bandwidth("nic", core::Bandwidth{sys.nic_bandwidth.value});
        s.scaleup = a.option_bandwidth("scaleup", core::Bandwidth{sys.nvlink_bandwidth.value});
        s.net_latency = a.option_time(
            "netlat", core::Time::from_ps(std::llround(sys.nic_latency.value * 1e12)));
        s.scaleup_latency = a.option_time(
            "scaleuplat", core::Time::from_ps(std::llround(kNvlinkStepSeconds * 1e12)));
        Topology t = [&] {
          try {
            return rail_fat_tree(s, name_of(a));
          } catch (const core::InputError& e) {  // name the option the spec came from
            throw core::InputError(fmt::format("{}: {}", a.field, e.what()));
          }
        }();
        add_node_reduction(t, a, sys, s);
        add_leaf_sharp(t, a, s);
        return t;
      }};
}

}  // namespace collsim::topology
