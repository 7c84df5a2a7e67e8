// collsim's own topology file (docs/topology-import.md), JSON or YAML:
//   {
//     "name": "two-servers",                      optional; default the file name
//     "npus": 16,                                 NPUs are nodes 0 .. npus-1 (rank r = node r)
//     "switches": 3,                              optional; switches are nodes npus .. npus+S-1
//     "nvswitches": [16, 17],                     optional; which switches are scale-up ones
//     "defaults": {"bandwidth": "400 Gb/s", "latency": "500 ns"},   optional, for links
//     "dimensions": [8, 2],                       optional; sizes (or maps with size, kind,
//                                                 bandwidth, latency), dimension 0 first
//     "links": [
//       {"from": 0, "to": 16, "bandwidth": "2400 Gb/s", "latency": "25 ns"},
//       {"from": 0, "to": 18, "count": 2}         two parallel links: twice the bandwidth;
//                                                 optional "dim": the dimension it carries
//     ]
//   }
// Every link is duplex (each direction has the bandwidth). Units as everywhere in collsim (GB/s
// bytes, Gb/s bits; ns, us). Errors name the file, the line and the key path.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "core/parse.hpp"
#include "io/yaml_load.hpp"
#include "io/yaml_reader.hpp"
#include "topology/dim_kind.hpp"
#include "topology/graph_import.hpp"

namespace collsim::topology {
namespace {

constexpr std::uint32_t kMaxNodes = 1u << 24;

class Reader : public io::YamlReader {
 public:
  using io::YamlReader::YamlReader;

  core::Bandwidth bandwidth(const YAML::Node& n, const std::string& path) const {
    return with_line(n, [&] { return core::parse_bandwidth(scalar(n, path), path); });
  }
  core::Time latency(const YAML::Node& n, const std::string& path) const {
    return with_line(n, [&] { return core::parse_time(scalar(n, path), path); });
  }
  std::uint32_t node(const YAML::Node& n, const std::string& path, std::uint32_t nodes) const {
    const std::uint32_t v = uint(n, path, 0);
    if (v >= nodes) {
      fail(n, path, fmt::format("node {} out of range (npus + switches = {})", v, nodes));
    }
    return v;
  }

  // "dimensions": [8, {"size": 2, "kind": "sw", "bandwidth": "50 GB/s", "latency": "1 us"}]
  std::vector<ImportedDim> dimensions(const YAML::Node& list, std::uint32_t npus) const {
    if (!list.IsSequence() || list.size() == 0) {
      fail(list, "dimensions",
           "must be a non-empty list of sizes (dimension 0 first), e.g. [8, 2]");
    }
    std::vector<ImportedDim> out;
    std::uint64_t product = 1;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const YAML::Node n = list[i];
      const std::string p = fmt::format("dimensions[{}]", i);
      ImportedDim d;
      d.field = fmt::format("{}:{}: {}", source(), line_of(n), p);
      if (n.IsMap()) {
        check_keys(n, p, {"size", "kind", "bandwidth", "latency"});
        if (!n["size"]) fail(n, p, "missing key \"size\" (NPUs per group)");
        d.size = uint(n["size"], p + ".size", 2);
        if (const YAML::Node k = n["kind"]) {
          const DimKindTraits* t = find_dim_kind(scalar(k, p + ".kind"));
          if (t == nullptr) {
            fail(k, p + ".kind",
                 fmt::format("unknown kind \"{}\"; valid: {}", k.Scalar(), dim_kind_names()));
          }
          d.kind = t->kind;
        }
        if (n["bandwidth"]) d.bandwidth = bandwidth(n["bandwidth"], p + ".bandwidth");
        if (n["latency"]) d.latency = latency(n["latency"], p + ".latency");
      } else {
        d.size = uint(n, p, 2);
      }
      product = std::min<std::uint64_t>(product * d.size, std::uint64_t{1} << 40);
      out.push_back(d);
    }
    if (product != npus) {
      std::string sizes;
      for (const ImportedDim& d : out) {
        sizes += fmt::format("{}{}", sizes.empty() ? "" : " x ", d.size);
      }
      fail(list, "dimensions",
           fmt::format("the sizes {} multiply to {}{}, not npus {} (dimension 0 first, NPU ids "
                       "mixed-radix)",
                       sizes, product >= (std::uint64_t{1} << 40) ? "more than " : "", product,
                       npus));
    }
    return out;
  }

  ImportedGraph read(const YAML::Node& root) const {
    unique_keys(root, "");
    check_keys(root, "",
               {"name", "npus", "switches", "nvswitches", "defaults", "links", "dimensions"});
    if (!root["npus"]) fail(root, "npus", "missing key (the number of NPUs, nodes 0 .. npus-1)");
    if (!root["links"]) fail(root, "links", "missing key (the list of links)");
    ImportedGraph g;
    g.name = root["name"] ? scalar(root["name"], "name")
                          : std::filesystem::path(source()).filename().string();
    const std::uint32_t npus = uint(root["npus"], "npus", 2);
    const std::uint32_t switches = root["switches"] ? uint(root["switches"], "switches", 0) : 0;
    if (std::uint64_t{npus} + switches > kMaxNodes) {
      fail(root["npus"], "npus", fmt::format("npus + switches: at most {} nodes", kMaxNodes));
    }
    g.nodes = npus + switches;
    g.kind.assign(g.nodes, 0);
    for (std::uint32_t s = npus; s < g.nodes; ++s) g.kind[s] = 1;
    if (const YAML::Node nv = root["nvswitches"]) {
      if (!nv.IsSequence()) fail(nv, "nvswitches", "must be a list of switch node ids");
      for (std::size_t i = 0; i < nv.size(); ++i) {
        const std::string p = fmt::format("nvswitches[{}]", i);
        const std::uint32_t id = node(nv[i], p, g.nodes);
        if (id < npus) fail(nv[i], p, fmt::format("node {} is an NPU, not a switch", id));
        g.kind[id] = 2;
      }
    }
    if (const YAML::Node d = root["dimensions"]) g.dims = dimensions(d, npus);
    std::optional<core::Bandwidth> def_bw;
    std::optional<core::Time> def_lat;
    if (const YAML::Node d = root["defaults"]) {
      check_keys(d, "defaults", {"bandwidth", "latency"});
      if (d["bandwidth"]) def_bw = bandwidth(d["bandwidth"], "defaults.bandwidth");
      if (d["latency"]) def_lat = latency(d["latency"], "defaults.latency");
    }
    const YAML::Node links = root["links"];
    if (!links.IsSequence() || links.size() == 0) {
      fail(links, "links", "must be a non-empty list of links");
    }
    std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
    for (std::size_t i = 0; i < links.size(); ++i) {
      const YAML::Node l = links[i];
      const std::string p = fmt::format("links[{}]", i);
      check_keys(l, p, {"from", "to", "bandwidth", "latency", "count", "dim"});
      for (const char* k : {"from", "to"}) {
        if (!l[k]) fail(l, p, fmt::format("missing key \"{}\"", k));
      }
      ImportedGraph::Edge e;
      e.a = node(l["from"], p + ".from", g.nodes);
      e.b = node(l["to"], p + ".to", g.nodes);
      if (e.a == e.b) fail(l["to"], p + ".to", fmt::format("a link from node {} to itself", e.a));
      if (l["bandwidth"]) {
        e.bandwidth = bandwidth(l["bandwidth"], p + ".bandwidth");
      } else if (def_bw) {
        e.bandwidth = *def_bw;
      } else {
        fail(l, p, "missing key \"bandwidth\" (or give defaults.bandwidth)");
      }
      if (l["latency"]) {
        e.latency = latency(l["latency"], p + ".latency");
      } else if (def_lat) {
        e.latency = *def_lat;
      } else {
        fail(l, p, "missing key \"latency\" (or give defaults.latency)");
      }
      if (l["count"]) e.bandwidth.bytes_per_s *= uint(l["count"], p + ".count", 1);
      if (const YAML::Node d = l["dim"]) {
        if (g.dims.empty()) fail(d, p + ".dim", "the file has no \"dimensions\"");
        const std::uint32_t v = uint(d, p + ".dim", 0);
        if (v >= g.dims.size()) {
          fail(d, p + ".dim",
               fmt::format("dimension {} out of range ({} dimensions)", v, g.dims.size()));
        }
        e.dim = static_cast<std::int32_t>(v);
      }
      if (!seen.insert(std::minmax(e.a, e.b)).second) {
        fail(l, p,
             fmt::format("nodes {} and {} are linked twice; give one link with \"count\"", e.a,
                         e.b));
      }
      g.edges.push_back(e);
    }
    return g;
  }
};

}  // namespace

ImportedGraph parse_json_topology(const std::string& text, const std::string& source) {
  const YAML::Node root = io::load_yaml(text, source, "JSON or YAML");
  const Reader r(source);
  if (!root.IsMap()) r.fail(root, "top level", "must be a map with npus, switches and links");
  return r.read(root);
}

}  // namespace collsim::topology
