// Replaying Chakra traces rank by rank (jobs/trace_replay.hpp): send / recv chains,
// collectives on communicator groups, memory nodes and the one-in-flight rule against closed
// forms; deadlocks and bad nodes against their errors; an SPMD trace replayed against the
// training path; and, where COLLSIM_CHAKRA_DATA names ASTRA-sim's examples, its custom ring
// all-reduce written out as sends and receives.
#include "runtime/execute.hpp"
#include "jobs/trace_replay.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "chakra_writer.hpp"
#include "cli_run.hpp"
#include "collective/algorithm.hpp"
#include "config/astra_config.hpp"
#include "config/astra_optional_inputs.hpp"
#include "core/error.hpp"
#include "network/backend.hpp"
#include "real_inputs.hpp"
#include "scheduler/executor.hpp"

namespace collsim::workload::chakra {
namespace {

using namespace collsim::jobs;  // NOLINT: the drivers under test

namespace fs = std::filesystem;

fs::path dir() { return trace_dir("replay"); }

// A ring of `n` NPUs at 50 GB/s (2^30) and 500 ns per hop, as ASTRA-sim's Ring_*npus.yml.
config::AstraNetwork ring(std::uint32_t n) {
  const fs::path f = dir() / fmt::format("ring{}.yml", n);
  std::ofstream(f) << fmt::format(
      "topology: [ Ring ]\nnpus_count: [ {} ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n", n);
  return config::read_astra_network(f.string(), false);
}

pb::AttributeProto i32(const std::string& name, std::int32_t v) {
  pb::AttributeProto a;
  a.set_name(name);
  a.set_int32_val(v);
  return a;
}

pb::Node send(std::uint64_t id, std::int32_t dst, std::int64_t bytes,
              std::vector<std::uint64_t> deps = {}) {
  pb::Node n = node(id, pb::COMM_SEND_NODE, 0, std::move(deps));
  *n.add_attr() = int_attr("comm_size", bytes);
  *n.add_attr() = i32("comm_dst", dst);
  *n.add_attr() = i32("comm_tag", 0);
  return n;
}

pb::Node recv(std::uint64_t id, std::int32_t src, std::int64_t bytes,
              std::vector<std::uint64_t> deps = {}) {
  pb::Node n = node(id, pb::COMM_RECV_NODE, 0, std::move(deps));
  *n.add_attr() = int_attr("comm_size", bytes);
  *n.add_attr() = i32("comm_src", src);
  *n.add_attr() = i32("comm_tag", 0);
  return n;
}

pb::Node mem(std::uint64_t id, std::uint64_t bytes) {
  pb::Node n = node(id, pb::MEM_LOAD_NODE, 0);
  pb::AttributeProto a;
  a.set_name("tensor_size");
  a.set_uint64_val(bytes);
  *n.add_attr() = a;
  return n;
}

// Write one trace per rank and read them back.
std::vector<RankTrace> traces(const std::vector<std::vector<pb::Node>>& ranks) {
  std::vector<RankTrace> out;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const std::string f = (dir() / fmt::format("t.{}.et", r)).string();
    write(f, ranks[r]);
    out.push_back(read_et(f));
  }
  return out;
}

ReplayOptions ring_options() {
  ReplayOptions o;
  o.algorithms.emplace(collective::Collective::AllReduce,
                       collective::parse_algorithm("ring", "algorithm"));
  return o;
}

ReplayResult run(const config::AstraNetwork& net, const std::vector<RankTrace>& t,
                 const ReplayOptions& o) {
  return replay(net.topology, network::find_backend("analytical", "backend"), t, o);
}

// One message between neighbours: bytes / (50 x 2^30 B/s) + 500 ns.
double hop_ns(double bytes) { return bytes / (50.0 * 1073741824.0) * 1e9 + 500; }

double ns(core::Time t) { return static_cast<double>(t.ps) / 1e3; }

TEST(ChakraReplay, SendRecvChainsFollowTheClosedForm) {
  // Each rank of a 4-ring: send 256 KiB to the next, receive from the previous, reduce for
  // 7 us, send again, receive again (ASTRA-sim's custom ring all-reduce, two steps).
  const std::int64_t b = 262144;
  std::vector<std::vector<pb::Node>> ranks;
  for (std::int32_t r = 0; r < 4; ++r) {
    ranks.push_back({send(0, (r + 1) % 4, b), recv(1, (r + 3) % 4, b, {0}),
                     node(2, pb::COMP_NODE, 7, {1}), send(3, (r + 1) % 4, b, {2}),
                     recv(4, (r + 3) % 4, b, {3})});
  }
  const auto res = run(ring(4), traces(ranks), ring_options());
  ASSERT_EQ(res.ranks.size(), 4u);
  for (const auto& k : res.ranks) {
    EXPECT_NEAR(ns(k.finish), 2 * hop_ns(b) + 7000, 2e-3);  // ps rounding per message
    EXPECT_NEAR(ns(k.compute), 7000, 1e-9);
    EXPECT_EQ(k.nodes, 5u);
  }
  EXPECT_EQ(res.sends, 8u);
  EXPECT_EQ(res.messages, 8u);
  EXPECT_EQ(res.bytes, 8u * b);
  // The sends go through the Session's executor: the link figures count them. Each neighbour
  // link r -> r+1 carried two messages of b bytes; no link carried anything else.
  std::uint64_t total = 0, used = 0;
  for (const auto& l : res.links) {
    total += l.bytes;
    if (l.bytes == 0) continue;
    ++used;
    EXPECT_EQ(l.bytes, 2u * b);
  }
  EXPECT_EQ(total, 8u * b);
  EXPECT_EQ(used, 4u);
}

TEST(ChakraReplay, SendsAreSeenByTheReplayTrace) {
  // A send from rank 0 to rank 2 of a 4-ring crosses two links; its slice is on the timeline.
  const std::int64_t b = 4096;
  ReplayOptions o = ring_options();
  o.timeline = true;
  const auto res = run(ring(4), traces({{send(0, 2, b)}, {}, {recv(0, 0, b)}, {}}), o);
  std::uint64_t total = 0;
  for (const auto& l : res.links) total += l.bytes;
  EXPECT_EQ(total, 2u * b);  // two hops
  int sends = 0;
  for (const auto& s : res.timeline) sends += s.kind == ReplaySlice::Kind::Send;
  EXPECT_EQ(sends, 1);
}

TEST(ChakraReplay, AReceivePostedEarlyWaitsForItsMessage) {
  // Rank 0 computes 10 us, then sends; rank 1's receive is posted at 0 and ends on arrival.
  const std::int64_t b = 1048576;
  ReplayOptions o = ring_options();
  o.timeline = true;
  const auto res =
      run(ring(2), traces({{node(0, pb::COMP_NODE, 10), send(1, 1, b, {0})}, {recv(0, 0, b)}}), o);
  EXPECT_NEAR(ns(res.ranks[0].finish), 10000 + hop_ns(b), 1e-3);
  EXPECT_NEAR(ns(res.ranks[1].finish), 10000 + hop_ns(b), 1e-3);
  EXPECT_NEAR(ns(res.ranks[1].compute), 0, 1e-9);
  // The timeline holds the receive from its posting to the arrival.
  bool found = false;
  for (const auto& s : res.timeline) {
    if (s.kind == ReplaySlice::Kind::Recv) {
      found = true;
      EXPECT_EQ(s.rank, 1u);
      EXPECT_NEAR(ns(s.begin), 0, 1e-9);
      EXPECT_NEAR(ns(s.end), 10000 + hop_ns(b), 1e-3);
    }
  }
  EXPECT_TRUE(found);
}

TEST(ChakraReplay, OneSendInFlightPerRankUnlessConcurrent) {
  // Rank 1 sends to both neighbours of a 3-ring (different links): one after the other as
  // ASTRA-sim does, or both at once.
  const std::int64_t b = 1048576;
  const auto t = traces({{recv(0, 1, b)}, {send(0, 0, b), send(1, 2, b)}, {recv(0, 1, b)}});
  ReplayOptions o = ring_options();
  EXPECT_NEAR(ns(run(ring(3), t, o).total), 2 * hop_ns(b), 1e-3);
  o.serial = false;
  EXPECT_NEAR(ns(run(ring(3), t, o).total), hop_ns(b), 1e-3);
}

TEST(ChakraReplay, CollectivesMeetTheirGroupAndStartWithTheLastMember) {
  // Groups {0,1} and {2,3} of a 4-ring each all-reduce 1 MiB; rank 0 computes 10 us first, so
  // group {0,1} starts at 10 us and group {2,3} at 0.
  const auto net = ring(4);
  const std::int64_t b = 1048576;
  auto ar = [&](std::uint64_t id, const std::string& pg, std::vector<std::uint64_t> deps) {
    pb::Node n = coll(id, pb::ALL_REDUCE, b, std::move(deps));
    pb::AttributeProto a;
    a.set_name("pg_name");
    a.set_string_val(pg);
    *n.add_attr() = a;
    return n;
  };
  ReplayOptions o = ring_options();
  o.groups = {{"1", {0, 1}}, {"2", {2, 3}}};
  const auto res = run(net,
                       traces({{node(0, pb::COMP_NODE, 10), ar(1, "1", {0})},
                               {ar(0, "1", {})},
                               {ar(0, "2", {})},
                               {ar(0, "2", {})}}),
                       o);
  // The same all-reduce alone on the executor.
  auto alone = [&](std::vector<topology::NodeId> npus) {
    core::Simulation sim;
    auto backend = network::make_backend(network::find_backend("analytical", "backend"), sim,
                                         net.topology, {}, "backend");
    const auto p = collective::build_program(o.algorithms.at(collective::Collective::AllReduce),
                                             net.topology, collective::Communicator{npus, ""},
                                             collective::Collective::AllReduce,
                                             core::Bytes{static_cast<std::uint64_t>(b)}, 1);
    return ns(runtime::execute(p, *backend, sim).time);
  };
  const double t01 = alone({0, 1}), t23 = alone({2, 3});
  EXPECT_GT(t01, hop_ns(b / 2));
  EXPECT_NEAR(ns(res.ranks[0].finish), 10000 + t01, 1e-3);
  EXPECT_NEAR(ns(res.ranks[1].finish), 10000 + t01, 1e-3);
  EXPECT_NEAR(ns(res.ranks[2].finish), t23, 1e-3);
  EXPECT_EQ(res.collectives, 2u);
}

TEST(ChakraReplay, MemoryNodesQueueAtTheirPort) {
  // Two 1 MB loads per rank at 100 ns + 1 MB / 10 GB/s each: a port serves one at a time.
  const auto net = ring(2);
  const auto t = traces({{mem(0, 1000000), mem(1, 1000000)}, {mem(0, 1000000)}});
  ReplayOptions o = ring_options();
  o.memory.latency = core::Time::from_ns(100);
  o.memory.bandwidth = core::Bandwidth{10e9};
  const double one = 100 + 100000;
  o.memory.kind = RemoteMemory::Kind::PerNpu;
  auto res = run(net, t, o);
  EXPECT_NEAR(ns(res.ranks[0].finish), 2 * one, 1e-3);
  EXPECT_NEAR(ns(res.ranks[1].finish), one, 1e-3);
  EXPECT_EQ(res.memory_ops, 3u);
  o.memory.kind = RemoteMemory::Kind::Pool;  // one port for all: rank 1's load waits
  res = run(net, t, o);
  EXPECT_NEAR(ns(res.total), 3 * one, 1e-3);
  o.memory.kind = RemoteMemory::Kind::None;  // ASTRA-sim refuses memory nodes without one
  try {
    run(net, t, o);
    ADD_FAILURE() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.0.et: node 0 (id 0, n0): a memory node"),
              std::string::npos)
        << e.what();
  }
}

TEST(ChakraReplay, DeadlocksAndBadNodesAreErrorsNamingThem) {
  const auto net = ring(2);
  const std::int64_t b = 1024;
  // A receive that no send matches (wrong size).
  try {
    run(net, traces({{send(0, 1, b)}, {recv(0, 0, 2 * b)}}), ring_options());
    ADD_FAILURE() << "no error";
  } catch (const core::SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("the ranks deadlocked"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("t.1.et): 1 node left, waiting in node 0 (id 0, recv)"),
              std::string::npos)
        << e.what();
  }
  auto input_error = [&](const std::vector<std::vector<pb::Node>>& ranks,
                         const ReplayOptions& o) -> std::string {
    try {
      run(net, traces(ranks), o);
    } catch (const core::InputError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(input_error({{send(0, 0, b)}, {}}, ring_options())
                .find("t.0.et: node 0 (id 0, n0): comm_dst 0 is not another rank of the 2 NPUs"),
            std::string::npos);
  // A dependency cycle (seen in a PyTorch-collected trace): refused before running.
  EXPECT_NE(input_error({{node(0, pb::COMP_NODE, 1, {1}), node(1, pb::COMP_NODE, 1, {0})}, {}},
                        ring_options())
                .find("t.0.et: node 1 (id 1, n1): on a dependency cycle with node id 0 (or behind "
                      "one): 2 of the 2 nodes can never run"),
            std::string::npos);
  pb::Node grouped = coll(0, pb::ALL_REDUCE, b, {});
  pb::AttributeProto a;
  a.set_name("pg_name");
  a.set_string_val("7");
  *grouped.add_attr() = a;
  EXPECT_NE(input_error({{grouped}, {grouped}}, ring_options())
                .find("pg_name \"7\" is not a group of --comm-group-configuration"),
            std::string::npos);
  const std::string mismatch = input_error(
      {{coll(0, pb::ALL_REDUCE, b, {})}, {coll(0, pb::ALL_REDUCE, 2 * b, {})}}, ring_options());
  EXPECT_NE(mismatch.find("t.1.et: node 0 (id 0, n0): all-reduce of 2048 bytes, but the member "
                          "it meets ("),
            std::string::npos)
      << mismatch;
  EXPECT_NE(mismatch.find("t.0.et: node 0 (id 0, n0)) issued all-reduce of 1024 bytes as "
                          "collective 0 of communicator all"),
            std::string::npos)
      << mismatch;
  EXPECT_NE(input_error({{coll(0, pb::ALL_GATHER, b, {})}, {coll(0, pb::ALL_GATHER, b, {})}},
                        ring_options())
                .find("no algorithm for all-gather"),
            std::string::npos);
}

TEST(ChakraReplay, AnSpmdTraceReplaysAsItRunsAsATrainingIteration) {
  // 8 ranks: compute 5 us, a 1 MiB all-reduce beside 3 us of compute, then a node needing it.
  const fs::path d = dir() / "spmd";
  fs::create_directories(d);
  std::ofstream(d / "net.yml")
      << "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n";
  std::ofstream(d / "sys.json") << R"({"scheduling-policy": "FIFO", "endpoint-delay": 10,
      "preferred-dataset-splits": 4, "all-reduce-implementation": ["ring"],
      "collective-optimization": "localBWAware"})";
  for (int r = 0; r < 8; ++r) {
    write((d / fmt::format("w.{}.et", r)).string(),
          {node(0, pb::COMP_NODE, 5), coll(1, pb::ALL_REDUCE, 1048576, {0}),
           node(2, pb::COMP_NODE, 3, {0}), node(3, pb::COMP_NODE, 1, {1, 2})});
  }
  const std::string args = fmt::format(
      "astra --workload-configuration={0}/w --system-configuration={0}/sys.json "
      "--network-configuration={0}/net.yml --format csv",
      d.string());
  const auto training = test::collsim(args);
  const auto replayed = test::collsim(args + " --replay");
  ASSERT_EQ(training.status, 0) << training.err;
  ASSERT_EQ(replayed.status, 0) << replayed.err;
  // ASTRA-sim's lines go to standard error before CSV; they agree.
  const auto lines = [](const std::string& err) {
    const auto at = err.find("sys[0]");
    return at == std::string::npos ? std::string("none") : err.substr(at, err.find("\n", at) - at);
  };
  EXPECT_EQ(lines(training.err), lines(replayed.err));
  EXPECT_NE(replayed.err.find("sys[7] finished"), std::string::npos);
  EXPECT_EQ(replayed.out.rfind("trace,platform,backend,rank,finish_ns", 0), 0u) << replayed.out;
  EXPECT_NE(replayed.err.find("replaying the trace rank by rank (--replay)"), std::string::npos);
  // The replay's work is estimated before it runs: ring all-reduce on 8 ranks in 4 chunks
  // (preferred-dataset-splits) sends 2 x 7 x 8 x 4 = 448 messages (collsim's own reading: the
  // compatibility mode's staged collective is estimated apart).
  const auto refused = test::collsim(args + " --replay --max-messages 100 --no-astra-compat");
  EXPECT_EQ(refused.status, 2) << refused.err;
  EXPECT_NE(refused.err.find(": about 448 messages, over the limit of 100 (--max-messages"),
            std::string::npos)
      << refused.err;
  EXPECT_EQ(refused.out, "");
  EXPECT_EQ(test::collsim(args + " --replay --max-messages 448 --no-astra-compat").status, 0);
  fs::remove_all(d);
}

TEST(ChakraReplay, AstraCommandReadsGroupAndMemoryFiles) {
  const fs::path d = dir() / "files";
  fs::create_directories(d);
  std::ofstream(d / "net.yml")
      << "topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n";
  std::ofstream(d / "sys.json") << R"({"all-reduce-implementation": ["ring"]})";
  std::ofstream(d / "groups.json") << R"({"1": [0, 1], "2": [2, 3]})";
  std::ofstream(d / "mem.json") << R"({"memory-type": "MEMORY_POOL", "remote-mem-latency": 100,
      "remote-mem-bw": 10})";
  for (int r = 0; r < 4; ++r) {
    pb::Node n = coll(1, pb::ALL_REDUCE, 1048576, {0});
    pb::AttributeProto a;
    a.set_name("pg_name");
    a.set_string_val(r < 2 ? "1" : "2");
    *n.add_attr() = a;
    write((d / fmt::format("w.{}.et", r)).string(), {mem(0, 1000000), n});
  }
  const std::string args = fmt::format(
      "astra --workload-configuration={0}/w --system-configuration={0}/sys.json "
      "--network-configuration={0}/net.yml --comm-group-configuration={0}/groups.json "
      "--remote-memory-configuration={0}/mem.json --trace {0}/t.json",
      d.string());
  const auto ok = test::collsim(args);
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.out.find("sys[3] finished"), std::string::npos) << ok.out;
  EXPECT_NE(ok.err.find("w.0.et: node 0 (id 0, n0) is a MEM_LOAD_NODE node"), std::string::npos)
      << ok.err;
  std::ifstream t(d / "t.json");
  const std::string trace((std::istreambuf_iterator<char>(t)), std::istreambuf_iterator<char>());
  EXPECT_NE(trace.find("\"sys[3] ("), std::string::npos);
  EXPECT_NE(trace.find("\"memory\""), std::string::npos);
  // Bad files: exit 2, the file and key named.
  std::ofstream(d / "bad_groups.json") << R"({"1": [0, 9]})";
  const auto g = test::collsim(test::replaced(args, "groups.json", "bad_groups.json"));
  EXPECT_EQ(g.status, 2);
  EXPECT_NE(g.err.find("bad_groups.json: group \"1\": 9 is not an NPU of the 4"), std::string::npos)
      << g.err;
  std::ofstream(d / "bad_mem.json") << R"({"memory-type": "MEMORY_POOL", "remote-mem-bw": 0,
      "remote-mem-latency": 1})";
  const auto m = test::collsim(test::replaced(args, "mem.json", "bad_mem.json"));
  EXPECT_EQ(m.status, 2);
  EXPECT_NE(m.err.find("bad_mem.json: remote-mem-bw: must be a positive number, got 0"),
            std::string::npos)
      << m.err;
  fs::remove_all(d);
}

TEST(ChakraReplay, AstraSimsCustomRingAllReduceRunsAsSendsAndReceives) {
  const fs::path root = test::real_inputs("COLLSIM_CHAKRA_DATA", "chakra");
  if (!fs::is_directory(root)) {
    GTEST_SKIP() << test::no_real_inputs("COLLSIM_CHAKRA_DATA", "chakra");
  }
  const std::string data = root.string();
  const fs::path d = dir() / "custom";
  fs::create_directories(d);
  std::ofstream(d / "net.yml")
      << "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n";
  std::ofstream(d / "sys.json") << R"({"endpoint-delay": 10, "all-reduce-implementation":
      ["ring"]})";
  const auto r = test::collsim(fmt::format(
      "astra --workload-configuration={0}/astra-sim_examples/system/custom_collectives/"
      "custom_ring_allreduce_8npus_1MB/custom_allreduce --system-configuration={1}/sys.json "
      "--network-configuration={1}/net.yml",
      data, d.string()));
  ASSERT_EQ(r.status, 0) << r.err;
  // Per rank a chain of 14 sends of 128 KiB (10 ns + 2.4414 us + 500 ns each), 14 receives
  // that find their message there, and 7 reductions of 7 us: 90,320 cycles, 41,320 exposed.
  for (int k = 0; k < 8; ++k) {
    EXPECT_NE(r.out.find(fmt::format(
                  "sys[{}] finished, 90320 cycles, exposed communication 41320 cycles.", k)),
              std::string::npos)
        << r.out;
  }
  fs::remove_all(d);
}

TEST(ChakraReplay, PyTorchCollectedTraceRunsOnItsDataDependencies) {
  // Chakra's test trace of a CNN data-parallel step (rank 0, 3,664 nodes; two NCCL broadcasts
  // and five all-reduce kernels): its control edges form a cycle with its data edges, so it
  // runs on its data dependencies only, rank 0's graph on every NPU of an 8-ring.
  const fs::path root = test::real_inputs("COLLSIM_CHAKRA_DATA", "chakra");
  if (!fs::is_directory(root)) {
    GTEST_SKIP() << test::no_real_inputs("COLLSIM_CHAKRA_DATA", "chakra");
  }
  const std::string data = root.string();
  const fs::path d = dir() / "pytorch";
  fs::create_directories(d);
  const std::string untar = fmt::format(
      "tar -xzf '{}/chakra_tests_data/feeder_tests_trace.tar.gz' -C '{}'", data, d.string());
  ASSERT_EQ(std::system(untar.c_str()), 0);
  const std::string et = (d / "tests/data/chakra.0.et").string();
  ASSERT_TRUE(fs::exists(et));
  const std::vector<RankTrace> t{read_et(et)};
  EXPECT_NE(replay_reason(t).find("is a BROADCAST"), std::string::npos);
  ReplayOptions o = ring_options();
  try {
    run(ring(8), t, o);
    ADD_FAILURE() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("on a dependency cycle with node id 3317"),
              std::string::npos)
        << e.what();
  }
  o.data_deps_only = true;
  const auto res = run(ring(8), t, o);
  EXPECT_EQ(res.collectives, 5u);
  ASSERT_EQ(res.ranks.size(), 8u);
  for (const auto& k : res.ranks) {
    EXPECT_EQ(k.nodes, 3664u);
    EXPECT_GT(k.compute.ps, 0);
    EXPECT_GE(k.finish, k.compute);
  }
  fs::remove_all(d);
}

}  // namespace
}  // namespace collsim::workload::chakra
