// Golden outputs: every examples/ scenario's output against tests/golden/NAME.txt (and the same
// bytes on a second run); `make golden` rewrites them after an intended change.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "test_paths.hpp"

namespace {

using collsim::test::collsim;
using collsim::test::Result;

std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Golden test: compare with tests/golden/NAME, or rewrite it when COLLSIM_UPDATE_GOLDEN is set
// (`make golden`).
void expect_golden(const std::string& name, const std::string& actual) {
  const auto path = std::filesystem::path(COLLSIM_SOURCE_DIR) / "tests" / "golden" / name;
  if (std::getenv("COLLSIM_UPDATE_GOLDEN")) {
    std::ofstream(path) << actual;
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " missing; run `make golden`";
  EXPECT_EQ(read_file(path), actual)
      << "output of " << name << " changed; if intended, run `make golden`";
}

// One test per examples/*.yaml, so that CTest runs them in parallel.
std::vector<std::string> example_names() {
  std::vector<std::string> names;
  const auto dir = std::filesystem::path(COLLSIM_SOURCE_DIR) / "examples";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class GoldenExample : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenExample, MatchesItsGoldenOutputAndIsDeterministic) {
  const std::string stem = GetParam();
  const Result r = collsim("run examples/" + stem + ".yaml");
  ASSERT_EQ(r.status, 0) << stem << ": " << r.err;
  expect_golden(stem + ".txt", r.out);
  // Determinism: a second run gives the same bytes.
  EXPECT_EQ(collsim("run examples/" + stem + ".yaml").out, r.out) << stem;
}

INSTANTIATE_TEST_SUITE_P(Examples, GoldenExample, ::testing::ValuesIn(example_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(GoldenExamples, EveryExampleHasAGoldenOutput) {
  const auto names = example_names();
  EXPECT_GE(names.size(), 4u);
  for (const std::string& stem : names) {
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(COLLSIM_SOURCE_DIR) / "tests" /
                                        "golden" / (stem + ".txt")))
        << stem << " has no golden output; run `make golden`";
  }
}

TEST(GoldenExamples, DefaultScenarioAsCsvAndJson) {
  const Result csv = collsim("run examples/default.yaml --format csv");
  ASSERT_EQ(csv.status, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("platform,topology,npus,backend,collective,algorithm,chunks,size_bytes,"
                          "time_ns,algbw_GBps,busbw_GBps",
                          0),
            0u);
  const Result json = collsim("run examples/default.yaml --format json");
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_NE(json.out.find("\"time_ps\""), std::string::npos);
}

}  // namespace
