// `collsim astra` (cli/astra_command.cpp) on ASTRA-sim's input files: 2.x's three files (the
// network and system of its regression test: an 8-NPU ring at 50 GB/s and 500 ns, 4 chunks,
// 10-cycle endpoint delay) with a Chakra trace of one 1 MiB all-reduce per rank; 1.0's text
// system and network JSON; the errors naming files and keys; and, where COLLSIM_ASTRA_INPUTS
// names ASTRA-sim's repositories' inputs, every network and system file.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "chakra_writer.hpp"
#include "cli_run.hpp"
#include "real_inputs.hpp"

namespace collsim::workload::chakra {
namespace {

namespace fs = std::filesystem;
using test::replaced;

fs::path dir() { return trace_dir("astra"); }

TEST(AstraCommand, RunsTheThreeInputFilesAndPrintsAstraSimsLines) {
  const fs::path d = dir();
  for (int r = 0; r < 8; ++r) {
    write(d / ("ar." + std::to_string(r) + ".et"), {coll(1, pb::ALL_REDUCE, 1 << 20, {})});
  }
  std::ofstream(d / "net.yml") << "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50.0 ]  # "
                                  "GB/s\nlatency: [ 500.0 ]  # ns\n";
  std::ofstream(d / "sys.json")
      << R"({"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
             "preferred-dataset-splits": 4, "all-reduce-implementation": ["ring"],
             "all-gather-implementation": ["ring"], "reduce-scatter-implementation": ["ring"],
             "all-to-all-implementation": ["ring"], "collective-optimization": "localBWAware",
             "local-mem-bw": 50, "boost-mode": 0})";
  std::ofstream(d / "mem.json") << R"({"memory-type": "NO_MEMORY_EXPANSION"})";
  const std::string files = fmt::format(
      "--workload-configuration={0}/ar --system-configuration={0}/sys.json "
      "--network-configuration={0}/net.yml --remote-memory-configuration={0}/mem.json",
      d.string());
  // The compatibility mode (the default): ASTRA-sim's regression test, 117,780 cycles. Its 4
  // chunks run one at a time (active-chunks-per-dimension 1), each 14 ring steps of 10 ns
  // endpoint delay + 500 ns + 32 KiB at 50 x 2^30 B/s (610.35 ns), and each of its 7
  // reduce-scatter steps waits 3 x floor(32768 / 50) = 1,965 ns on the local memory:
  // 4 x (14 x 1,120.35 + 7 x 1,965) = 117,760 cycles (ASTRA-sim's whole-ns steps and its 10-cycle
  // hand-offs at a chunk's ends give 117,780).
  const auto compat = test::collsim("astra " + files + " --no-layers");
  ASSERT_EQ(compat.status, 0) << compat.err;
  const auto first = [](const std::string& out) {
    const auto at = out.find("sys[0] finished, ");
    return at == std::string::npos ? 0L : std::stol(out.substr(at + 17));
  };
  EXPECT_NEAR(first(compat.out), 117760, 10) << compat.out;
  EXPECT_NEAR(first(compat.out), 117780, 0.02 * 117780);
  EXPECT_NE(compat.err.find("ASTRA-sim compatibility mode on"), std::string::npos) << compat.err;
  const auto r = test::collsim("astra " + files + " --no-layers --no-astra-compat");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("read as 2^30 bytes/s, as ASTRA-sim does"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("preferred-dataset-splits 4 -> chunks per collective"), std::string::npos);
  // Without the mode the ring is bandwidth-bound: each NPU's link carries 2 (N-1)/N x 1 MiB = 1.75 MiB at 50 x 2^30
  // B/s (34,180 ns) after one hop's latency and the endpoint delay (510 ns): 34,690 cycles, plus
  // the pipeline's fill (2% here).
  const auto at = r.out.find("sys[7] finished, ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const long cycles = std::stol(r.out.substr(at + 17));
  EXPECT_NEAR(cycles, 34690, 0.03 * 34690);
  EXPECT_NE(r.out.find("sys[0] finished, " + std::to_string(cycles) +
                       " cycles, exposed communication " + std::to_string(cycles) + " cycles."),
            std::string::npos);
  // GB/s as 1e9: the bandwidth part 2^30 / 1e9 = 7.4% longer.
  const auto si =
      test::collsim("astra " + files + " --si-gigabytes -q --no-layers --no-astra-compat");
  const long si_cycles = std::stol(si.out.substr(si.out.find("sys[7] finished, ") + 17));
  EXPECT_NEAR(si_cycles - cycles, 34180 * 0.0737, 100);
  // Every system key is honoured, noted or refused by name, all refused keys in one message;
  // so are a bad network and memory file.
  std::ofstream(d / "bad.json")
      << R"({"all-reduce-implementation": ["ring"], "L": 1, "foo": 1, "replay-only": 1})";
  const auto bad = test::collsim(
      fmt::format("astra --workload-configuration={0}/ar --system-configuration={0}/bad.json "
                  "--network-configuration={0}/net.yml",
                  d.string()));
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("bad.json: foo: not a system key collsim simulates; replay-only: 1 "
                         "(ASTRA-sim's replay of recorded durations) is not simulated"),
            std::string::npos)
      << bad.err;
  std::ofstream(d / "boost.json") << R"({"all-reduce-implementation": ["ring"], "boost-mode": 1})";
  EXPECT_NE(test::collsim(fmt::format("astra --workload-configuration={0}/ar "
                                      "--system-configuration={0}/boost.json "
                                      "--network-configuration={0}/net.yml",
                                      d.string()))
                .err.find("boost-mode: 1 (boost mode) is not simulated"),
            std::string::npos);
  std::ofstream(d / "net2.yml") << "topology: [ Ring, Torus ]\nnpus_count: [ 4, 2 ]\n"
                                   "bandwidth: [ 50, 50 ]\nlatency: [ 500, 500 ]\n";
  EXPECT_NE(test::collsim(fmt::format("astra --workload-configuration={0}/ar "
                                      "--system-configuration={0}/sys.json "
                                      "--network-configuration={0}/net2.yml",
                                      d.string()))
                .err.find("dimension 1: topology \"Torus\": not one of Ring, FullyConnected"),
            std::string::npos);
  std::ofstream(d / "mem2.json") << R"({"memory-type": "PER_NPU_MEMORY_EXPANSION"})";
  const std::string mem2 = replaced(files, "mem.json", "mem2.json");
  EXPECT_NE(test::collsim("astra " + mem2).err.find("mem2.json: remote-mem-latency: missing"),
            std::string::npos);
  fs::remove_all(d);
}

TEST(AstraCommand, ReadsAstraSim10SystemAndNetworkFiles) {
  // ASTRA-sim 1.0's formats (the Themis, ACE and switch-fc papers' inputs): a text system file
  // and an analytical network JSON, with a 1.0 text workload of one 1 MiB all-reduce.
  const fs::path d = dir();
  std::ofstream(d / "net.json") << R"({"topology-name": "Hierarchical",
      "topologies-per-dim": ["Ring", "Switch"], "dimension-type": ["N", "P"],
      "dimensions-count": 2, "units-count": [4, 2], "links-count": [2, 1],
      "link-latency": [500, 500], "link-bandwidth": [50, 25], "nic-latency": [0, 0],
      "router-latency": [0, 0], "hbm-latency": [500, 500], "hbm-bandwidth": [370, 370],
      "hbm-scale": [0, 0]})";
  std::ofstream(d / "sys.txt") << "scheduling-policy: LIFO \nendpoint-delay: 10\n"
                                  "active-chunks-per-dimension: 1\npreferred-dataset-splits: 4\n"
                                  "boost-mode: 0\nall-reduce-implementation: ring_direct\n"
                                  "all-gather-implementation: ring_ring\n"
                                  "reduce-scatter-implementation: ring_ring\n"
                                  "all-to-all-implementation: oneDirect\n"
                                  "collective-optimization: localBWAware\n";
  std::ofstream(d / "ar.txt") << "MICRO\n1\nar -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 1048576 5\n";
  const std::string args = fmt::format(
      "astra --workload-configuration={0}/ar.txt --system-configuration={0}/sys.txt "
      "--network-configuration={0}/net.json --no-layers --no-astra-compat",
      d.string());
  // The compatibility mode runs ASTRA-sim 2.x's localBWAware walk (an all-reduce on the last
  // dimension); these checks are collsim's own reading.
  const auto walk = test::collsim(replaced(args, " --no-astra-compat", ""));
  EXPECT_NE(walk.err.find("all-reduce: hierarchical:schedule=astra-localbw:intra=fifo:"
                          "active_chunks=1:dim0=ring:dim1=direct"),
            std::string::npos)
      << walk.err;
  const auto r = test::collsim(args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("sys[7] finished, "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("sys[8] finished"), std::string::npos);
  // The all-to-all's oneDirect cannot run on two dimensions, but this workload does not need it.
  EXPECT_NE(r.err.find("all-to-all-implementation oneDirect -> not run on 2 dimensions"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("all-reduce: hierarchical:schedule=baseline:intra=fifo:active_chunks=1:dim0="
                       "ring:dim1=direct"),
            std::string::npos)
      << r.err;
  // Collectives whose implementations differ each run their own: on a 4x4 ring-by-switch
  // platform the all-gather's ring_ring takes longer than ring_direct (three latency-bound ring
  // steps on the switch instead of one direct step).
  std::ofstream(d / "net44.json") << R"({"topologies-per-dim": ["Ring", "Switch"],
      "units-count": [4, 4], "links-count": [2, 1], "link-latency": [500, 500],
      "link-bandwidth": [50, 25], "nic-latency": [0, 0], "router-latency": [0, 0],
      "hbm-scale": [0, 0]})";
  std::ofstream(d / "mix.txt") << "MICRO\n2\nag -1 5 ALLGATHER 1048576 5 NONE 0 5 NONE 0 5\n"
                                  "ar -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 1024 5\n";
  const std::string mix_args =
      replaced(replaced(args, "ar.txt", "mix.txt"), "net.json", "net44.json");
  const auto mix = test::collsim(mix_args);
  ASSERT_EQ(mix.status, 0) << mix.err;
  EXPECT_NE(mix.err.find("all-gather: hierarchical:schedule=baseline:intra=fifo:active_chunks=1:"
                         "dim0=ring:dim1=ring\n"),
            std::string::npos)
      << mix.err;
  EXPECT_NE(mix.err.find("all-reduce: hierarchical:schedule=baseline:intra=fifo:active_chunks=1:"
                         "dim0=ring:dim1=direct\n"),
            std::string::npos)
      << mix.err;
  std::ofstream(d / "sys3.txt") << "all-reduce-implementation: ring_direct\n"
                                   "all-gather-implementation: ring_direct\n"
                                   "scheduling-policy: LIFO \nendpoint-delay: 10\n"
                                   "active-chunks-per-dimension: 1\npreferred-dataset-splits: 4\n"
                                   "collective-optimization: localBWAware\n";
  const auto same = test::collsim(replaced(mix_args, "sys.txt", "sys3.txt"));
  ASSERT_EQ(same.status, 0) << same.err;
  const auto cycles = [](const std::string& out) {
    const auto at = out.find("sys[0] finished, ");
    return at == std::string::npos ? 0L : std::stol(out.substr(at + 17));
  };
  EXPECT_EQ(cycles(mix.out), 37918) << mix.out;
  EXPECT_EQ(cycles(same.out), 34677) << same.out;
  // Unknown keys and the HBM model are refused by name; LogGP's L is noted (no effect while the
  // shared bus model is off).
  std::ofstream(d / "sys2.txt") << "all-reduce-implementation: ring_ring\nLL: 5\n";
  EXPECT_NE(test::collsim(replaced(args, "sys.txt", "sys2.txt"))
                .err.find("sys2.txt: LL: not a system key"),
            std::string::npos);
  std::ofstream(d / "sys4.txt") << "all-reduce-implementation: ring_ring\nL: 5\n";
  EXPECT_NE(test::collsim(replaced(args, "sys.txt", "sys4.txt"))
                .err.find("  L: accepted, no effect: ASTRA-sim's LogGP bus parameter"),
            std::string::npos);
  std::ofstream(d / "hbm.json") << R"({"topologies-per-dim": ["Ring"], "units-count": [4],
      "links-count": [2], "link-latency": [1], "link-bandwidth": [5], "hbm-scale": [1]})";
  EXPECT_NE(test::collsim(replaced(args, "net.json", "hbm.json"))
                .err.find("hbm-scale: the HBM model is not simulated"),
            std::string::npos);
  fs::remove_all(d);
}

// Every ASTRA-sim network and system file in the directory COLLSIM_ASTRA_INPUTS names (the
// layout of ASTRA-sim's repositories: astra-sim-2.0/inputs/{network,system/analytical},
// astra-sim-1.0/{network/analytical,system,workload}) runs through `collsim astra` with the
// 1.0 micro all-reduce workload, or is refused with an error naming the file and key.
TEST(AstraCommand, EveryAstraSimConfigRunsOrIsRefusedByName) {
  const fs::path r = test::real_inputs("COLLSIM_ASTRA_INPUTS", "astra_inputs");
  if (!fs::is_directory(r)) {
    GTEST_SKIP() << test::no_real_inputs("COLLSIM_ASTRA_INPUTS", "astra_inputs");
  }
  const fs::path workload = r / "astra-sim-1.0/workload/microAllReduce.txt";
  ASSERT_TRUE(fs::exists(workload));
  std::vector<std::pair<fs::path, fs::path>> pairs;
  for (const auto& e : fs::directory_iterator(r / "astra-sim-2.0/inputs/network")) {
    pairs.emplace_back(e.path(), r / "astra-sim-2.0/inputs/system/analytical" /
                                     (e.path().stem().string() + ".json"));
  }
  for (const auto& n : fs::directory_iterator(r / "astra-sim-1.0/network/analytical")) {
    for (const auto& s : fs::directory_iterator(r / "astra-sim-1.0/system")) {
      pairs.emplace_back(n.path(), s.path());
    }
  }
  std::size_t ran = 0;
  for (const auto& [net, sys] : pairs) {
    const auto res = test::collsim(fmt::format(
        "astra --workload-configuration={} --system-configuration={} --network-configuration={} "
        "-q --no-layers",
        workload.string(), sys.string(), net.string()));
    if (res.status == 0) {
      EXPECT_NE(res.out.find("sys[0] finished, "), std::string::npos) << net << " " << sys;
      ++ran;
      continue;
    }
    EXPECT_EQ(res.status, 2) << net << " " << sys << ": " << res.err;
    const bool named = res.err.find(net.filename().string()) != std::string::npos ||
                       res.err.find(sys.filename().string()) != std::string::npos;
    EXPECT_TRUE(named) << "the error names neither file: " << res.err;
  }
  EXPECT_GE(ran, 8u);
}

}  // namespace
}  // namespace collsim::workload::chakra
