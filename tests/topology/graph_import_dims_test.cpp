// Dimensions of imported topologies (docs/topology-import.md "Dimensions"): SimAI files get a
// server dimension and a cross-server one from gpus_per_server, collsim's JSON a `dimensions`
// list; routing stays the graph's; `-a hierarchical` runs on them at the closed-form time of its
// per-dimension halving-doubling stages; bad `dimensions` are refused with file:line: field.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "core/error.hpp"
#include "topology/graph_import.hpp"

namespace collsim::topology {
namespace {

const std::string kDir = "examples/topologies/";
const std::string kSpectrum = kDir + "Spectrum-X_16g_8gps_100Gbps_A100";
const std::string kRail128 = kDir + "Rail_Opti_SingleToR_128g_8gps_200Gbps_H20";
const std::string kTwoServers = kDir + "two-servers.json";

std::string src(const std::string& rel) { return std::string(COLLSIM_SOURCE_DIR) + "/" + rel; }

std::string write(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "collsim_graph_import_dims_test";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

// time_ns of the first data row of a CSV report.
double time_ns(const std::string& csv) {
  const std::size_t row = csv.find('\n');
  std::size_t at = row + 1;
  for (int i = 0; i < 8; ++i) at = csv.find(',', at) + 1;
  return std::stod(csv.substr(at, csv.find(',', at) - at));
}

// Baseline hierarchical all-reduce of `bytes` with one chunk on switch dimensions of halving-
// doubling stages (Themis Sec. 2.3): reduce-scatter over dim 0, 1, ..., all-gather back. Each
// dimension d of p NPUs moves (p - 1) / p of what reaches it, twice, at its NPU's rate bw_d, in
// 2 log2(p) steps of two hops (NPU -> switch -> NPU) of latency lat_d each.
struct Bound {
  double bandwidth_ns = 0, latency_ns = 0;
};
Bound halving_doubling(double bytes, const std::vector<std::uint32_t>& sizes,
                       const std::vector<double>& bw, const std::vector<double>& lat_ns) {
  Bound b;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    const double p = sizes[d];
    b.bandwidth_ns += 2 * (p - 1) / p * bytes / bw[d] * 1e9;
    b.latency_ns += 2 * std::log2(p) * 2 * lat_ns[d];
    bytes /= p;
  }
  return b;
}

TEST(GraphImportDims, SimaiFilesGetServerAndNicDimensions) {
  // Spectrum-X 16 GPUs, 8 per server: dim0 a server's 8 GPUs over NVSwitch links of 2400 Gb/s
  // (300 GB/s, 25 ns), dim1 the 2 servers over 100 Gb/s NICs (12.5 GB/s, 500 ns).
  const Topology t = load_topology_file(src(kSpectrum), "--topology");
  const auto& dims = t.dimensions();
  ASSERT_EQ(dims.size(), 2u);
  EXPECT_EQ(dims[0].spec.kind, DimKind::Switch);
  EXPECT_EQ(dims[0].spec.size, 8u);
  EXPECT_DOUBLE_EQ(dims[0].spec.bandwidth.bytes_per_s, 300e9);
  EXPECT_EQ(dims[0].spec.latency, core::Time::from_ns(25));
  EXPECT_EQ(dims[1].spec.size, 2u);
  EXPECT_DOUBLE_EQ(dims[1].spec.bandwidth.bytes_per_s, 12.5e9);
  EXPECT_EQ(dims[1].spec.latency, core::Time::from_ns(500));
  EXPECT_EQ(dims[0].groups[1], (std::vector<NodeId>{8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(dims[1].groups[3], (std::vector<NodeId>{3, 11}));
  // The link to the NVSwitch carries dim0, the NIC dim1; routes are the graph's, as without
  // dimensions: same server over NVSwitch 16, same rail over ASW 18, else through a PSW.
  EXPECT_EQ(t.links()[t.link_between(0, 16)].dim, 0u);
  EXPECT_EQ(t.links()[t.link_between(0, 18)].dim, 1u);
  EXPECT_EQ(t.route(0, 1).size(), 2u);
  EXPECT_EQ(t.links()[t.route(0, 1)[0]].dst, 16u);
  EXPECT_EQ(t.links()[t.route(0, 8)[0]].dst, 18u);
  EXPECT_EQ(t.route(0, 9).size(), 4u);
  EXPECT_TRUE(t.dims_label_graph());

  // 128 GPUs: 8 x 16, 900 Gb/s NVLink (112.5 GB/s), 200 Gb/s NICs (25 GB/s, 1 us).
  const Topology r = load_topology_file(src(kRail128), "--topology");
  ASSERT_EQ(r.dimensions().size(), 2u);
  EXPECT_EQ(r.dimensions()[0].spec.size, 8u);
  EXPECT_EQ(r.dimensions()[1].spec.size, 16u);
  EXPECT_DOUBLE_EQ(r.dimensions()[0].spec.bandwidth.bytes_per_s, 112.5e9);
  EXPECT_DOUBLE_EQ(r.dimensions()[1].spec.bandwidth.bytes_per_s, 25e9);
  EXPECT_EQ(r.dimensions()[1].spec.latency, core::Time::from_ns(1000));
}

TEST(GraphImportDims, SimaiDimensionsOnlyWhenServersAreWhole) {
  // 3 GPUs with gpus_per_server 2: not whole servers, so no dimensions (as before).
  const std::string odd = write("odd", "4 2 0 1 3 H100\n3\n0 3 100Gbps 0.001ms 0\n"
                                       "1 3 100Gbps 0.001ms 0\n2 3 100Gbps 0.001ms 0\n");
  EXPECT_TRUE(load_topology_file(odd, "t").dimensions().empty());
  // 4 GPUs, 2 per server, but no NVSwitch: the first GPU has no dim0 link, so none either.
  const std::string flat = write("flat", "5 2 0 1 4 H100\n4\n0 4 100Gbps 0.001ms 0\n"
                                         "1 4 100Gbps 0.001ms 0\n2 4 100Gbps 0.001ms 0\n"
                                         "3 4 100Gbps 0.001ms 0\n");
  EXPECT_TRUE(load_topology_file(flat, "t").dimensions().empty());
}

TEST(GraphImportDims, MultipathAndFailuresStillTreatTheGraph) {
  Topology t = load_topology_file(src(kSpectrum), "--topology");
  const std::vector<LinkId> before = t.route(0, 9);
  ASSERT_EQ(before.size(), 4u);
  const LinkId up = before[1];  // ASW 18 -> some PSW
  t.fail_links(std::vector<LinkId>{up}, "--fail-links");
  const std::vector<LinkId> after = t.route(0, 9);
  EXPECT_EQ(after.size(), 4u);
  for (LinkId l : after) EXPECT_NE(l, up);
  const auto run = test::collsim("collective -t file:" + kSpectrum +
                                 " -c all-to-all -a direct -s 1MiB -b flow --multipath ecmp");
  EXPECT_EQ(run.status, 0) << run.err;
}

TEST(GraphImportDims, HierarchicalOnJsonMatchesClosedForm) {
  // two-servers.json: 2 servers of 2 NPUs; NVSwitch links 100 GB/s, 100 ns (dim0), NICs on one
  // switch 10 GB/s, 500 ns (dim1). 4 MiB: dim0 RS 2 MiB at 100 GB/s = 20.97 us, dim1 RS 1 MiB
  // at 10 GB/s = 104.86 us, both twice (RS, AG), plus 2 x (2 x 100 ns) + 2 x (2 x 500 ns):
  // 254.06 us.
  const auto run = test::collsim("collective -t file:" + kTwoServers +
                                 " -c all-reduce -a hierarchical -s 4MiB -b flow --format csv");
  ASSERT_EQ(run.status, 0) << run.err;
  const double bytes = 4 * 1048576.0;
  const Bound b = halving_doubling(bytes, {2, 2}, {100e9, 10e9}, {100, 500});
  const double t = time_ns(run.out);
  EXPECT_GE(t, b.bandwidth_ns);
  EXPECT_LE(t, (b.bandwidth_ns + b.latency_ns) * 1.0001);
  EXPECT_NEAR(b.bandwidth_ns + b.latency_ns, 254058, 1);
}

TEST(GraphImportDims, HierarchicalOnSimaiFilesMatchesClosedForm) {
  // Spectrum-X: 64 MiB, dim0 8 GPUs at 300 GB/s (25 ns hops), dim1 2 servers at 12.5 GB/s
  // (500 ns hops, one ASW: a rail's GPUs share it). 128 GPUs: 8 at 112.5 GB/s (25 ns), 16 at
  // 25 GB/s (1 us). Halving-doubling in each (8 and 16 are powers of two).
  struct Case {
    std::string file;
    std::vector<std::uint32_t> sizes;
    std::vector<double> bw, lat;
  };
  for (const Case& c : {Case{kSpectrum, {8, 2}, {300e9, 12.5e9}, {25, 500}},
                        Case{kRail128, {8, 16}, {112.5e9, 25e9}, {25, 1000}}}) {
    const auto run = test::collsim("collective -t file:" + c.file +
                                   " -c all-reduce -a hierarchical -s 64MiB -b flow --format csv");
    ASSERT_EQ(run.status, 0) << c.file << run.err;
    const Bound b = halving_doubling(64 * 1048576.0, c.sizes, c.bw, c.lat);
    const double t = time_ns(run.out);
    EXPECT_GE(t, b.bandwidth_ns) << c.file;
    EXPECT_LE(t, (b.bandwidth_ns + b.latency_ns) * 1.0001) << c.file;
  }
}

TEST(GraphImportDims, BadDimensionsNameTheFileAndField) {
  const std::string links =
      R"("links": [{"from": 0, "to": 4}, {"from": 1, "to": 4}, {"from": 2, "to": 4},
                   {"from": 3, "to": 4}])";
  const std::string head =
      R"({"npus": 4, "switches": 1, "defaults": {"bandwidth": "1 GB/s", "latency": "1 ns"},)";
  struct Case {
    std::string name, dims, want;
  };
  for (const Case& c : std::vector<Case>{
           {"product.json", R"("dimensions": [3],)",
            "product.json:1: dimensions: the sizes 3 multiply to 3, not npus 4"},
           {"size.json", R"("dimensions": [4, 1],)",
            "size.json:1: dimensions[1]: must be >= 2, got 1"},
           {"kind.json", R"("dimensions": [{"size": 4, "kind": "tree"}],)",
            "kind.json:1: dimensions[0].kind: unknown kind \"tree\""},
           {"key.json", R"("dimensions": [{"size": 4, "speed": 1}],)",
            "key.json:1: dimensions[0].speed: unknown key"},
           {"bw.json", R"("dimensions": [{"size": 4, "bandwidth": "fast"}],)",
            "bw.json:1: dimensions[0].bandwidth:"},
           {"list.json", R"("dimensions": 4,)", "list.json:1: dimensions: must be a non-empty"},
           // No NVSwitch: every link carries the last dimension, none dim0.
           {"empty.json", R"("dimensions": [2, 2],)",
            "empty.json:1: dimensions[0]: no link of NPU 0 carries dimension 0"},
       }) {
    const auto r = test::collsim("collective -t file:" + write(c.name, head + c.dims + links + "}") +
                                 " -c all-reduce -a hierarchical -s 1MiB");
    EXPECT_EQ(r.status, 2) << c.name;
    EXPECT_NE(r.err.find(c.want), std::string::npos) << r.err;
  }
  // A link's own "dim": in range, and only with dimensions.
  const auto range = test::collsim(
      "inventory -t file:" +
      write("dim.json", head + R"("dimensions": [4], "links": [{"from": 0, "to": 4, "dim": 1},
          {"from": 1, "to": 4}, {"from": 2, "to": 4}, {"from": 3, "to": 4}]})"));
  EXPECT_EQ(range.status, 2);
  EXPECT_NE(range.err.find("dim.json:1: links[0].dim: dimension 1 out of range (1 dimensions)"),
            std::string::npos)
      << range.err;
  const auto none = test::collsim(
      "inventory -t file:" +
      write("nodims.json", head + R"("links": [{"from": 0, "to": 4, "dim": 0},
          {"from": 1, "to": 4}, {"from": 2, "to": 4}, {"from": 3, "to": 4}]})"));
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("links[0].dim: the file has no \"dimensions\""), std::string::npos)
      << none.err;
  // An explicit "dim" puts links where the rule would not: both switches would carry the last.
  const auto fixed = test::collsim(
      "collective -t file:" +
      write("fixed.json", R"({"npus": 4, "switches": 2, "dimensions": [2, 2],
          "defaults": {"bandwidth": "1 GB/s", "latency": "1 ns"}, "links": [
          {"from": 0, "to": 4, "dim": 0}, {"from": 1, "to": 4, "dim": 0},
          {"from": 2, "to": 4, "dim": 0}, {"from": 3, "to": 4, "dim": 0},
          {"from": 0, "to": 5}, {"from": 1, "to": 5}, {"from": 2, "to": 5}, {"from": 3, "to": 5}]})") +
      " -c all-reduce -a hierarchical -s 1MiB -b analytical");
  EXPECT_EQ(fixed.status, 0) << fixed.err;
}

}  // namespace
}  // namespace collsim::topology
