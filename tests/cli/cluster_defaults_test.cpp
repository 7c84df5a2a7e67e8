// Defaults on a real cluster shape (issue 32): 10 nodes x 8 H100, NVSwitch inside a node and a
// 400 Gb/s NIC per GPU between nodes. `hierarchical` at its defaults must run (halving-doubling
// needs a power of two: the 10-node dimension takes direct) and be the best row of `-a all`,
// at least as fast as the hand-picked `hierarchical:dim1=ring`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli_run.hpp"

namespace collsim::test {
namespace {

// algorithm -> busbw_GBps from `collsim ... --format csv` (columns by header name).
std::map<std::string, double> busbw(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  const auto cells = [](const std::string& l) {
    std::vector<std::string> out;
    std::stringstream ss(l);
    std::string c;
    while (std::getline(ss, c, ',')) out.push_back(c);
    return out;
  };
  const auto head = cells(line);
  std::size_t a = 0, b = 0;
  for (std::size_t i = 0; i < head.size(); ++i) {
    if (head[i] == "algorithm") a = i;
    if (head[i] == "busbw_GBps") b = i;
  }
  std::map<std::string, double> out;
  while (std::getline(in, line)) {
    const auto c = cells(line);
    if (c.size() > std::max(a, b) && !c[b].empty()) out[c[a]] = std::stod(c[b]);
  }
  return out;
}

TEST(ClusterDefaults, HierarchicalIsTheBestRowOnTenNodesOfEightGpus) {
  const std::string scenario = "examples/nvswitch-ib-10x8.yaml";
  const auto all = collsim("run " + scenario + " --format csv -q");
  ASSERT_EQ(all.status, 0) << all.err;
  const auto rows = busbw(all.out);
  ASSERT_TRUE(rows.count("hierarchical")) << all.out;
  for (const auto& [name, bw] : rows) {
    if (name != "hierarchical" && name != "ideal") {
      EXPECT_LT(bw, rows.at("hierarchical")) << name;
    }
  }
  // The hand-picked schedule on the same platform (dim1: ring across the nodes).
  std::ifstream in(std::string(COLLSIM_SOURCE_DIR) + "/" + scenario);
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const auto at = yaml.find("algorithms: [all]");
  ASSERT_NE(at, std::string::npos);
  yaml.replace(at, 17, "algorithms: [\"hierarchical:dim1=ring\"]");
  const auto path = std::filesystem::temp_directory_path() / "collsim_cluster_defaults.yaml";
  std::ofstream(path) << yaml;
  const auto picked = collsim("run '" + path.string() + "' --format csv -q");
  ASSERT_EQ(picked.status, 0) << picked.err;
  const auto p = busbw(picked.out);
  ASSERT_TRUE(p.count("hierarchical:dim1=ring")) << picked.out;
  EXPECT_GE(rows.at("hierarchical"), p.at("hierarchical:dim1=ring"));
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace collsim::test
