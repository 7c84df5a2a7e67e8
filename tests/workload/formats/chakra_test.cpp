// Chakra execution traces (workload/formats/chakra.hpp): traces written here with the protobuf
// messages, read back, turned into a workload and run against a timeline derived by hand; the
// errors for corrupt files and for what collsim does not run; and, where COLLSIM_CHAKRA_DATA names
// a directory of real traces (ASTRA-sim's microbenchmarks), every one of them.
#include "workload/formats/chakra.hpp"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "chakra_writer.hpp"
#include "core/error.hpp"
#include "real_inputs.hpp"
#include "topology/builders.hpp"
#include "workload/formats/chakra_et.pb.h"
#include "jobs/trace_replay.hpp"
#include "workload/load.hpp"
#include "jobs/training.hpp"

namespace collsim::workload::chakra {
namespace {

using namespace collsim::jobs;  // NOLINT: the drivers under test

namespace pb = collsim::chakra::et;
namespace fs = std::filesystem;

fs::path dir() { return trace_dir("chakra"); }

std::string message(const std::function<void()>& f) {
  try {
    f();
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Chakra, ACollectiveRunsBesideIndependentComputeUntilANodeNeedsIt) {
  // A (10 us) -> all-reduce of 1 MiB; B (5 us) depends on A only; C (5 us) on the all-reduce and
  // B. On fc:4 with direct, the all-reduce takes 2 x (150 ns + 262144 B / 16 GB/s) = 33.068 us:
  // A [0, 10], all-reduce [10, 43.068] beside B [10, 15], C [43.068, 48.068].
  const fs::path d = dir();
  write(d / "t.0.et", {node(1, pb::COMP_NODE, 10), coll(2, pb::ALL_REDUCE, 1 << 20, {1}),
                       node(3, pb::COMP_NODE, 5, {1}), node(4, pb::COMP_NODE, 5, {2, 3})});
  const RankTrace r = read_et(d / "t.0.et");
  EXPECT_EQ(r.version, "0.0.4");
  ASSERT_EQ(r.nodes.size(), 4u);
  EXPECT_EQ(r.nodes[1].kind, NodeKind::Collective);
  EXPECT_EQ(r.nodes[1].comm_size, 1u << 20);
  EXPECT_EQ(r.nodes[3].data_deps, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_TRUE(is_trace((d / "t").string()));
  EXPECT_EQ(trace_files((d / "t.0.et").string()).size(), 1u);

  const auto t = topology::from_compact("fc:4", core::Bandwidth{16e9}, core::Time::from_ns(150));
  const Workload w = load_workload((d / "t").string(), t, {}, "workload");
  ASSERT_EQ(w.layers.size(), 3u);
  EXPECT_TRUE(w.layers[0].comm[0].overlapped);
  EXPECT_EQ(w.layers[0].comm[0].needed_before, 2u);
  TrainingOptions o;
  o.algorithm = collective::parse_algorithm("direct", "t");
  const TrainingResult res = run_training(t, network::find_backend("analytical", "b"), w, o);
  EXPECT_EQ(res.total.ps, 48068000);
  EXPECT_EQ(res.compute.ps, 20000000);
  // A collective nothing depends on must end before the iteration does.
  write(d / "u.0.et", {node(1, pb::COMP_NODE, 10), coll(2, pb::ALL_REDUCE, 1 << 20, {1}),
                       node(3, pb::COMP_NODE, 5, {1})});
  const Workload u = load_workload((d / "u").string(), t, {}, "workload");
  ASSERT_EQ(u.layers.back().name, "end");
  EXPECT_EQ(run_training(t, network::find_backend("analytical", "b"), u, o).total.ps, 43068000);
  fs::remove_all(d);
}

TEST(Chakra, CorruptFilesAndWhatIsNotRunGetErrorsNamingTheFileAndNode) {
  const fs::path d = dir();
  const std::string bytes =
      write(d / "a.0.et", {node(1, pb::COMP_NODE, 10), coll(2, pb::ALL_REDUCE, 1024, {1})});
  std::ofstream(d / "cut.0.et", std::ios::binary) << bytes.substr(0, bytes.size() - 5);
  EXPECT_NE(
      message([&] { read_et(d / "cut.0.et"); }).find("cut.0.et: node 1 (after id 1): truncated"),
      std::string::npos)
      << message([&] { read_et(d / "cut.0.et"); });
  std::ofstream(d / "junk.0.et", std::ios::binary) << std::string("\x05\xff\xff\xff\xff\xff", 6);
  EXPECT_NE(message([&] { read_et(d / "junk.0.et"); }).find("junk.0.et: global metadata"),
            std::string::npos);
  const auto t = topology::from_compact("fc:4", core::Bandwidth{16e9}, core::Time::from_ns(150));
  const auto run = [&](const std::vector<pb::Node>& nodes) {
    write(d / "x.0.et", nodes);
    return message([&] { load_workload((d / "x").string(), t, {}, "workload"); });
  };
  EXPECT_NE(
      run({node(1, pb::COMP_NODE, 1), node(2, pb::COMP_NODE, 1, {3}), node(3, pb::COMP_NODE, 1)})
          .find("depends on node id 3, which comes later in the file"),
      std::string::npos);
  // A dependency on a node the file lacks (PyTorch traces drop host nodes) is ignored, counted.
  write(d / "m.0.et", {node(1, pb::COMP_NODE, 1, {7})});
  EXPECT_NE(load_workload((d / "m").string(), t, {}, "w").source.find("1 dependency on nodes"),
            std::string::npos);
  // A send or a BROADCAST is not one SPMD iteration: the trace loads to be run rank by rank
  // (jobs/trace_replay.hpp), saying why.
  const auto rank_by_rank = [&](const std::vector<pb::Node>& nodes) {
    write(d / "x.0.et", nodes);
    const Workload w = load_workload((d / "x").string(), t, {}, "w");
    EXPECT_NE(w.trace, nullptr);
    EXPECT_TRUE(w.layers.empty());
    return w.source;
  };
  EXPECT_NE(rank_by_rank({node(1, pb::COMM_SEND_NODE, 0)}).find("run rank by rank: "),
            std::string::npos);
  EXPECT_NE(rank_by_rank({node(1, pb::COMM_SEND_NODE, 0)}).find("COMM_SEND_NODE node"),
            std::string::npos);
  EXPECT_NE(rank_by_rank({coll(1, pb::BROADCAST, 8, {})}).find("is a BROADCAST"),
            std::string::npos);
  // A collective node without type and size (PyTorch's host-side c10d:: record) is a no-op.
  write(d / "h.0.et", {node(1, pb::COMM_COLL_NODE, 85), node(2, pb::COMP_NODE, 1, {1})});
  const Workload h = load_workload((d / "h").string(), t, {}, "w");
  EXPECT_EQ(h.layers.size(), 1u);
  EXPECT_NE(h.source.find("1 collective launch record"), std::string::npos) << h.source;
  // Two ranks on a platform of four NPUs.
  write(d / "x.1.et", {node(1, pb::COMP_NODE, 1)});
  EXPECT_NE(message([&] {
              load_workload((d / "x").string(), t, {}, "w");
            }).find("2 ranks (files) for a platform of 4 NPUs"),
            std::string::npos);
  fs::remove_all(d);
}

// ASTRA-sim's microbenchmark traces (one collective of 1 MiB per rank, 4, 8 and 16 ranks) and
// custom-collective traces (send / recv, read but not run), where COLLSIM_CHAKRA_DATA names the
// directory holding them.
TEST(Chakra, EveryMicrobenchmarkTraceLoadsAndRuns) {
  const fs::path root = test::real_inputs("COLLSIM_CHAKRA_DATA", "chakra");
  if (!fs::is_directory(root)) {
    GTEST_SKIP() << test::no_real_inputs("COLLSIM_CHAKRA_DATA", "chakra");
  }
  std::size_t ran = 0, read = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const std::string p = e.path().string();
    if (!e.is_regular_file() || p.size() < 5 || p.compare(p.size() - 5, 5, ".0.et") != 0) continue;
    const auto files = trace_files(p);
    std::vector<RankTrace> ranks;
    for (const auto& f : files) ranks.push_back(read_et(f));
    ++read;
    const bool sends = ranks[0].nodes.front().kind == NodeKind::Send ||
                       ranks[0].nodes.front().kind == NodeKind::Recv;
    const auto t = topology::from_compact("switch:" + std::to_string(files.size()),
                                          core::Bandwidth{50e9}, core::Time::from_ns(500));
    if (sends || p.find("custom") != std::string::npos) {
      // Not a training iteration; replayed rank by rank (jobs/trace_replay_test.cpp runs it).
      EXPECT_NE(replay_reason(ranks), "") << p;
      EXPECT_NE(load_workload(p, t, {}, "w").trace, nullptr) << p;
      continue;
    }
    const Workload w = load_workload(p, t, {}, "w");
    TrainingOptions o;
    o.algorithm = collective::parse_algorithm("ring", "t");
    const TrainingResult r = run_training(t, network::find_backend("analytical", "b"), w, o);
    EXPECT_GT(r.total.ps, 0) << p;
    EXPECT_EQ(r.collectives, 1u) << p;
    ++ran;
  }
  EXPECT_GE(read, 13u);
  EXPECT_GE(ran, 12u);
}

}  // namespace
}  // namespace collsim::workload::chakra
