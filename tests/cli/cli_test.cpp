// The command line as a user drives it: one test per command and error class (message and exit
// status 2, nothing written). Golden outputs of the examples are in tests/golden/golden_test.cpp.
#include "test_paths.hpp"
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "network/backend.hpp"
#include "network/params.hpp"
#include "topology/dim_kind.hpp"
#include "topology/forms.hpp"

namespace {

using collsim::test::collsim;
using collsim::test::Result;

// Write `yaml` as scenario file `name` in the test's temporary directory and run it with `args`.
Result run_scenario(const std::string& name, const std::string& yaml,
                    const std::string& args = "") {
  const auto dir = std::filesystem::temp_directory_path() / "collsim_cli_test";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << yaml;
  return collsim("run '" + path.string() + "'" + (args.empty() ? "" : " " + args));
}

// A one-job scenario on a 4-ring at 16 GB/s: `backend` and `latency` vary, the job is `job`.
std::string ring4_scenario(const std::string& backend, const std::string& latency,
                           const std::string& job) {
  return "backend: " + backend + "\nplatform: {topology: ring:4, link_bandwidth: 16 GB/s, " +
         "link_latency: " + latency + "}\njobs:\n  - " + job + "\n";
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(Cli, CollectiveCommandPrintsOneRowPerAlgorithmAndSize) {
  const Result r = collsim(
      "collective --topology torus:8x8 --link-bandwidth '16 GB/s' --link-latency '150 ns' "
      "--collective all-reduce --algorithms ring,halving-doubling,direct --sizes 32KiB:64MiB "
      "--format csv");
  ASSERT_EQ(r.status, 0) << r.err;
  std::size_t lines = 0;
  for (char c : r.out) lines += c == '\n';
  EXPECT_EQ(lines, 1u + 12u * 3u);  // header + 12 sizes x 3 algorithms
  // Ring on the 8x8 torus at 64 MiB: 2*63*(150 ns + 64 MiB/(64*16 GB/s)) = 126 * 65686 ns.
  EXPECT_NE(r.out.find("ring,1,67108864,8276436.000"), std::string::npos) << r.out;
}

TEST(Cli, BadUnitIsAnErrorNamingTheField) {
  const Result r = collsim("collective --topology ring:8 --link-bandwidth 16 --sizes 1MiB");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--link-bandwidth"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no unit"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(Cli, UnknownAlgorithmListsTheValidOnes) {
  const Result r = collsim("collective --topology ring:8 --algorithms ring,tree --sizes 1MiB");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown algorithm \"tree\"; valid: ring, direct"), std::string::npos)
      << r.err;
}

TEST(Cli, ImpossibleCombinationSaysWhy) {
  const Result r =
      collsim("collective --topology torus:3x4 --algorithms halving-doubling --sizes 1MiB");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("power-of-two number of ranks, got 12"), std::string::npos) << r.err;
  const Result a2a = collsim(
      "collective --topology fc:8 --collective all-to-all --algorithms halving-doubling "
      "--sizes 1MiB");
  EXPECT_EQ(a2a.status, 2);
  EXPECT_NE(a2a.err.find("does not implement all-to-all"), std::string::npos) << a2a.err;
}

TEST(Cli, UnknownTopologyAndBackendAndFormat) {
  EXPECT_EQ(collsim("collective --topology tourus:8x8 --sizes 1MiB").status, 2);
  const Result b = collsim("collective --topology ring:4 --sizes 1MiB --backend booksim");
  EXPECT_EQ(b.status, 2);
  EXPECT_NE(b.err.find("unknown backend \"booksim\"; valid: analytical, queue, flow"),
            std::string::npos);
  const Result f = collsim("collective --topology ring:4 --sizes 1MiB --format xml");
  EXPECT_EQ(f.status, 2);
  EXPECT_NE(f.err.find("--format"), std::string::npos);
  EXPECT_EQ(collsim("collective --sizes 1MiB").status, 2);  // missing --topology
  EXPECT_EQ(collsim("frobnicate").status, 2);
}

TEST(Cli, FailedRunWritesNoOutputFile) {
  const auto out = std::filesystem::temp_directory_path() / "collsim_cli_test" / "never.csv";
  std::filesystem::remove(out);
  const Result r = collsim(
      "collective --topology torus:3x3 --algorithms ring,halving-doubling "
      "--sizes 1MiB --format csv --output '" +
      out.string() + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(out.string() + ".tmp"));
  const Result ok = collsim(
      "collective --topology torus:3x3 --algorithms ring --sizes 1MiB "
      "--format csv --output '" +
      out.string() + "'");
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_TRUE(ok.out.empty());
  EXPECT_NE(read_file(out).find("torus:3x3"), std::string::npos);
}

TEST(Cli, TimeBoundEndsARunWithTheStuckRanks) {
  const Result r = collsim(
      "collective --topology ring:8 --algorithms ring --sizes 64MiB "
      "--max-time '1 us'");
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("time bound"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rank 0"), std::string::npos) << r.err;
}

TEST(Cli, VerifyAndList) {
  const Result v = collsim("verify --topology torus:4x4 --algorithm ring:directions=2");
  EXPECT_EQ(v.status, 0) << v.err;
  EXPECT_EQ(v.out.rfind("ok: ring:directions=2 all-reduce on torus:4x4 (16 ranks", 0), 0u) << v.out;
  const Result l = collsim("list");
  EXPECT_EQ(l.status, 0);
  for (const char* name : {"torus:AxB", "halving-doubling", "recursive-doubling", "analytical",
                           "all-to-all", "directions"}) {
    EXPECT_NE(l.out.find(name), std::string::npos) << name;
  }
}

TEST(Cli, VersionIsTheCMakeProjectVersion) {
  const Result r = collsim("--version");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, std::string("collsim ") + COLLSIM_VERSION + "\n");  // "collsim 0.1.0"
  // MAJOR.MINOR.PATCH, as project(collsim VERSION ...) in CMakeLists.txt gives it.
  const std::string v = COLLSIM_VERSION;
  EXPECT_EQ(std::count(v.begin(), v.end(), '.'), 2) << v;
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](char c) { return c == '.' || std::isdigit(c); }))
      << v;
  EXPECT_EQ(r.err, "");
}

TEST(Cli, ScenarioErrorsNameFileLineAndKey) {
  const Result r = run_scenario("bad.yaml",
                                "platforms:\n  - topology: ring:4\n    link_bandwidth: 0 GB/s\n"
                                "    link_latency: 1 ns\njobs:\n  - {collective: all-reduce, "
                                "sizes: 1MiB, algorithms: ring}\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("bad.yaml:3: platforms[0].link_bandwidth"), std::string::npos) << r.err;
  EXPECT_EQ(collsim("run /nonexistent.yaml").status, 2);
}

TEST(Cli, BusiestLinksBlockListsOnlyItsOwnChunksRows) {
  // Two jobs that differ only in chunks make two table blocks; each block's busiest-links list
  // has one line per algorithm of that block, not the rows of the block before it.
  const std::string job = "{collective: all-reduce, sizes: 4MiB, algorithms: [ring, direct], ";
  const Result r = run_scenario("chunk_blocks.yaml",
                                "platform: {topology: ring:4, link_bandwidth: 16 GB/s, "
                                "link_latency: 0 ns}\njobs:\n  - " +
                                    job + "chunks: 1}\n  - " + job + "chunks: 4}\n");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::size_t second = r.out.find("flow backend, 4 chunks\n");
  ASSERT_NE(second, std::string::npos) << r.out;
  // Ring and direct both keep every link of the 4-ring busy the whole run at 4 MiB.
  const std::string links = "dims 100%  links 0->1 100%, 1->2 100%, 2->3 100%\n";
  EXPECT_EQ(r.out.substr(r.out.find("  at 4 MiB:", second)),
            "  at 4 MiB: utilization per dimension, and the busiest links\n"
            "  ring       " +
                links + "  direct     " + links)
      << r.out;
}

}  // namespace

namespace {

TEST(CliBackends, SeveralBackendsInOneRunAndNpuLimits) {
  const Result r = collsim(
      "collective -t fc:8 -a direct -s 64MiB -b analytical,queue,flow "
      "--format csv");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(",analytical,"), std::string::npos);
  EXPECT_NE(r.out.find(",queue,"), std::string::npos);
  EXPECT_NE(r.out.find(",flow,"), std::string::npos);
  // A 25 GB/s NIC in front of seven 16 GB/s links: direct reduce-scatter and all-gather each
  // push 7 x 8 MiB = 56 MiB through it, 2 x 58720256 B / 25e9 B/s = 4.698 ms, plus latency.
  const Result capped = collsim(
      "collective -t fc:8 -a direct -s 64MiB --npu-injection-bandwidth "
      "'25 GB/s' --format csv");
  ASSERT_EQ(capped.status, 0) << capped.err;
  EXPECT_NE(capped.out.find(",direct,1,67108864,4697920."), std::string::npos) << capped.out;
  const Result refused = collsim(
      "collective -t fc:8 -a direct -s 64MiB -b analytical "
      "--npu-injection-bandwidth '25 GB/s'");
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("does not model NPU injection/ejection limits"), std::string::npos)
      << refused.err;
}

TEST(CliBackends, ScenarioBackendListAndErrors) {
  const std::string gather = "{collective: all-gather, sizes: 4MiB, algorithms: ring}";
  const Result r = run_scenario(
      "backends.yaml",
      ring4_scenario("[analytical, {name: flow, npu_ejection_bandwidth: 8 GB/s}]", "0 ns", gather),
      "--format csv");
  ASSERT_EQ(r.status, 0) << r.err;
  // Ring all-gather on a 4-ring: 3 steps of 1 MiB. Analytical: 3 x 1048576 / 16e9 = 196.608 us.
  // With an 8 GB/s ejection cap each 1 MiB message arrives at 8 GB/s: 393.216 us.
  EXPECT_NE(r.out.find(",analytical,all-gather,ring,1,4194304,196608.000"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(",flow:eject=8 GB/s,all-gather,ring,1,4194304,393216.000"),
            std::string::npos)
      << r.out;
  const Result e = run_scenario(
      "bad_backend.yaml",
      ring4_scenario("{name: queue, npu_injection_bandwidth: 8 GB/s}", "0 ns", gather));
  EXPECT_EQ(e.status, 2);
  EXPECT_NE(e.err.find("bad_backend.yaml:1: backend: the queue backend does not model"),
            std::string::npos)
      << e.err;
}

TEST(CliBackends, PacketNiQueueOptions) {
  // A one-packet (17-flit) injection and ejection queue on a 4-ring: accepted, labelled, and
  // slower than without queue stages (one more flit time per stage, and credit turns).
  const Result plain = collsim("collective -t ring:4 -a ring -s 64KiB -b packet --format csv");
  const Result queued = collsim(
      "collective -t ring:4 -a ring -s 64KiB -b packet --injection-queue-flits 17 "
      "--ejection-queue-flits 17 --format csv");
  ASSERT_EQ(plain.status, 0) << plain.err;
  ASSERT_EQ(queued.status, 0) << queued.err;
  EXPECT_NE(queued.out.find(",packet:injq=17:ejq=17,"), std::string::npos) << queued.out;
  const auto time_of = [](const std::string& csv) {
    const std::string row = csv.substr(csv.rfind('\n', csv.size() - 2) + 1);
    std::size_t pos = 0;
    for (int field = 0; field < 8; ++field) pos = row.find(',', pos) + 1;
    return std::stod(row.substr(pos));
  };
  EXPECT_GT(time_of(queued.out), time_of(plain.out));
  const std::string reduce = "{collective: all-reduce, sizes: 64KiB, algorithms: ring}";
  const Result scenario = run_scenario(
      "ni_queues.yaml",
      ring4_scenario("{name: packet, injection_queue_flits: 17, ejection_queue_flits: 17}",
                     "150 ns", reduce),
      "--format csv");
  ASSERT_EQ(scenario.status, 0) << scenario.err;
  EXPECT_NE(scenario.out.find(",packet:injq=17:ejq=17,all-reduce,ring,1,65536,8220.000"),
            std::string::npos)
      << scenario.out;
  const Result zero =
      run_scenario("ni_queues.yaml",
                   ring4_scenario("{name: packet, injection_queue_flits: 0}", "150 ns", reduce));
  EXPECT_EQ(zero.status, 2);
  EXPECT_NE(zero.err.find("ni_queues.yaml:1: backend.injection_queue_flits"), std::string::npos)
      << zero.err;
  const Result shallow =
      collsim("collective -t ring:4 -a ring -s 64KiB -b packet --ejection-queue-flits 16");
  EXPECT_EQ(shallow.status, 2);
  EXPECT_NE(shallow.err.find("ejection_queue_flits: must hold a whole packet (17 flits)"),
            std::string::npos)
      << shallow.err;
}

TEST(CliBackends, PacketSizesThatDoNotFitIn32BitsAreRefused) {
  // 4294967552 B = 2^32 + 256 B: refused by name, never run as a 256 B payload.
  const std::string run = "collective -t ring:4 -a ring -s 64KiB -b packet ";
  const Result payload = collsim(run + "--packet-payload '4294967552 B'");
  EXPECT_EQ(payload.status, 2);
  EXPECT_EQ(payload.out, "");
  EXPECT_NE(payload.err.find("error: --packet-payload: must be <= 4294967295 B, got 4294967552 B"),
            std::string::npos)
      << payload.err;
  const Result flit = collsim(run + "--flit-size '4 GiB'");
  EXPECT_EQ(flit.status, 2);
  EXPECT_NE(flit.err.find("error: --flit-size: must be <= 4294967295 B, got 4 GiB"),
            std::string::npos)
      << flit.err;
  // The scenario path refuses through the same check, with file, line and key path.
  const Result scenario =
      run_scenario("big_payload.yaml",
                   ring4_scenario("{name: packet, packet_payload: 4294967552 B}", "150 ns",
                                  "{collective: all-reduce, sizes: 64KiB, algorithms: ring}"));
  EXPECT_EQ(scenario.status, 2);
  EXPECT_NE(scenario.err.find("big_payload.yaml:1: backend.packet_payload: must be <= 4294967295 "
                              "B, got 4294967552 B"),
            std::string::npos)
      << scenario.err;
}

TEST(CliBackends, JsonCarriesLinkMetrics) {
  const Result r = collsim("collective -t torus:4x4 -a ring -s 1MiB --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"dim_utilization\""), std::string::npos);
  EXPECT_NE(r.out.find("\"busiest_links\""), std::string::npos);
}

}  // namespace

namespace {

TEST(CliGroups, CollectiveOnEveryXRingAtOnce) {
  const Result r =
      collsim("collective -t torus:4x4 -g dim:0 -a ring -s 1MiB --format csv --busiest-links 0");
  ASSERT_EQ(r.status, 0) << r.err;
  // Ring all-reduce on each 4-NPU X ring, one direction: 2(N-1)(alpha + S/(N B)) =
  // 6 (150 ns + 16384 ns) = 99204 ns; busbw over the 4 ranks of a group.
  EXPECT_NE(r.out.find(",1048576,99204.000,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",dim:0,4,4,,"), std::string::npos) << r.out;
  const Result bad = collsim("collective -t torus:4x4 -g dim:2 -a ring -s 1MiB");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--group: \"dim:2\": torus:4x4 has dimensions dim:0..dim:1"),
            std::string::npos)
      << bad.err;
  EXPECT_TRUE(bad.out.empty());
  const Result v = collsim("verify -t torus:4x4 -a ring -g npus:0,5,10,15");
  EXPECT_EQ(v.status, 0) << v.err;
  EXPECT_EQ(v.out.rfind("ok: ring all-reduce on torus:4x4 npus:0,5,10,15 (4 ranks", 0), 0u)
      << v.out;
}

TEST(CliGroups, ConcurrentScenarioJobAndItsErrors) {
  const std::string platform =
      "platform: {topology: torus:4x4, link_bandwidth: 16 GB/s, link_latency: 150 ns}\n";
  const Result r = run_scenario("conc.yaml",
                                platform +
                                    "jobs:\n  - concurrent:\n"
                                    "      - {collective: all-reduce, group: "
                                    "\"dim:0\", algorithm: ring, size: 1 MiB}\n"
                                    "      - {collective: all-reduce, group: "
                                    "\"dim:0\", algorithm: ring, size: 1 MiB}\n",
                                "--format csv");
  ASSERT_EQ(r.status, 0) << r.err;
  // Two identical all-reduces share every X-ring link: 6 (150 ns + 32768 ns) = 197508 ns each,
  // against 99204 ns alone.
  EXPECT_NE(r.out.find(",197508.000,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",jobs[0],99204.000,1.990928,"), std::string::npos) << r.out;
  const Result bad = run_scenario(
      "conc_bad.yaml", platform +
                           "jobs:\n  - concurrent:\n"
                           "      - {collective: all-reduce, group: \"dim:3\", algorithm: ring, "
                           "size: 1 MiB}\n");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("conc_bad.yaml:4: jobs[0].concurrent[0].group: \"dim:3\""),
            std::string::npos)
      << bad.err;
  const Result empty = run_scenario("conc_empty.yaml", platform + "jobs:\n  - concurrent: []\n");
  EXPECT_EQ(empty.status, 2);
  EXPECT_NE(empty.err.find("must be a non-empty list"), std::string::npos) << empty.err;
}

TEST(CliProgress, ProgressLineNamesTheRunAndQuietSilencesIt) {
  // One thread: each run named as it starts (--jobs 2 counts finished points instead:
  // ParallelJobs.ProgressCountsFinishedPoints).
  const std::string args =
      "collective -t ring:8 -a ring,direct -s 1MiB --busiest-links 0 --jobs 1";
  const Result p = collsim(args + " --progress");
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_NE(p.err.find("[1/2] ring:8 ring 1 MiB flow"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("[2/2] ring:8 direct 1 MiB flow"), std::string::npos) << p.err;
  // A run is named before its first event as setting up, not as "0 simulated".
  EXPECT_NE(p.err.find("[1/2] ring:8 ring 1 MiB flow: setting up"), std::string::npos) << p.err;
  EXPECT_EQ(p.err.find(": 0 simulated"), std::string::npos) << p.err;
  // A run long enough to tick (2^20 events) shows the share of its messages sent: a flat ring
  // all-reduce sends 2 (n - 1) n chunks = 2 x 31 x 32 x 512 = 1,015,808 messages. Alone, the
  // point runs on the sweep's thread with this line even where --jobs defaults to more.
  const Result big = collsim(
      "collective -t ring:32 -a ring -s 32MiB --chunks 512 --busiest-links 0 --progress");
  ASSERT_EQ(big.status, 0) << big.err;
  EXPECT_NE(big.err.find("% of 1.02e+06 messages"), std::string::npos) << big.err;
  const Result q = collsim(args + " --progress --quiet");
  EXPECT_EQ(q.err, "");
  EXPECT_EQ(q.out, p.out);
  const Result n = collsim(args);  // standard error is not a terminal here
  EXPECT_EQ(n.err, "");
}

TEST(CliProgress, AnInterruptedCsvSweepKeepsItsFinishedRows) {
  // The 1 MiB run finishes; the 64 MiB run exceeds the time bound. The finished row is in
  // OUT.partial, whole; OUT itself is not written.
  const auto out = std::filesystem::temp_directory_path() / "collsim_cli_test" / "sweep.csv";
  std::filesystem::remove(out);
  std::filesystem::remove(out.string() + ".partial");
  const Result r = collsim(
      "collective -t ring:8 -a ring -s 1MiB,64MiB --max-time '1 ms' "
      "--format csv --output '" +
      out.string() + "'");
  EXPECT_EQ(r.status, 3);
  EXPECT_FALSE(std::filesystem::exists(out));
  const std::string kept = read_file(out.string() + ".partial");
  EXPECT_EQ(std::count(kept.begin(), kept.end(), '\n'), 2) << kept;  // header + one row
  EXPECT_NE(kept.find("ring:8,8,flow,all-reduce,ring,1,1048576,"), std::string::npos) << kept;
  EXPECT_NE(r.err.find("the rows finished before the error are in"), std::string::npos) << r.err;
  std::filesystem::remove(out.string() + ".partial");
}

TEST(CliProgress, TraceFileOnRunAndCollective) {
  const auto path = std::filesystem::temp_directory_path() / "collsim_cli_test" / "t.json";
  std::filesystem::remove(path);
  const Result r =
      collsim("collective -t torus:2x2 -a ring -s 64KiB -q --trace '" + path.string() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string trace = read_file(path);
  EXPECT_EQ(trace.rfind("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", 0), 0u);
  EXPECT_NE(trace.find("\"name\":\"send to NPU 1\""), std::string::npos);
  const Result bad =
      collsim("collective -t torus:2x2 -a ring -s 64KiB --trace /nonexistent/t.json");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--trace: cannot write \"/nonexistent/t.json\""), std::string::npos)
      << bad.err;
  EXPECT_TRUE(bad.out.empty()) << "refused before anything ran";
  const Result scenario = collsim(
      "run examples/concurrent-collectives.yaml -q --format csv "
      "--trace '" +
      path.string() + "'");
  EXPECT_EQ(scenario.status, 0) << scenario.err;
  EXPECT_NE(read_file(path).find("run 2: torus-4x4 all-reduce ring 64 MiB on dim:0 alone flow"),
            std::string::npos);
}

TEST(CliGroups, RingTieRuleOnTheCommandLineAndInScenarios) {
  // Halving-doubling on torus:4x4, 64 MiB (issue figures): with every halfway tie going +1 the
  // -1 links idle in the distance-2 steps, 13.11 ms; by source parity both directions carry
  // half, 7.866 ms.
  const std::string run = "collective -t torus:4x4 -a halving-doubling -s 64MiB --busiest-links 0";
  const Result plus = collsim(run + " --ring-tie plus");
  ASSERT_EQ(plus.status, 0) << plus.err;
  EXPECT_NE(plus.out.find("13.11 ms"), std::string::npos) << plus.out;
  const Result parity = collsim(run);
  EXPECT_NE(parity.out.find("7.866 ms"), std::string::npos) << parity.out;
  const Result bad = collsim(run + " --ring-tie minus");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--ring-tie: unknown ring tie rule \"minus\""), std::string::npos)
      << bad.err;
  const Result yaml = run_scenario(
      "tie.yaml",
      "platform: {topology: torus:4x4, link_bandwidth: 16 GB/s, link_latency: 150 ns, "
      "ring_tie: plus}\njobs:\n  - {collective: all-reduce, sizes: 64 MiB, algorithms: "
      "halving-doubling}\n");
  EXPECT_NE(yaml.out.find("13.11 ms"), std::string::npos) << yaml.out << yaml.err;
}

TEST(CliProgress, WarnsBeforeAllPicksAQuadraticAlgorithmOnAMultiHopNetwork) {
  // torus:18x18: direct has each of 324 ranks talk to 323 others (104,652 pairs, past the
  // 100,000 threshold) over up to 18 hops. The warning comes before anything runs (here the time
  // bound stops the first run at once). jobs/collective_sweep_test.cpp checks the threshold.
  const Result r = collsim("collective -t torus:18x18 -s 1KiB --max-time '1 ns' -q");
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("warning: direct: 324 ranks each talk to 323 peers"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("skipped"), std::string::npos) << "skipped algorithms are rows, not notes";
}

}  // namespace

namespace {

// `collsim list` prints the registries, so every registered entry must appear in it.
TEST(CliList, MentionsEveryRegisteredTopologyFormAndDimensionKind) {
  const Result l = collsim("list");
  ASSERT_EQ(l.status, 0) << l.err;
  for (const auto& f : collsim::topology::topology_forms()) {
    EXPECT_NE(l.out.find("  " + std::string(f.syntax) + " "), std::string::npos) << f.syntax;
    EXPECT_NE(l.out.find(f.description), std::string::npos) << f.syntax;
    EXPECT_NE(l.out.find(f.source), std::string::npos) << f.syntax;
  }
  for (const auto& k : collsim::topology::dim_kinds()) {
    EXPECT_NE(l.out.find("  " + std::string(k.name) + " "), std::string::npos) << k.name;
    EXPECT_NE(l.out.find(k.description), std::string::npos) << k.name;
    EXPECT_NE(l.out.find(k.aggregation), std::string::npos) << k.name;
  }
}

}  // namespace

namespace {

TEST(CliList, MentionsEveryBackendAndItsParameters) {
  const Result l = collsim("list");
  ASSERT_EQ(l.status, 0) << l.err;
  const Result help = collsim("collective --help");
  ASSERT_EQ(help.status, 0) << help.err;
  for (const auto& b : collsim::network::backends()) {
    EXPECT_NE(l.out.find("  " + b.name + " "), std::string::npos) << b.name;
    EXPECT_NE(l.out.find(b.description), std::string::npos) << b.name;
    for (const auto& p : b.params) {
      const std::string flag = collsim::core::cli_flag(p.spec);
      EXPECT_NE(l.out.find(std::string(p.spec.key) + " (" + flag + ")"), std::string::npos)
          << p.spec.key;
      EXPECT_NE(l.out.find(p.spec.description), std::string::npos) << p.spec.key;
      EXPECT_NE(l.out.find(collsim::network::default_text(p)), std::string::npos) << p.spec.key;
      EXPECT_NE(help.out.find("  " + flag), std::string::npos) << flag;  // derived CLI option
    }
  }
}

TEST(CliBackends, OptionOfAnotherBackendIsRefused) {
  const Result r = collsim("collective -t ring:4 -a ring -s 1MiB --vcs 2 -b flow");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--vcs: the flow backend does not model packets, flits and virtual "
                       "channels; --vcs is taken by: packet"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(r.out.empty());
  const Result y =
      run_scenario("wrong_backend.yaml",
                   ring4_scenario("{name: flow, vcs: 2}", "1 ns",
                                  "{collective: all-reduce, sizes: 1MiB, algorithms: ring}"));
  EXPECT_EQ(y.status, 2);
  EXPECT_NE(y.err.find("wrong_backend.yaml:1: backend: the flow backend does not model packets"),
            std::string::npos)
      << y.err;
}

TEST(CliBackends, OptionAppliesToTheChosenBackendsThatTakeIt) {
  // Ring all-gather on a 4-ring, 3 steps of 1 MiB at 16 GB/s (0 ns links): 196.608 us; with an
  // 8 GB/s ejection cap on flow, 393.216 us; analytical runs without the cap.
  const Result r = collsim(
      "collective -t ring:4 --link-latency '0 ns' -c all-gather -a ring -s 4MiB "
      "-b analytical,flow --npu-ejection-bandwidth '8 GB/s' --format csv");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(",analytical,all-gather,ring,1,4194304,196608.000"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(",flow:eject=8 GB/s,all-gather,ring,1,4194304,393216.000"),
            std::string::npos)
      << r.out;
}

}  // namespace

namespace {

TEST(Cli, ActivityTimeSeriesAgreesWithTheRowsActivity) {
  // Themis Fig. 9 as CSV: 2 dims x windows of 10 us; averaging a dimension's windows (the last
  // one weighted by its shorter length) must give the row's whole-run activity.
  const auto dir = std::filesystem::temp_directory_path() / "collsim_cli_test";
  const auto out = dir / "activity.csv";
  std::filesystem::remove(out);
  const std::string args =
      "collective -t torus:4x4 -a hierarchical -s 1MiB --chunks 4 -b analytical -q --format csv "
      "--activity-window 10us --activity '" +
      out.string() + "'";
  const Result r = collsim(args);
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream rows(r.out), series(read_file(out));
  std::string line;
  std::getline(series, line);
  EXPECT_EQ(line,
            "platform,backend,algorithm,size_bytes,dim,window_start_ns,window_end_ns,active_share");
  double busy[2] = {0, 0}, end_ns = 0;
  int lines = 0;
  while (std::getline(series, line)) {
    // torus:4x4,analytical,hierarchical,1048576,DIM,FROM,TO,SHARE
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
    ASSERT_EQ(f.size(), 8u) << line;
    const double from = std::stod(f[5]), to = std::stod(f[6]), share = std::stod(f[7]);
    EXPECT_LE(to - from, 10000.0 + 1e-9);
    EXPECT_GE(share, 0.0);
    EXPECT_LE(share, 1.0);
    busy[std::stoi(f[4])] += share * (to - from);
    end_ns = std::max(end_ns, to);
    ++lines;
  }
  EXPECT_EQ(lines, 2 * 6);  // a 52.752 us run: 6 windows per dimension
  std::getline(rows, line);
  std::getline(rows, line);  // the hierarchical row: ...,time_ns (col 9),...,dim_activity (24)
  std::vector<std::string> f;
  std::stringstream ls(line);
  for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
  EXPECT_DOUBLE_EQ(std::stod(f[8]), end_ns);
  const std::string activity = f[23];
  const auto semi = activity.find(';');
  EXPECT_NEAR(busy[0] / end_ns, std::stod(activity.substr(0, semi)), 1e-6);
  EXPECT_NEAR(busy[1] / end_ns, std::stod(activity.substr(semi + 1)), 1e-6);
  // A bad window is refused before anything runs, and no file is written.
  std::filesystem::remove(out);
  const Result bad =
      collsim("collective -t torus:4x4 -a hierarchical -s 1MiB --activity-window 0us --activity '" +
              out.string() + "'");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--activity-window"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace

namespace {

TEST(Cli, ConcurrentHierarchicalCollectivesShareTheQueuesAndMustAgreeOnThem) {
  // The two 512 KiB all-reduces of Hierarchical.ConcurrentCollectivesShareTheDimensionQueues,
  // from a scenario: 75.08 us and 100.1 us together, 63.24 us alone.
  const std::string head =
      "name: cc\nbackend: analytical\nplatform: {name: t, topology: torus:4x4, link_bandwidth: 16 "
      "GB/s, link_latency: 150 ns}\njobs:\n  - concurrent:\n";
  const std::string member =
      "      - {collective: all-reduce, group: all, algorithm: "
      "\"hierarchical:dim0=ring:dim1=ring\", size: 512 KiB}\n";
  const Result ok = run_scenario("cc.yaml", head + member + member, "-q --format csv");
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.out.find(",75078.000,"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find(",100104.000,"), std::string::npos) << ok.out;
  const Result bad = run_scenario(
      "cc-bad.yaml",
      head + member +
          "      - {collective: all-reduce, group: all, algorithm: \"hierarchical:intra=scf\", "
          "size: 1 MiB}\n",
      "-q");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("member 1 (hierarchical:intra=scf)"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("intra and active_chunks must agree"), std::string::npos) << bad.err;
}

}  // namespace

namespace {

TEST(Cli, VerifyComposesAHierarchicalCollective) {
  const Result r =
      collsim("verify -t torus:4x4 -a hierarchical:schedule=themis:dim0=ring:dim1=ring --chunks 4");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "ok: hierarchical:schedule=themis:dim0=ring:dim1=ring all-reduce on torus:4x4 (16 "
            "ranks, 4 chunks): 3840 ops, 1920 messages verified\n");
  const Result group = collsim("verify -t torus:4x4 -a hierarchical -g dim:0");
  EXPECT_EQ(group.status, 2);
  EXPECT_NE(group.err.find("use --group all"), std::string::npos) << group.err;
}

}  // namespace

namespace collsim {
namespace {

TEST(CliHelp, NameShowsEveryEntryOfThatNameWithItsParametersAndSource) {
  const auto ring = test::collsim("help ring");
  ASSERT_EQ(ring.status, 0) << ring.err;
  EXPECT_NE(ring.out.find("Topology (--topology):\n  ring:N"), std::string::npos) << ring.out;
  EXPECT_NE(ring.out.find("Algorithm (--algorithms"), std::string::npos);
  EXPECT_NE(ring.out.find("directions=1 (default 1, range 1..2)"), std::string::npos);
  const auto flow = test::collsim("help flow");
  EXPECT_NE(flow.out.find("--npu-injection-bandwidth"), std::string::npos) << flow.out;
  EXPECT_NE(flow.out.find("source: ACE Sec. 3"), std::string::npos);
  const auto h = test::collsim("help hierarchical");
  EXPECT_NE(h.out.find("schedule=baseline (one of baseline|themis|per-dim-all-reduce|"
                      "astra-localbw|ace)"),
            std::string::npos)
      << h.out;
  const auto ace = test::collsim("help ace");
  EXPECT_NE(ace.out.find("bus_latency              default 50 ns"), std::string::npos) << ace.out;
  const auto bad = test::collsim("help nope");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("\"nope\" is no topology"), std::string::npos);
  EXPECT_EQ(bad.err.find("ring, bidir-ring, fc, switch, torus, mesh, hier, optical-ring, fattree, "
                         "bigraph, swfc, htorus, ring"),
            std::string::npos);  // each name once
}

}  // namespace
}  // namespace collsim
