// Nothing lost on Ctrl-C or SIGTERM (issue 32): a sweep stopped during its second run prints the
// first run's row in the table and exits with status 3, naming the signal.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_paths.hpp"

namespace collsim::test {
namespace {

TEST(Interrupt, SigtermDuringASweepKeepsTheFinishedRows) {
  const auto dir = std::filesystem::temp_directory_path() / "collsim_interrupt";
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "out").string(), err = (dir / "err").string();
  // Start the sweep, wait until its progress line shows the 64 MiB run (about 30 s of packet
  // simulation), then send SIGTERM.
  const std::string script =
      std::string("'") + COLLSIM_BINARY +
      "' collective -t mesh:8x8 -c all-to-all -a direct -s 1KiB,64MiB -b packet --progress >'" +
      out + "' 2>'" + err + "' & pid=$!; for i in $(seq 300); do grep -q '\\[2/2\\]' '" + err +
      "' && break; sleep 0.1; done; sleep 0.5; kill -TERM $pid; wait $pid; echo $?";
  const std::string file = (dir / "run.sh").string();
  std::ofstream(file) << script << "\n";
  FILE* p = ::popen(("sh '" + file + "'").c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[64] = {};
  const std::string status = std::fgets(buf, sizeof buf, p) ? buf : "";
  ::pclose(p);
  const auto slurp = [](const std::string& f) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  const std::string table = slurp(out), log = slurp(err);
  EXPECT_EQ(status, "3\n") << log;
  EXPECT_NE(table.find("      1 KiB  direct"), std::string::npos) << table;
  EXPECT_EQ(table.find("64 MiB  direct"), std::string::npos) << table;
  EXPECT_NE(log.find("collsim: interrupted (SIGTERM): the run in progress was stopped"),
            std::string::npos)
      << log;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace collsim::test
