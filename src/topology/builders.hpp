#pragma once
// Named topology builders, one file each (ring.cpp, fully_connected.cpp, switch.cpp, torus.cpp,
// mesh.cpp, hierarchical.cpp), and the compact command-line form (compact.cpp).
// All throw core::InputError naming the field for bad arguments.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topology/topology.hpp"

namespace collsim::topology {

/// N NPUs on a ring; each directed link has `bw` and `lat`. Name "ring:N" or "bidir-ring:N".
Topology ring(std::uint32_t n, core::Bandwidth bw, core::Time lat, bool bidirectional);
/// N nodes on an optical WDM ring (WRHT (PPoPP'23) Sec. 2): a bidirectional ring whose two
/// directed links between neighbours are segments of the two counter-propagating waveguides,
/// each carrying `optical.wavelengths` x `optical.wavelength_bandwidth` (so an electrical
/// backend on it sees the same per-node bandwidth); `hop_latency` is the propagation delay per
/// segment. Name "optical-ring:N". Throws core::InputError if wavelengths is 0 or > 4096.
Topology optical_ring(std::uint32_t n, const OpticalSpec& optical, core::Time hop_latency);
/// k-ary L-level fat tree of switches, k^L NPUs on the leaves (fat_tree.cpp). Name "fattree:KxL"
/// (or `name`). `oversub`: empty (non-blocking), one value for every level, or L-1 values, the
/// leaf level first; the links between level l and l+1 carry bw / o_l. Throws core::InputError
/// for values < 1 or a wrong count.
Topology fat_tree(std::uint32_t k, std::uint32_t levels, core::Bandwidth bw, core::Time lat,
                  const std::vector<double>& oversub = {}, const std::string& name = {});
/// A rail-optimised GPU cluster (rail_fat_tree.cpp, docs/fabrics.md): `nodes` nodes of `gpus`
/// GPUs on a scale-up switch each, one NIC per GPU, NIC i of every node on rail i, a leaf/spine
/// tree per rail and plane. Bandwidths in bytes/s per GPU per direction (`nic` split evenly over
/// the planes), latencies per step (one NVLink or one network transfer, end to end).
struct RailFatTreeSpec {
  std::uint32_t nodes = 2;
  std::uint32_t gpus = 8;
  std::uint32_t planes = 1;  ///< 1 or 2
  std::uint32_t radix = 64;  ///< ports of a leaf and of a spine
  std::uint32_t spines = 0;  ///< per rail and plane; 0: one per up-link of a leaf
  double oversub = 1.0;      ///< a leaf's down ports : up ports, >= 1
  core::Bandwidth nic{50e9};
  core::Bandwidth scaleup{450e9};
  core::Time net_latency = core::Time::from_ns(14000);
  core::Time scaleup_latency = core::Time::from_ns(3400);
};
/// Throws core::InputError naming `name` for a spec it cannot wire (planes not 1 or 2, a rail
/// needing more leaves than a spine has ports, spines not dividing the up-links, oversub < 1).
Topology rail_fat_tree(const RailFatTreeSpec& spec, std::string name);
/// EFLOPS BiGraph: `switches` (even) in two layers, every upper linked to every lower,
/// `per_switch` NPUs on each (bigraph.cpp). Name "bigraph:SxP".
Topology bigraph(std::uint32_t switches, std::uint32_t per_switch, core::Bandwidth bw,
                 core::Time lat);
/// A direct link between every ordered pair of the N NPUs. Name "fc:N".
Topology fully_connected(std::uint32_t n, core::Bandwidth bw, core::Time lat);
/// N NPUs on one switch; NPU->switch and switch->NPU links each have `bw` and `lat` (so an
/// NPU-to-NPU message crosses two links). Name "switch:N".
Topology switch_star(std::uint32_t n, core::Bandwidth bw, core::Time lat);
/// A torus of any number of dimensions (shape {8,8} is an 8x8 2D torus): bidirectional rings in
/// every dimension. Name "torus:8x8".
Topology torus(const std::vector<std::uint32_t>& shape, core::Bandwidth bw, core::Time lat);
/// A mesh of any number of dimensions: bidirectional lines, no wrap-around. Name "mesh:4x4x4".
Topology mesh(const std::vector<std::uint32_t>& shape, core::Bandwidth bw, core::Time lat);
/// A hierarchical multi-dimensional network P1 x P2 x ... x PD (Themis Table 2), dimension 1 the
/// innermost. Name like "hier:ring4xfc8xsw32".
Topology hierarchical(const std::vector<DimSpec>& dims);

/// Table II of switch-fc-hierarchical-torus: the links of its package platforms.
struct PackageLinks {
  core::Bandwidth intra_bandwidth{512e9 / 8};  ///< 512 bits/ns inside a package
  core::Time intra_latency = core::Time::from_ns(90);
  core::Bandwidth inter_bandwidth{256e9 / 8};  ///< 256 bits/ns between packages
  core::Time inter_latency = core::Time::from_ns(200);
  core::Time router_latency = core::Time::from_ns(5);  ///< added to every link (its far router)
  /// The NI of every NPU hangs off its own router by an injection and an ejection link of this
  /// latency (ASTRA-sim 1.0's Garnet topologies give these ExtLinks the local link latency, and
  /// Table II gives 90 ns): with the source router, every message pays 2 x 90 + 5 ns once
  /// (Topology::ni_latency) besides its route's links.
  core::Time ni_link_latency = core::Time::from_ns(90);
};
/// `packages` packages of `npus` NPUs with `switches` local switches each, a 2D torus between
/// packages (switch_fc.cpp). Name "swfc:P:n:k". Throws core::InputError unless n >= 2 and
/// 1 <= k <= n.
Topology switch_fc_package(std::uint32_t packages, std::uint32_t npus, std::uint32_t switches,
                           const PackageLinks& links);
/// The hierarchical-torus baseline: a ring inside each package (unidirectional unless
/// `bidirectional`), the same torus between packages. Name "htorus:P:n" (":2" bidirectional).
Topology hierarchical_torus(std::uint32_t packages, std::uint32_t npus, bool bidirectional,
                            const PackageLinks& links);

/// Parse a compact form registered in forms.hpp and build it, every link taking `bw` and `lat`:
///   ring:16  bidir-ring:16  fc:8  switch:1024  torus:8x8  mesh:4x4x4
///   hier:ring4xfc8xsw32   (dimension kinds of dim_kind.hpp; sizes after the kind)
/// Throws core::InputError naming `field` and listing the valid forms.
/// `optical` sets the wavelengths of an optical form (default OpticalSpec{}); giving it for
/// another form throws core::InputError naming `optical_field`.
Topology from_compact(std::string_view spec, core::Bandwidth bw, core::Time lat,
                      std::string_view field = "topology",
                      const std::optional<OpticalSpec>& optical = std::nullopt,
                      std::string_view optical_field = "wavelengths");

}  // namespace collsim::topology
