// The optical ring from the command line: the WRHT table with its wavelength figures, the
// --lightpaths log, and errors (exit status 2 naming the flag).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_run.hpp"

namespace {

using collsim::test::collsim;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(OpticalCli, LightpathLogHasEveryLightpath) {
  // N = 8, m = 3: groups {0,1,2} {3,4,5} {6,7} with representatives 1, 4, 7; then an all-to-all
  // among the 3 (ceil(9/8) = 2 <= 64): 5 up, 6 across, 5 down = 16 lightpaths.
  const std::string path = ::testing::TempDir() + "/lightpaths.csv";
  std::filesystem::remove(path);
  const auto r = collsim(
      "collective -t optical-ring:8 -b optical -a wrht:m=3 -s 1MB --link-latency "
      "5ns --lightpaths " +
      path + " -q");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("lightpaths 16, peak_wavelengths_per_segment"), std::string::npos) << r.out;
  const std::string csv = slurp(path);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 17);
  EXPECT_EQ(csv.rfind("run,src,dst,direction,hops,wavelength,requested_ns,begin_ns,end_ns\n", 0),
            0u);
  // Member 0 sends 1 MB to representative 1 at once: 1 us set-up + 320 us at 25 Gb/s + 5 ns.
  EXPECT_NE(
      csv.find("optical-ring:8 wrht:m=3 1 MB optical,0,1,cw,1,0,0.000,0.000,321005.000\n"),
      std::string::npos)
      << csv;
}

TEST(OpticalCli, ErrorsNameTheFlag) {
  auto bad = collsim("collective -t torus:4x4 --wavelengths 8 -a ring -s 1MiB");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--wavelengths: only optical topologies (optical-ring:N) have "
                         "wavelengths, not \"torus:4x4\""),
            std::string::npos)
      << bad.err;
  bad = collsim("collective -t optical-ring:8 --wavelengths 5000 -a ring -s 1MiB");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--wavelengths: must be a whole number 1..4096, got \"5000\""),
            std::string::npos);
  bad = collsim("collective -t torus:4x4 -b optical -a ring -s 1MiB");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("the optical backend needs an optical ring topology"), std::string::npos);
  bad = collsim("collective -t optical-ring:8 -b optical --vcs 2 -a ring -s 1MiB");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--vcs: the optical backend does not model"), std::string::npos);
  bad = collsim("train -w examples/training/toy.yaml -t fc:4 --lightpaths x.csv");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--lightpaths: training runs do not log lightpaths"), std::string::npos);
}

}  // namespace
