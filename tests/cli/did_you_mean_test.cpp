// Errors that guide (issue 32): a misspelt option, scenario key or ASTRA-sim system key is
// answered with the closest valid one, exit status 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_run.hpp"

namespace collsim::test {
namespace {

TEST(DidYouMean, MisspeltOptionsKeysAndSystemKeys) {
  const auto o = collsim("collective --topolgy torus:4x4 -s 1MiB");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.err.find("unknown option --topolgy of `collsim collective`; did you mean "
                       "--topology?"),
            std::string::npos)
      << o.err;
  const auto none = collsim("train --frobnicate 3");
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("unknown option --frobnicate of `collsim train` (its options: "
                          "`collsim train --help`)"),
            std::string::npos)
      << none.err;
  // A value may start with dashes only after `--`; options with `=` are checked by name.
  EXPECT_EQ(collsim("collective --topology=ring:4 -s 1KiB -q").status, 0);

  const auto dir = std::filesystem::temp_directory_path() / "collsim_did_you_mean";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "s.yaml") << "name: x\nplatform: {topology: \"ring:4\", link_bandwidth: 16 "
                                   "GB/s, link_latency: 150 ns}\njobs:\n  - collective: "
                                   "all-reduce\n    sizs: [1MiB]\n";
  const auto y = collsim("run '" + (dir / "s.yaml").string() + "'");
  EXPECT_EQ(y.status, 2);
  EXPECT_NE(y.err.find("jobs[0].sizs: unknown key; did you mean sizes? (valid: "),
            std::string::npos)
      << y.err;
  std::ofstream(dir / "sys.json") << R"({"scheduling_policy": "LIFO", "endpoint-delay": 10,
      "all-reduce-implementation": ["ring"]})";
  std::ofstream(dir / "net.yml")
      << "topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n";
  const auto a = collsim("astra --workload-configuration=examples/training/toy.yaml "
                         "--system-configuration='" + (dir / "sys.json").string() +
                         "' --network-configuration='" + (dir / "net.yml").string() + "'");
  EXPECT_EQ(a.status, 2);
  EXPECT_NE(a.err.find("scheduling_policy: not a system key; did you mean scheduling-policy?"),
            std::string::npos)
      << a.err;
  std::filesystem::remove_all(dir);
}

TEST(DidYouMean, ForeignInputsGivenToRunNameTheirCommand) {
  const auto dir = std::filesystem::temp_directory_path() / "collsim_foreign_inputs";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "net.yml")
      << "topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n";
  std::ofstream(dir / "sys.json") << R"({"scheduling-policy": "LIFO", "endpoint-delay": 10})";
  const auto n = collsim("run '" + (dir / "net.yml").string() + "'");
  EXPECT_EQ(n.status, 2);
  EXPECT_NE(n.err.find("net.yml: not a collsim scenario; it looks like an ASTRA-sim network file: "
                       "give it to `collsim astra --network-configuration FILE`"),
            std::string::npos)
      << n.err;
  const auto s = collsim("run '" + (dir / "sys.json").string() + "'");
  EXPECT_EQ(s.status, 2);
  EXPECT_NE(s.err.find("it looks like an ASTRA-sim system file"), std::string::npos) << s.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace collsim::test
