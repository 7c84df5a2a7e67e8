// Topologies read from graph files (topology/graph_import.hpp): SimAI's text format (files written
// by examples/topologies/make_simai_rail.py following SimAI's generator) and collsim's JSON/YAML,
// their routing (switches only forward; NVSwitch first), and the refusals with file:line.
#include "topology/graph_import.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <vector>
#include <string>

#include "cli_run.hpp"
#include "core/error.hpp"
#include "topology/builders.hpp"
#include "topology/inventory.hpp"

namespace collsim::topology {
namespace {

const std::string kDir = std::string(COLLSIM_SOURCE_DIR) + "/examples/topologies/";
const std::string kSpectrum = kDir + "Spectrum-X_16g_8gps_100Gbps_A100";
const std::string kRail128 = kDir + "Rail_Opti_SingleToR_128g_8gps_200Gbps_H20";

// The nodes a route visits after src.
std::vector<NodeId> hops_of(const Topology& t, NodeId src, NodeId dst) {
  std::vector<NodeId> v;
  NodeId at = src;
  for (LinkId l : t.route(src, dst)) {
    EXPECT_EQ(t.links()[l].src, at);
    at = t.links()[l].dst;
    v.push_back(at);
  }
  EXPECT_EQ(at, dst);
  return v;
}

// `text` in a file of that name under a temporary directory; returns its path.
std::string write(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "collsim_graph_import_test";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

std::string refusal(const std::string& path) {
  try {
    load_topology_file(path, "--topology");
  } catch (const core::InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << path << " was accepted";
  return {};
}

TEST(GraphImport, SimaiSpectrumX16Gpus) {
  // SimAI's header "90 8 2 72 544 A100": 90 nodes, 2 NVSwitches (16, 17), 72 switches (8 ASW
  // 18..25, one per rail, 64 PSW 26..89), 544 links: 16 NVLink, 16 NIC, 8 x 64 ASW-PSW.
  const Topology t = load_topology_file(kSpectrum, "--topology");
  EXPECT_EQ(t.name(), "Spectrum-X_16g_8gps_100Gbps_A100");
  EXPECT_EQ(t.num_npus(), 16u);
  EXPECT_EQ(t.num_switches(), 74u);
  EXPECT_EQ(t.links().size(), 2u * 544);
  // GPU 0: 2400 Gb/s to its NVSwitch 16, 100 Gb/s (0.0005 ms) to its rail's ASW 18.
  const Link& nv = t.links()[t.link_between(0, 16)];
  EXPECT_DOUBLE_EQ(nv.bandwidth.bytes_per_s, 300e9);
  EXPECT_EQ(nv.latency, core::Time::from_ns(25));
  const Link& nic = t.links()[t.link_between(0, 18)];
  EXPECT_DOUBLE_EQ(nic.bandwidth.bytes_per_s, 12.5e9);
  EXPECT_EQ(nic.latency, core::Time::from_ns(500));
  EXPECT_DOUBLE_EQ(t.links()[t.link_between(18, 26)].bandwidth.bytes_per_s, 50e9);
  // Same server: through the NVSwitch. Same rail: through the rail's ASW. Else up to a PSW and
  // down the destination's rail, never through another GPU (GPU 1 would make it 4 hops too:
  // 0 -> 16 -> 1 -> 19 -> 9).
  EXPECT_EQ(hops_of(t, 0, 1), (std::vector<NodeId>{16, 1}));
  EXPECT_EQ(hops_of(t, 0, 8), (std::vector<NodeId>{18, 8}));
  const auto cross = hops_of(t, 0, 9);
  ASSERT_EQ(cross.size(), 4u);
  EXPECT_EQ(cross[0], 18u);
  EXPECT_GE(cross[1], 26u);
  EXPECT_EQ(cross[2], 19u);
  // The hash spreads destinations over the 64 PSWs: GPU 0's 7 cross-rail peers on the other
  // server are reached through at least 4 different PSWs.
  std::set<NodeId> psw;
  for (NodeId d = 9; d < 16; ++d) psw.insert(hops_of(t, 0, d)[1]);
  EXPECT_GE(psw.size(), 4u);
  validate(t);
}

TEST(GraphImport, SimaiRailOptimised128Gpus) {
  // 128 GPUs on 16 servers of 8: 16 NVSwitches (128..143), 8 ASW (144..151, one per rail),
  // 8 PSW (152..159); links 16 x 8 NVLink + 128 NIC + 8 x 8 ASW-PSW = 320.
  const Topology t = load_topology_file(kRail128, "--topology");
  EXPECT_EQ(t.num_npus(), 128u);
  EXPECT_EQ(t.num_switches(), 32u);
  EXPECT_EQ(t.links().size(), 640u);
  EXPECT_EQ(hops_of(t, 0, 7), (std::vector<NodeId>{128, 7}));
  EXPECT_EQ(hops_of(t, 0, 120), (std::vector<NodeId>{144, 120}));  // rail 0, last server
  const auto far = hops_of(t, 0, 127);
  ASSERT_EQ(far.size(), 4u);
  EXPECT_EQ(far[0], 144u);
  EXPECT_EQ(far[2], 151u);
  EXPECT_DOUBLE_EQ(t.links()[t.link_between(0, 128)].bandwidth.bytes_per_s, 112.5e9);
  EXPECT_EQ(t.links()[t.link_between(0, 144)].latency, core::Time::from_ns(1000));
  // One inventory row per dimension (graph_import_dims_test.cpp): the 16 NVSwitches carry dim0
  // (a server), the 8 ASW and 8 PSW dim1 (across servers).
  const auto inv = inventory(t);
  ASSERT_EQ(inv.size(), 2u);
  EXPECT_EQ(inv[0].switches, 16u);
  EXPECT_EQ(inv[1].switches, 16u);
}

TEST(GraphImport, SwitchIdsAnywhereAndNvSwitchFirst) {
  // Switch ids need not follow the GPUs: nodes 0 and 3 are switches, GPUs 1, 2, 4 become NPUs
  // 0, 1, 2. NVSwitch 0 and switch 3 both join GPUs 1 and 2 in two hops: the NVSwitch wins.
  const std::string path = write("mixed_ids",
                                 "5 2 1 1 5 H100\n"
                                 "0 3\n"
                                 "1 3 100Gbps 0.001ms 0\n"
                                 "2 3 100Gbps 0.001ms 0\n"
                                 "1 0 900Gbps 0.000025ms 0\n"
                                 "2 0 900Gbps 0.000025ms 0\n"
                                 "4 3 100Gbps 0.001ms 0\n");
  const Topology t = load_topology_file(path, "--topology");
  EXPECT_EQ(t.num_npus(), 3u);
  // collsim ids: NPUs 0, 1, 2 (file 1, 2, 4), switches 3 (file 0, the NVSwitch), 4 (file 3).
  EXPECT_EQ(hops_of(t, 0, 1), (std::vector<NodeId>{3, 1}));
  EXPECT_EQ(hops_of(t, 1, 0), (std::vector<NodeId>{3, 0}));
  EXPECT_EQ(hops_of(t, 0, 2), (std::vector<NodeId>{4, 2}));
  EXPECT_DOUBLE_EQ(t.links()[t.link_between(2, 4)].bandwidth.bytes_per_s, 12.5e9);
}

TEST(GraphImport, JsonFormat) {
  // Two leaves of 2 NPUs, one spine; the spine links are 2 parallel 100 Gb/s links (count 2).
  const std::string path = write("two_leaves.json", R"({
    "name": "two-leaves",
    "npus": 4,
    "switches": 3,
    "defaults": {"bandwidth": "100 Gb/s", "latency": "500 ns"},
    "links": [
      {"from": 0, "to": 4}, {"from": 1, "to": 4}, {"from": 2, "to": 5}, {"from": 3, "to": 5},
      {"from": 4, "to": 6, "count": 2, "latency": "1 us"},
      {"from": 5, "to": 6, "count": 2, "latency": "1 us"}
    ]
  })");
  const Topology t = load_topology_file(path, "--topology");
  EXPECT_EQ(t.name(), "two-leaves");
  EXPECT_EQ(t.num_npus(), 4u);
  EXPECT_EQ(t.num_switches(), 3u);
  EXPECT_EQ(hops_of(t, 0, 3), (std::vector<NodeId>{4, 6, 5, 3}));
  const Link& up = t.links()[t.link_between(4, 6)];
  EXPECT_DOUBLE_EQ(up.bandwidth.bytes_per_s, 25e9);
  EXPECT_EQ(up.latency, core::Time::from_ns(1000));
  // YAML is read the same way.
  const Topology y = load_topology_file(
      write("two.yaml",
            "npus: 2\nswitches: 1\nnvswitches: [2]\nlinks:\n"
            "  - {from: 0, to: 2, bandwidth: 900 GB/s, latency: 25 ns}\n"
            "  - {from: 1, to: 2, bandwidth: 900 GB/s, latency: 25 ns}\n"),
      "--topology");
  EXPECT_EQ(y.name(), "two.yaml");
  EXPECT_EQ(hops_of(y, 0, 1), (std::vector<NodeId>{2, 1}));
}

TEST(GraphImport, BadFilesNameTheLineAndField) {
  const auto has = [](const std::string& msg, const std::string& want) {
    EXPECT_NE(msg.find(want), std::string::npos) << msg;
  };
  const std::string head = "4 2 0 1 3 H100\n2\n";
  has(refusal(write("rate", head + "0 2 100Gbps 0.001ms 0\n1 2 100Gbs 0.001ms 0\n"
                                   "3 2 100Gbps 0.001ms 0\n")),
      "rate:4: link rate: \"100Gbs\" is not a positive ns-3 data rate");
  has(refusal(write("latency", head + "0 2 100Gbps 1 0\n")), "latency:3: link latency:");
  has(refusal(write("loss", head + "0 2 100Gbps 0.001ms 0.01\n")),
      "loss:3: link error_rate: 0.01: collsim's links are lossless");
  has(refusal(write("short", head + "0 2 100Gbps 0.001ms 0\n1 2 100Gbps 0.001ms 0\n")),
      "short:5: link src: the file ends");
  has(refusal(write("range", head + "0 9 100Gbps 0.001ms 0\n")),
      "range:3: link dst: node 9 out of range (node_num 4)");
  has(refusal(write("twice", head + "0 2 100Gbps 0.001ms 0\n2 0 100Gbps 0.001ms 0\n"
                                    "1 2 100Gbps 0.001ms 0\n")),
      "twice:4: link: nodes 2 and 0 are linked twice");
  has(refusal(write("split", head + "0 2 100Gbps\n0.001ms 0\n")),
      "split:4: link: a link is one line");
  has(refusal(write("longer", head + "0 2 100Gbps 0.001ms 0\n1 2 100Gbps 0.001ms 0\n"
                                     "3 2 100Gbps 0.001ms 0\n0 1 1Gbps 1ms 0\n")),
      "longer:6: link_num: more text after the 3 links");
  has(refusal(write("header", "4 2 1 3 H100\n")), "header:1: link_num: \"H100\"");
  // NPU 3 hangs off NPU 1 only: reachable through an NPU, which does not forward.
  has(refusal(write("island", head + "0 2 100Gbps 0.001ms 0\n1 2 100Gbps 0.001ms 0\n"
                                     "3 1 100Gbps 0.001ms 0\n")),
      "island: NPU 0 cannot reach NPU 3");
  has(refusal(write("bad.json", R"({"npus": 2, "links": [{"from": 0, "to": 1,
      "bandwidth": "10", "latency": "1 ns"}]})")),
      "bad.json:2: links[0].bandwidth:");
  has(refusal(write("keys.json", "{\"npus\": 2, \"link\": []}")), "unknown key");
  has(refusal(write("self.json", "{\"npus\": 2, \"links\": [{\"from\": 1, \"to\": 1, "
                                 "\"bandwidth\": \"1 GB/s\", \"latency\": \"1 ns\"}]}")),
      "links[0].to: a link from node 1 to itself");
  has(refusal(write("apart.json", "{\"npus\": 2, \"switches\": 2, \"defaults\": {\"bandwidth\":"
                                  " \"1 GB/s\", \"latency\": \"1 ns\"}, \"links\": [{\"from\": 0,"
                                  " \"to\": 2}, {\"from\": 1, \"to\": 3}]}")),
      "apart.json: links: NPU 1 is not reachable from NPU 0");
  has(refusal(write("nothing.json", "[1, 2]")), "top level: must be a map");
  has(refusal("/nonexistent/x.json"), "--topology: no topology file \"/nonexistent/x.json\"");
}

TEST(GraphImport, Ns3Units) {
  EXPECT_DOUBLE_EQ(parse_ns3_rate("400Gbps", "r").bytes_per_s, 50e9);
  EXPECT_DOUBLE_EQ(parse_ns3_rate("1.5GBps", "r").bytes_per_s, 1.5e9);
  EXPECT_DOUBLE_EQ(parse_ns3_rate("100Mb/s", "r").bytes_per_s, 12.5e6);
  EXPECT_DOUBLE_EQ(parse_ns3_rate("8KiB/s", "r").bytes_per_s, 8192);
  EXPECT_THROW(parse_ns3_rate("0Gbps", "r"), core::InputError);
  EXPECT_THROW(parse_ns3_rate("400 Gbps", "r"), core::InputError);
  EXPECT_EQ(parse_ns3_time("0.000025ms", "t"), core::Time::from_ns(25));
  EXPECT_EQ(parse_ns3_time("0.0005ms", "t"), core::Time::from_ns(500));
  EXPECT_EQ(parse_ns3_time("2us", "t"), core::Time::from_ns(2000));
  EXPECT_THROW(parse_ns3_time("5", "t"), core::InputError);
}

TEST(GraphImportCli, FileTopologiesRunUnchanged) {
  using test::collsim;
  const std::string rel = "examples/topologies/Spectrum-X_16g_8gps_100Gbps_A100";
  const auto inv = collsim("inventory -t file:" + rel);
  ASSERT_EQ(inv.status, 0) << inv.err;
  EXPECT_NE(inv.out.find("16 NPUs, 74 switches, 1088 directed links"), std::string::npos)
      << inv.out;
  const auto run = collsim("collective -t file:" + rel +
                           " -c all-reduce -a ring,direct -s 1MiB -b flow --format csv");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("Spectrum-X_16g_8gps_100Gbps_A100,16,flow,all-reduce,ring"),
            std::string::npos)
      << run.out;
  const auto ver = collsim("verify -t file:" + rel + " -c all-to-all -a direct");
  EXPECT_EQ(ver.status, 0) << ver.err;
  const auto json = collsim("inventory -t file:examples/topologies/two-leaves.json");
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_NE(json.out.find("two-leaves: 4 NPUs, 3 switches, 12 directed links"), std::string::npos)
      << json.out;
  const auto links = collsim("inventory -t file:" + rel + " --link-bandwidth 1GB/s");
  EXPECT_EQ(links.status, 2);
  EXPECT_NE(links.err.find("its links are the file's"), std::string::npos) << links.err;
  const auto bad = collsim("inventory -t file:" + write("cli_bad", "3 1 0 0 1 X\n0 1 1Gbps 1 0\n"));
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("cli_bad:2: link latency"), std::string::npos) << bad.err;
  const auto none = collsim("inventory -t file:");
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("missing the file"), std::string::npos) << none.err;
}

TEST(GraphImportCli, ScenarioFindsTheFileBesideIt) {
  using test::collsim;
  write("fabric.json",
        R"({"npus": 4, "switches": 1, "defaults": {"bandwidth": "100 Gb/s", "latency": "1 us"},
            "links": [{"from": 0, "to": 4}, {"from": 1, "to": 4}, {"from": 2, "to": 4},
                      {"from": 3, "to": 4}]})");
  const std::string scenario = write("scenario.yaml",
                                     "platform:\n  topology: file:fabric.json\n"
                                     "job:\n  collective: all-reduce\n  sizes: [1 MiB]\n"
                                     "  algorithms: [ring]\n");
  const auto r = collsim("run " + scenario + " --format csv");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("fabric.json,4,flow,all-reduce,ring"), std::string::npos) << r.out;
  const std::string with_bw = write("scenario_bw.yaml",
                                    "platform:\n  topology: file:fabric.json\n"
                                    "  link_bandwidth: 1 GB/s\n"
                                    "job:\n  collective: all-reduce\n  sizes: [1 MiB]\n"
                                    "  algorithms: [ring]\n");
  const auto b = collsim("run " + with_bw);
  EXPECT_EQ(b.status, 2);
  EXPECT_NE(b.err.find("link_bandwidth: not used by file:fabric.json: its links are the file's"),
            std::string::npos)
      << b.err;
}

}  // namespace
}  // namespace collsim::topology
