#pragma once
// Topologies read from graph files (docs/topology-import.md): `-t file:PATH` on the
// command line, `topology: file:PATH` in a scenario.
//   *.json, *.yaml, *.yml  collsim's own format (graph_file_json.cpp)
//   any other name         the text format SimAI's topology generator writes
//                          (graph_file_simai.cpp; aliyun/SimAI astra-sim-alibabacloud/inputs/topo/)
// Both describe NPUs, switches and duplex links with their own bandwidth and latency. The links
// of an imported topology are the file's: --link-bandwidth and --link-latency do not apply.
//
// Routing on an imported graph follows SimAI's ns-3 frontend (astra-sim-alibabacloud/astra-sim/
// network_frontend/ns3/common.h, CalculateRoute): shortest paths in hops on which only switches
// forward (a message never crosses a third NPU), and where several next hops are equally short,
// an NVSwitch one first. SimAI's switches then spread flows over the remaining equal next hops
// (ECMP, a hash per flow); collsim routes each message on one path: each node picks among its
// k equal next hops by a hash of (node, destination), a per-destination ECMP that is
// deterministic and spreads the destinations behind a switch over its up-links (with the
// collisions a hash has).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/units.hpp"
#include "topology/topology.hpp"

namespace collsim::topology {

/// A graph as read from a file, before collsim numbers its nodes.
/// One dimension of an imported graph (docs/topology-import.md "Dimensions"): `size` NPUs per
/// group, NPU ids mixed-radix with dimension 0 fastest. What is not given comes from the file's
/// links: kind sw; bandwidth the sum, latency the largest, over NPU 0's links in the dimension.
struct ImportedDim {
  std::uint32_t size = 2;
  std::optional<DimKind> kind;
  std::optional<core::Bandwidth> bandwidth;
  std::optional<core::Time> latency;
  std::string field;  ///< where it was given, for messages ("f.json:7: dimensions[1]")
};

struct ImportedGraph {
  std::string name;                 ///< the topology's name (file stem or the file's `name`)
  std::uint32_t nodes = 0;          ///< node ids 0 .. nodes-1 in the file
  std::vector<std::uint8_t> kind;   ///< per node: 0 NPU, 1 switch, 2 NVSwitch (a switch)
  struct Edge {
    std::uint32_t a = 0, b = 0;     ///< file node ids
    core::Bandwidth bandwidth;      ///< each direction
    core::Time latency;
    std::int32_t dim = -1;          ///< the dimension it carries; -1: by the rule below
  };
  std::vector<Edge> edges;          ///< duplex links
  /// Empty: the topology has no dimensions. Else their sizes multiply to the NPU count (the
  /// readers check it). A link without its own `dim` carries: between two NPUs, the lowest
  /// dimension in which their coordinates differ; at an NVSwitch, dimension 0; else the last.
  std::vector<ImportedDim> dims;
};

/// The topology of `g`: its NPUs (kind 0) become NPUs 0..N-1 in file-id order (rank r is the
/// r-th NPU of the file), its switches follow in file-id order; every edge is a link each way.
/// Routing as above. With `g.dims`, the topology also has dimensions (Topology::switched, the
/// routing unchanged), so that hierarchical algorithms run on it. Throws core::InputError naming
/// `source` if there are fewer than 2 NPUs or an NPU cannot reach another through switches
/// (naming both by their file ids), and naming the dimension's field if NPU 0 has no link in it.
Topology imported_topology(const ImportedGraph& g, std::string_view source);

/// Read `path` (format by its extension, above). Throws core::InputError naming `field` when the
/// file cannot be read, and `path:line: field: reason` for a bad line or key.
Topology load_topology_file(const std::string& path, std::string_view field);

/// The readers, from text; `source` names the file in messages.
ImportedGraph parse_simai_topology(std::string_view text, const std::string& source);
ImportedGraph parse_json_topology(const std::string& text, const std::string& source);

/// An ns-3 DataRate string ("400Gbps", "2400Gbps", "100Mb/s", "1.5GBps") and an ns-3 Time
/// string ("0.0005ms", "25ns"); throw core::InputError starting with `field`.
core::Bandwidth parse_ns3_rate(std::string_view text, std::string_view field);
core::Time parse_ns3_time(std::string_view text, std::string_view field);

}  // namespace collsim::topology
