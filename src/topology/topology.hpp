#pragma once
// The graph of NPUs, switches and directed links, its deterministic routing and its named
// dimensions (docs/design.md "Layers").
//
// Nodes 0..num_npus()-1 are NPUs (rank r is NPU r); switches follow. A bidirectional link is two
// directed links. Most topologies are products of dimensions (ring, line, fully connected, switch),
// as in Themis (ISCA'22) Sec. 2.3, Table 2: NPU ids are mixed-radix coordinates with dimension 0
// varying fastest, and routing is dimension-order (dimension 0 first), shortest inside each
// dimension. A topology without dimensions (a general graph) routes on shortest paths, ties broken
// toward the lower link id.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/units.hpp"
#include "topology/dim_kind.hpp"

namespace collsim::topology {

/// The most directed links a topology may have (Topology::graph refuses more): builders whose
/// link count grows faster than their NPUs check it before building (fc, bigraph, dragonfly).
inline constexpr std::uint64_t kMaxLinksPerTopology = std::uint64_t{1} << 27;

using NodeId = std::uint32_t;
using LinkId = std::uint32_t;

/// No path preference: the topology's rule picks among parallel paths (route()).
inline constexpr std::uint8_t kAnyPath = 0xff;

struct Link {
  NodeId src = 0;
  NodeId dst = 0;
  core::Bandwidth bandwidth;  ///< bytes/s, > 0
  core::Time latency;         ///< propagation + switching delay of this hop, >= 0
  std::uint32_t dim = 0;      ///< index of the dimension the link belongs to
};

/// One dimension of a product topology.
/// `bandwidth` is per physical link and `links_per_npu` physical links leave each NPU in this
/// dimension (Themis Table 2 "#Links/NPU"); collsim aggregates parallel links into one directed
/// link per direction, as the kind's DimKindTraits say (dim_kind.cpp):
///   Ring: each direction carries links_per_npu/2 links (links_per_npu >= 2 and even);
///   UniRing, Line, Switch: each NPU-facing direction carries links_per_npu links;
///   FullyConnected: each peer link carries links_per_npu/(size-1) links (links_per_npu >= size-1).
/// A ring of size 2 has one directed link each way (the +1 and -1 neighbours coincide).
struct DimSpec {
  DimKind kind = DimKind::Ring;
  std::uint32_t size = 2;           ///< NPUs per group, >= 2
  core::Bandwidth bandwidth;        ///< per physical link
  core::Time latency;               ///< per hop
  std::uint32_t links_per_npu = 0;  ///< 0: the kind's natural count (Ring 2, FC size-1, else 1)
};

/// A named dimension and the groups of NPUs that talk inside it: the X rings and Y rings of a
/// torus, the per-dimension peers of a hierarchical network. Each group is ordered by the
/// dimension's coordinate.
struct Dimension {
  std::string name;  ///< "dim0", "dim1", ...
  DimSpec spec;
  std::vector<std::vector<NodeId>> groups;
};

/// Which way a message goes round a bidirectional ring when both ways are equally short (a
/// destination half the ring away). BookSim's dimension-order torus routing flips a coin per
/// packet there, so the two directions share such traffic evenly; collsim routes a message on
/// one path and offers deterministic rules (docs/models.md "Topologies"):
enum class RingTie {
  Parity,  ///< by the source's coordinate in that dimension: even +1, odd -1 (default: balanced)
  Plus,    ///< always +1 (collsim before 0.1: the -1 links idle in such steps)
};
const char* to_string(RingTie t);
/// "parity" or "plus"; throws core::InputError naming `field`.
RingTie parse_ring_tie(std::string_view text, std::string_view field);

/// Which of a package's k local switches (DimKind::LocalSwitches) carries a message from local id
/// s to local id t of an n-NPU group (switch-fc-hierarchical-torus Sec. III-A leaves it open;
/// docs/switch-fc.md). A message that names a path p (its program stream) takes switch
/// (rule + p) mod k, so the k streams of a striped transfer use all k switches.
enum class LocalSwitchRule {
  /// switch ((t - s) mod n - 1) mod k: an NPU's transfers to different peers leave through
  /// different switches (default: an all-to-all spreads over all k links of the NPU); the
  /// transfers of one step of the package algorithms, all at one distance, share a switch,
  /// whose crossbar carries them without conflict.
  Distance,
  /// switch s mod k: every pair of one step on its own switch when k = n (Sec. III-A's "an idle
  /// local-switch between any two nodes"); each NPU sends through one switch only.
  Source,
};
const char* to_string(LocalSwitchRule r);
/// "distance" or "source"; throws core::InputError naming `field`.
LocalSwitchRule parse_local_switch_rule(std::string_view text, std::string_view field);

/// The WDM resources of an optical ring (WRHT (PPoPP'23) Sec. 2, on TeraRack's micro-ring
/// architecture): each of the ring's two counter-propagating waveguides carries `wavelengths`
/// channels of `wavelength_bandwidth` each. A lightpath holds one wavelength along its arc.
/// Defaults: 64 wavelengths of 25 Gb/s, a DWDM micro-ring comb at the NRZ line rate of
/// 25G-class transceivers; the poster gives neither number (docs/wrht.md says why these).
struct OpticalSpec {
  std::uint32_t wavelengths = 64;
  core::Bandwidth wavelength_bandwidth{25e9 / 8};
};

/// In-network reduction and multicast offered by one switch (NVSwitch NVLink SHARP as NCCL's NVLS
/// uses it; InfiniBand SHARP): the switch merges the contributions of a reduction group into one
/// result, and copies one multicast send to every member. Each of the switch's NPU ports moves
/// such traffic at `port_bandwidth` (bytes/s, each direction), and every reduction or multicast
/// through the switch takes `latency` more. The flow backend models the ports as resources of
/// their own (network/flow.hpp); collective programs use it through their group ops
/// (collective/ir/program.hpp).
struct SwitchReduction {
  core::Bandwidth port_bandwidth;
  core::Time latency;
};

class Topology;

/// A general graph's own shortest-path routing between NPUs, replacing "ties toward the lower
/// link id" where a network spreads equal-length paths by destination: the fat tree's
/// nearest-common-ancestor (d-mod-k) up-links, BiGraph's middle switch. `params` are the
/// builder's (k and levels; switches and NPUs per switch). Must append a shortest path, unless
/// the form documents a non-minimal rule (dragonfly's `routing=valiant`).
struct GraphRouting {
  void (*route)(const Topology& topo, std::uint32_t a, std::uint32_t b, std::uint32_t src,
                std::uint32_t dst, std::vector<std::uint32_t>& out) = nullptr;
  std::uint32_t a = 0, b = 0;
};

class Topology {
 public:
  /// Build a product topology. Throws core::InputError naming the dimension and field
  /// (e.g. "dims[1].size: must be >= 2, got 1") for bad specs.
  static Topology product(std::string name, std::vector<DimSpec> dims);

  /// Build a general graph from links (nodes >= num_npus are switches). Routing is shortest
  /// path. Throws core::InputError if the graph fails validate().
  static Topology graph(std::string name, std::uint32_t num_npus, std::uint32_t num_nodes,
                        std::vector<Link> links);

  /// A switched network whose NPUs also form named dimensions (rail_fat_tree.cpp): a general
  /// graph whose NPU-to-NPU messages take `routing`, with a product's coordinates and groups
  /// over `dims` (NPU ids mixed-radix, dimension 0 fastest; their sizes multiply to num_npus),
  /// so that hierarchical algorithms run on it. Each link's `dim` names the dimension whose
  /// traffic it carries (inventory, utilisation). Throws core::InputError as graph() and
  /// product() do, and if the sizes do not multiply to num_npus or a link's dim is out of range.
  static Topology switched(std::string name, std::uint32_t num_npus, std::uint32_t num_nodes,
                           std::vector<Link> links, std::vector<DimSpec> dims,
                           const GraphRouting& routing);

  const std::string& name() const { return name_; }
  std::uint32_t num_npus() const { return num_npus_; }
  std::uint32_t num_nodes() const { return num_nodes_; }
  std::uint32_t num_switches() const { return num_nodes_ - num_npus_; }
  bool is_npu(NodeId n) const { return n < num_npus_; }

  const std::vector<Link>& links() const { return links_; }
  std::span<const LinkId> out_links(NodeId n) const;
  std::span<const LinkId> in_links(NodeId n) const;
  const std::vector<Dimension>& dimensions() const { return dims_; }
  /// The halfway tie rule of ring dimensions (RingTie::Parity unless set).
  RingTie ring_tie() const { return ring_tie_; }
  void set_ring_tie(RingTie t) { ring_tie_ = t; }
  /// The switch choice of local-switch dimensions (LocalSwitchRule::Distance unless set).
  LocalSwitchRule local_switch_rule() const { return local_switch_; }
  void set_local_switch_rule(LocalSwitchRule r) { local_switch_ = r; }
  /// The wavelengths of an optical ring (builders.hpp optical_ring); nullptr for electrical
  /// topologies.
  const OpticalSpec* optical() const { return optical_ ? &*optical_ : nullptr; }
  void set_optical(const OpticalSpec& spec) { optical_ = spec; }
  /// The in-network reduction of switch `sw`, or nullptr when it offers none (the default).
  const SwitchReduction* in_network(NodeId sw) const;
  /// True if some switch offers in-network reduction.
  bool has_in_network() const { return !in_network_.empty(); }
  /// Give switch `sw` in-network reduction and multicast. Throws core::InputError naming `field`
  /// when `sw` is not a switch or the bandwidth is not > 0.
  void set_in_network(NodeId sw, const SwitchReduction& spec, std::string_view field);
  /// Give every NPU-to-switch link (both directions) its own bandwidth and/or latency, e.g. the
  /// NPU links of a fat tree or BiGraph that differ from its switch-to-switch links (MultiTree
  /// Sec. V-A). Throws core::InputError naming `field` when the topology has no switches.
  void set_npu_links(std::optional<core::Bandwidth> bw, std::optional<core::Time> lat,
                     std::string_view field);
  /// Latency every message pays once on top of its route's links: the links between each NPU's
  /// network interface and its own router (injection and ejection) and the source NPU's router,
  /// which a route's links (each with its far end's router) do not include. 0 unless the builder
  /// sets it; the switch-fc platforms (swfc, htorus) take ASTRA-sim 1.0's Garnet topologies', whose
  /// NI-router links have the intra-package link latency (builders.hpp PackageLinks). Every
  /// backend adds it to a message's delivery, not to its injection.
  core::Time ni_latency() const { return ni_latency_; }
  /// Throws core::InputError naming `field` for a negative latency.
  void set_ni_latency(core::Time t, std::string_view field);
  /// Route NPU-to-NPU messages of a general graph with `r` (builders of switched networks).
  void set_graph_routing(const GraphRouting& r) { graph_routing_ = r; }
  /// The same with the builder's own immutable parameters, for when two numbers are not enough
  /// (dragonfly.cpp, graph_file.cpp): `route` reads them back through routing_state(); copies of
  /// the topology share them.
  void set_graph_routing(const GraphRouting& r, std::shared_ptr<const void> state) {
    graph_routing_ = r;
    routing_state_ = std::move(state);
  }
  const void* routing_state() const { return routing_state_.get(); }
  /// True when the dimensions only name groups of NPUs on a graph routed by its own rule
  /// (graph files with dimensions, graph_import.hpp): link failures and multipath treat the
  /// topology as the graph it is, not as a dimension-order product. False unless set.
  bool dims_label_graph() const { return dims_label_graph_; }
  void set_dims_label_graph(bool v) { dims_label_graph_ = v; }
  /// True when only switches forward and an NPU is never a hop between two others (imported
  /// graphs, as SimAI's routing: graph_import.hpp); multipath's equal-cost paths then leave out
  /// paths through a third NPU. False unless set (railfat's GPUs forward to their rail, as
  /// NCCL's PXN does).
  bool switches_only_forward() const { return switches_only_forward_; }
  void set_switches_only_forward(bool v) { switches_only_forward_ = v; }
  /// The rule set_graph_routing gave (route nullptr when none).
  const GraphRouting& graph_routing() const { return graph_routing_; }
  /// True for a general graph or a switched network (routed over its links as a graph, even
  /// with dimensions); false for a product topology (dimension-order routing).
  bool graph_routed() const { return dims_.empty() || graph_routing_.route != nullptr; }
  /// A switched network's equal-cost shortest paths in closed form, in the numbering of
  /// topology/equal_cost_paths.hpp, for forms whose NPUs are too many for its per-target tables
  /// (railfat): returns the number of paths from NPU `src` to NPU `dst` (src != dst) and, when
  /// `out` is not null, appends path `index` mod that number. Valid with no failed link only.
  using EqualCostFn = std::uint64_t (*)(const Topology& t, NodeId src, NodeId dst,
                                        std::uint64_t index, std::vector<LinkId>* out);
  void set_equal_cost_paths(EqualCostFn f) { equal_cost_ = f; }
  EqualCostFn equal_cost_paths() const { return equal_cost_; }
  /// Take `links` out of service (docs/multipath.md "Link failures"): routes avoid them, over
  /// the shortest paths that remain (a graph routing rule's own route where it avoids them, the
  /// general graph's shortest path otherwise), and backends carry nothing on them. Graph
  /// topologies only (fattree, bigraph, ...: a product's dimension-order routes cannot detour).
  /// Replaces earlier failures. Throws core::InputError naming `field` for a product topology, a
  /// link id out of range, or failures that leave an NPU unable to reach another.
  void fail_links(std::span<const LinkId> links, std::string_view field);
  /// The failed links, ascending (empty: every link works).
  const std::vector<LinkId>& failed_links() const { return failed_list_; }
  bool link_failed(LinkId l) const { return !failed_.empty() && failed_[l] != 0; }
  /// One line on how the builder filled in what the spec left out (railfat: radix, spines,
  /// oversubscription, planes, link rates), printed by `collsim inventory`; empty for most forms.
  const std::string& summary() const { return summary_; }
  void set_summary(std::string s) { summary_ = std::move(s); }
  /// The link from `a` to `b`; throws std::out_of_range if there is none.
  LinkId link_between(NodeId a, NodeId b) const;
  /// Virtual-channel classes that keep packet switching deadlock-free where the routes close
  /// cycles of channel dependencies that no dimension dateline breaks (the dragonfly: Kim et al.,
  /// ISCA'08 Sec. 4.2, one class more per global hop). A packet starts in class 0 and moves up
  /// one class on every link marked in `raises` (per link id; the buffer at that link's end is
  /// already in the new class); `classes` (>= 1) is the most any route needs. 0 (default): the
  /// topology has none. The packet backend maps them onto its VCs (network/packet.hpp). Throws
  /// core::InputError if `raises` does not have one entry per link or classes is 0.
  void set_vc_classes(std::uint32_t classes, std::vector<std::uint8_t> raises);
  std::uint32_t vc_classes() const { return vc_classes_; }
  bool raises_vc_class(LinkId l) const { return !vc_raises_.empty() && vc_raises_[l] != 0; }

  /// Coordinates of an NPU in a product topology (dimension 0 first); empty for a general graph.
  std::vector<std::uint32_t> coords(NodeId npu) const;
  /// NPU at the given coordinates (product topologies only).
  NodeId npu_at(std::span<const std::uint32_t> coords) const;

  /// Append the links of the deterministic route src -> dst to `out` (nothing when src == dst).
  /// `path` picks among parallel paths where the topology has them (a local-switch dimension:
  /// LocalSwitchRule); other topologies ignore it. Allocation-free when `out` has capacity.
  /// Throws std::out_of_range for bad ids.
  void route(NodeId src, NodeId dst, std::vector<LinkId>& out, std::uint8_t path = kAnyPath) const;
  std::vector<LinkId> route(NodeId src, NodeId dst) const;
  std::uint32_t hops(NodeId src, NodeId dst) const;
  /// Largest hop count between two NPUs.
  std::uint32_t diameter() const;
  /// The same from at most `sources` NPUs spread evenly over the NPU ids (a lower bound where
  /// that is fewer than all and the topology has no dimensions): a search from every NPU of a
  /// switched network of 10^4 NPUs takes minutes.
  std::uint32_t diameter(std::uint32_t sources) const;

  /// A logical ring over all NPUs for ring algorithms: a Hamiltonian cycle of the topology where
  /// one exists (identity on rings, fully connected and switch; a snake order on tori and on meshes
  /// with an even-sized dimension), so each step of a ring algorithm is one hop.
  const std::vector<NodeId>& ring_order() const { return ring_order_; }
  /// True if every consecutive pair of ring_order(), including last -> first, is one hop apart
  /// (two hops NPU -> switch -> NPU count as one neighbour step on a switch).
  bool ring_order_is_cycle() const { return ring_is_cycle_; }

 private:
  std::string name_;
  std::uint32_t num_npus_ = 0;
  std::uint32_t num_nodes_ = 0;
  std::vector<Link> links_;
  std::vector<std::uint32_t> out_offsets_, in_offsets_;  // CSR adjacency
  std::vector<LinkId> out_ids_, in_ids_;
  std::vector<Dimension> dims_;
  // Product-routing tables, one entry per (dim, npu): the link to the +1 / -1 neighbour (ring,
  // line), the NPU's up/down link (switch; local switches: the first of its k, up and down
  // interleaved), or the first peer link (fully connected).
  std::vector<std::uint32_t> strides_;
  std::vector<std::vector<LinkId>> plus_link_, minus_link_, up_link_, down_link_, fc_base_;
  // General graphs: next hop toward each destination, filled lazily per destination.
  mutable std::vector<std::vector<LinkId>> next_hop_;
  // Guards the lazy fill so that const route() may be called from several threads. Copies get
  // a fresh mutex (a mutex is neither copyable nor movable, Topology must be both).
  struct CacheLock {
    std::mutex mu;
    CacheLock() = default;
    CacheLock(const CacheLock&) {}
    CacheLock& operator=(const CacheLock&) { return *this; }
  };
  mutable CacheLock next_hop_lock_;
  std::vector<NodeId> ring_order_;
  bool ring_is_cycle_ = false;
  RingTie ring_tie_ = RingTie::Parity;
  LocalSwitchRule local_switch_ = LocalSwitchRule::Distance;
  std::optional<OpticalSpec> optical_;
  std::vector<std::pair<NodeId, SwitchReduction>> in_network_;  // in the order set
  std::vector<std::uint32_t> in_network_at_;  // node -> index in in_network_ (UINT32_MAX: none)
  core::Time ni_latency_{};
  GraphRouting graph_routing_;
  std::shared_ptr<const void> routing_state_;
  bool dims_label_graph_ = false;
  bool switches_only_forward_ = false;
  EqualCostFn equal_cost_ = nullptr;
  std::vector<std::uint8_t> failed_;  // per link, empty when none failed (fail_links)
  std::vector<LinkId> failed_list_;
  std::string summary_;
  std::uint32_t vc_classes_ = 0;         // set_vc_classes
  std::vector<std::uint8_t> vc_raises_;  // per link

  // General-graph routing (also used for switch endpoints of a product).
  void route_graph(NodeId src, NodeId dst, std::vector<LinkId>& out) const;
  const std::vector<LinkId>& next_hops(NodeId dst) const;
  // CSR adjacency, next-hop slots and ring order, once links_ is final.
  void finish();
};

/// Check a topology: at least 2 NPUs, ids in range, bandwidth > 0, latency >= 0, every NPU
/// reaches every other NPU. Throws core::InputError with the offending link or node.
void validate(const Topology& t);

}  // namespace collsim::topology
