// --multipath, --ecmp-seed and --fail-links as a user drives them (docs/multipath.md): the same
// seed gives the same bytes, bad input exits 2 naming the option, inventory lists failed links.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_run.hpp"

namespace {

using collsim::test::collsim;
using collsim::test::Result;

const std::string kFatTree =
    "collective -t fattree:4x2 --link-bandwidth '1 GB/s' --link-latency '0 ns' -c all-to-all "
    "-a direct -s 64KiB --format csv ";

TEST(MultipathCli, SameSeedSameBytesAndTheSeedInTheBackendColumn) {
  const Result a = collsim(kFatTree + "--multipath ecmp --ecmp-seed 11");
  const Result b = collsim(kFatTree + "--multipath ecmp --ecmp-seed 11");
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out.find(",flow:multipath=ecmp:seed=11,"), std::string::npos) << a.out;
  const Result none = collsim(kFatTree);
  ASSERT_EQ(none.status, 0) << none.err;
  EXPECT_NE(none.out.find(",flow,"), std::string::npos);
}

TEST(MultipathCli, SprayPacketRunsOnBothBackends) {
  const Result r = collsim(kFatTree + "-b flow,packet --multipath spray-packet");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(",flow:multipath=spray-packet,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",packet:multipath=spray-packet,"), std::string::npos) << r.out;
}

TEST(MultipathCli, BadInputExitsTwoNamingTheOption) {
  struct Case {
    std::string args, says;
  };
  const Case cases[] = {
      {"--multipath sideways", "--multipath"},
      {"--multipath ecmp -b analytical", "--multipath"},
      {"--ecmp-seed 3", "ecmp_seed"},
      {"--fail-links sw0-sw1", "no link between sw0 and sw1"},
      {"--fail-links sw0-sw99", "out of range"},
      {"--fail-links npu0-sw0", "can no longer reach"},
      {"--fail-links 'sw0>sw4,sw0>sw5,sw0>sw6,sw0>sw7'", "can no longer reach"},
  };
  for (const Case& c : cases) {
    const Result r = collsim(kFatTree + c.args);
    EXPECT_EQ(r.status, 2) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << c.args;
  }
  const Result torus = collsim(
      "collective -t torus:4x4 -c all-reduce -a ring -s 1MiB --multipath ecmp --format csv");
  EXPECT_EQ(torus.status, 2);
  EXPECT_NE(torus.err.find("dimension-order"), std::string::npos) << torus.err;
}

// time_ns (the 9th CSV column) of the hierarchical row.
double hierarchical_ns(const std::string& csv) {
  const auto row = csv.find(",hierarchical,");
  if (row == std::string::npos) return -1;
  std::size_t at = csv.rfind('\n', row) + 1;
  for (int i = 0; i < 8; ++i) at = csv.find(',', at) + 1;
  return std::stod(csv.substr(at, csv.find(',', at) - at));
}

TEST(MultipathCli, RailFatSprayPacketUsesBothPlanes) {
  // railfat:16x8, 1 GiB hierarchical all-reduce on the flow backend. One plane: 9.34 ms. Two
  // planes of half the bandwidth each: a message takes one plane (halving-doubling has one
  // partner per step), 14.37 ms; spray-packet spreads it over both, back to the one-plane time.
  const std::string run =
      "collective -t railfat:16x8:planes={} -c all-reduce -a hierarchical -s 1GiB -b flow "
      "--format csv";
  auto planes = [&](const char* p, const std::string& extra) {
    std::string cmd = run;
    cmd.replace(cmd.find("{}"), 2, p);
    return collsim(cmd + extra);
  };
  const Result one = planes("1", "");
  const Result two = planes("2", "");
  const Result spray = planes("2", " --multipath spray-packet");
  const Result again = planes("2", " --multipath spray-packet");
  for (const Result* r : {&one, &two, &spray}) ASSERT_EQ(r->status, 0) << r->err;
  EXPECT_EQ(spray.out, again.out);  // same inputs, same bytes
  EXPECT_NE(spray.out.find(",flow:multipath=spray-packet,"), std::string::npos) << spray.out;
  const double t1 = hierarchical_ns(one.out), t2 = hierarchical_ns(two.out);
  const double ts = hierarchical_ns(spray.out);
  EXPECT_GT(t1, 9.2e6);
  EXPECT_LT(t1, 9.5e6);
  EXPECT_GT(t2, 1.4 * t1);  // one plane per message: half the NIC on the rail steps
  EXPECT_LT(ts, t1 * 1.001);  // both planes: no slower than one plane of the same bandwidth
  EXPECT_GT(ts, t1 * 0.999);
  // ECMP too is accepted (the torus's refusal: BadInputExitsTwoNamingTheOption).
  const Result ecmp = planes("2", " --multipath ecmp");
  EXPECT_EQ(ecmp.status, 0) << ecmp.err;
}

TEST(MultipathCli, InventoryListsFailedLinks) {
  const Result r = collsim("inventory -t fattree:4x2 --fail-links 'sw0-sw4,sw1>sw5'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("failed links (3 directed): sw0>sw4 sw4>sw0 sw1>sw5"), std::string::npos)
      << r.out;
}

TEST(MultipathCli, ScenarioKeys) {
  const auto dir = std::filesystem::temp_directory_path() / "collsim_cli_test";
  std::filesystem::create_directories(dir);
  const auto path = dir / "multipath.yaml";
  auto write = [&](const std::string& fail) {
    std::ofstream(path) << "backend: {name: flow, multipath: spray-packet}\n"
                           "platform: {topology: fattree:4x2, link_bandwidth: 1 GB/s, "
                           "link_latency: 0 ns, fail_links: \""
                        << fail
                        << "\"}\n"
                           "jobs:\n  - {collective: all-to-all, sizes: [64 KiB], "
                           "algorithms: [direct]}\n";
  };
  write("sw0-sw4");
  const Result ok = collsim("run '" + path.string() + "' --format csv");
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.out.find(",flow:multipath=spray-packet,"), std::string::npos) << ok.out;
  write("sw0-sw9");
  const Result bad = collsim("run '" + path.string() + "' --format csv");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("multipath.yaml:2: platforms[0].fail_links: switch 9"), std::string::npos) << bad.err;
}

}  // namespace
