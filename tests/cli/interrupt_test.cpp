// Nothing lost on Ctrl-C or SIGTERM (issue 32): a sweep stopped during its second run prints the
// first run's row in the table and exits with status 143 (128 + SIGTERM), naming the signal.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_paths.hpp"

namespace collsim::test {
namespace {

// Runs `args` in the background, sends SIGTERM once standard error shows `ready` (and half a
// second more), returns the exit status, standard output and standard error.
struct Stopped {
  std::string status, out, err;
};
Stopped sigterm_when(const std::string& args, const std::string& ready) {
  // One folder per test: CTest runs the tests of this file in parallel processes.
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto dir =
      std::filesystem::temp_directory_path() / (std::string("collsim_interrupt_") + test->name());
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "out").string(), err = (dir / "err").string();
  const std::string script =
      std::string("'") + COLLSIM_BINARY + "' " + args + " >'" + out + "' 2>'" + err +
      "' & pid=$!; for i in $(seq 300); do grep -q '" + ready + "' '" + err +
      "' && break; sleep 0.1; done; sleep 0.5; kill -TERM $pid; wait $pid; echo $?";
  const std::string file = (dir / "run.sh").string();
  std::ofstream(file) << script << "\n";
  FILE* p = ::popen(("sh '" + file + "'").c_str(), "r");
  Stopped s;
  if (p == nullptr) return s;
  char buf[64] = {};
  s.status = std::fgets(buf, sizeof buf, p) ? buf : "";
  ::pclose(p);
  const auto slurp = [](const std::string& f) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  s.out = slurp(out), s.err = slurp(err);
  std::filesystem::remove_all(dir);
  return s;
}

TEST(Interrupt, SigtermDuringASweepKeepsTheFinishedRows) {
  // One thread: the sweep is stopped during its second run (about 30 s of packet simulation).
  const Stopped s = sigterm_when(
      "collective -t mesh:8x8 -c all-to-all -a direct -s 1KiB,64MiB -b packet --progress "
      "--jobs 1",
      "\\[2/2\\]");
  EXPECT_EQ(s.status, "143\n") << s.err;  // 128 + SIGTERM (issue 52)
  EXPECT_NE(s.out.find("      1 KiB  direct"), std::string::npos) << s.out;
  EXPECT_EQ(s.out.find("64 MiB  direct"), std::string::npos) << s.out;
  EXPECT_NE(s.err.find("collsim: interrupted (SIGTERM): the run in progress was stopped"),
            std::string::npos)
      << s.err;
}

TEST(Interrupt, SigtermDuringAParallelSweepKeepsEveryFinishedPointInOrder) {
  // Two threads: the 64 MiB run starts first (the costliest), the 1 KiB and 2 KiB runs finish
  // beside it; SIGTERM stops the 64 MiB run and both finished rows are printed, in input order.
  const Stopped s = sigterm_when(
      "collective -t mesh:8x8 -c all-to-all -a direct -s 1KiB,64MiB,2KiB -b packet --progress "
      "--jobs 2",
      "\\[2/3 done");
  EXPECT_EQ(s.status, "143\n") << s.err;  // 128 + SIGTERM (issue 52)
  const auto one = s.out.find("      1 KiB  direct"), two = s.out.find("      2 KiB  direct");
  EXPECT_NE(one, std::string::npos) << s.out;
  EXPECT_NE(two, std::string::npos) << s.out;
  EXPECT_LT(one, two) << s.out;
  EXPECT_EQ(s.out.find("64 MiB  direct"), std::string::npos) << s.out;
  EXPECT_NE(s.err.find("collsim: interrupted (SIGTERM)"), std::string::npos) << s.err;
}

}  // namespace
}  // namespace collsim::test
