// `--links FILE.csv` (issue 32): every link's use in every run, for collective/run and train;
// refused with a reason where no run covers every link (llm, a replayed trace, a shard).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_run.hpp"

namespace collsim {
namespace {

using test::collsim;

std::filesystem::path dir_for(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("collsim_links_test_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::vector<std::vector<std::string>> read_csv(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
    rows.push_back(cells);
  }
  return rows;
}

TEST(LinksCsv, EveryLinkOfEveryRunWithItsBytesAndUtilization) {
  // Direct all-reduce of 1 MiB on fc:4 (12 directed links, 16 GB/s, 150 ns): every link carries
  // a quarter of the data in the reduce-scatter and again in the all-gather, 524288 B, over
  // 2 x (150 ns + 262144 B / 16 GB/s) = 33.068 us: utilization 524288 / (16e9 x 33.068e-6).
  const auto dir = dir_for("collective");
  const auto r = collsim("collective -t fc:4 -a direct -s 1MiB -b analytical -q --links '" +
                         (dir / "l.csv").string() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto rows = read_csv(dir / "l.csv");
  ASSERT_EQ(rows.size(), 1u + 12u);
  EXPECT_EQ(rows[0][0], "run");
  EXPECT_EQ(rows[0][13], "utilization");
  for (std::size_t i = 1; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i][0], "1");
    EXPECT_EQ(rows[i][6], std::to_string(i - 1));  // link ids in order
    EXPECT_EQ(rows[i][11], "524288");
    EXPECT_NEAR(std::stod(rows[i][13]), 524288.0 / (16e9 * 33.068e-6), 1e-6);
  }
}

TEST(LinksCsv, TrainingRunsAndRefusals) {
  const auto dir = dir_for("train");
  const auto file = (dir / "t.csv").string();
  const auto t = collsim("train -w examples/training/toy.yaml -t fc:4 -a direct,ring -q --links '" +
                         file + "'");
  ASSERT_EQ(t.status, 0) << t.err;
  const auto rows = read_csv(file);
  ASSERT_EQ(rows.size(), 1u + 2u * 12u);  // two runs of 12 links
  EXPECT_EQ(rows[0][1], "workload");
  EXPECT_EQ(rows.back()[0], "2");
  std::filesystem::remove(file);
  // No run covers every link: refused, nothing written.
  const auto l = collsim("llm examples/llm/sc21-gpt3-1.7b.yaml -q --links '" + file + "'");
  EXPECT_EQ(l.status, 2);
  EXPECT_NE(l.err.find("--links"), std::string::npos) << l.err;
  const auto s = collsim("collective -t fc:4 -s 1MiB --format csv --shard 1/2 -q --links '" +
                         file + "'");
  EXPECT_EQ(s.status, 2);
  EXPECT_NE(s.err.find("--links"), std::string::npos) << s.err;
  EXPECT_FALSE(std::filesystem::exists(file));
}

}  // namespace
}  // namespace collsim
