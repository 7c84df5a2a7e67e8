// Timeline traces: valid Chrome trace-event JSON whose slices and counters match the run.
#include "report/trace.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "collective/algorithm.hpp"
#include "core/error.hpp"
#include "topology/builders.hpp"

namespace collsim::report {
namespace {

using namespace collsim::jobs;  // NOLINT: the drivers under test

const core::Bandwidth kBw{16e9};
const core::Time kLat = core::Time::from_ns(150);

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::filesystem::path temp(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "collsim_trace_test";
  std::filesystem::create_directories(dir);
  return dir / name;
}

// A ring all-reduce of 64 KiB on torus:2x2 (flow backend), traced.
std::vector<ResultRow> traced_ring(const std::filesystem::path& path) {
  const auto t = topology::from_compact("torus:2x2", kBw, kLat);
  jobs::CollectiveJob job;
  job.sizes = {core::Bytes{64 << 10}};
  job.algorithms = {collective::parse_algorithm("ring", "t")};
  TraceWriter trace(path.string());
  auto rows =
      jobs::run_collective_job("p", t, network::find_backend("flow", "b"), job, &trace);
  trace.close();
  return rows;
}

TEST(Trace, SlicesAndCountersMatchTheRun) {
  const auto path = temp("ring.json");
  const auto rows = traced_ring(path);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".tmp"));
  const auto doc = nlohmann::json::parse(slurp(path));
  ASSERT_TRUE(doc.contains("traceEvents"));
  std::map<std::uint64_t, std::string> processes;
  std::uint64_t sends = 0, recvs = 0, collectives = 0;
  std::map<std::string, int> flows;  // flow id -> +1 for its start, +10 for its end
  std::set<std::string> counters;
  for (const auto& e : doc["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M" && e["name"] == "process_name") processes[e["pid"]] = e["args"]["name"];
    if (ph == "X") {
      ASSERT_GE(e["ts"].get<double>(), 0.0);
      ASSERT_GE(e["dur"].get<double>(), 0.0);
      ASSERT_TRUE(e.contains("tid"));
      const std::string name = e["name"];
      if (name.starts_with("send to NPU")) ++sends;
      if (name.starts_with("recv from NPU") || name.starts_with("reduce from NPU")) ++recvs;
      if (name == "ring") {
        ++collectives;
        // The collective's slice spans its time: ps -> us.
        EXPECT_NEAR(e["dur"].get<double>(), rows[0].time.ps / 1e6, 1e-6);
      }
    }
    if (ph == "s") flows[e["id"]] += 1;
    if (ph == "f") {
      flows[e["id"]] += 10;
      EXPECT_EQ(e["bp"], "e");
    }
    if (ph == "C") {
      counters.insert(e["name"]);
      const double v = e["args"]["share"];
      EXPECT_GE(v, 0.0);
      EXPECT_LE(v, 1.0 + 1e-9);
    }
  }
  // Every pid used by a slice is named.
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X") {
      EXPECT_TRUE(processes.count(e["pid"])) << e.dump();
    }
  }
  EXPECT_EQ(processes.size(), 4u + 2u);  // 4 NPUs, collectives, network
  EXPECT_EQ(processes.begin()->second, "run 1: p ring 64 KiB flow / NPU 0");
  EXPECT_EQ(sends, rows[0].messages);
  EXPECT_EQ(recvs, rows[0].messages);
  EXPECT_EQ(collectives, 1u);
  // One arrow per message, from its send to its receive.
  EXPECT_EQ(flows.size(), rows[0].messages);
  for (const auto& f : flows) EXPECT_EQ(f.second, 11) << f.first;
  EXPECT_TRUE(counters.count("dim0 busy share"));
  EXPECT_TRUE(counters.count("dim1 busy share"));
}

TEST(Trace, SameRunSameBytes) {
  traced_ring(temp("a.json"));
  traced_ring(temp("b.json"));
  EXPECT_EQ(slurp(temp("a.json")), slurp(temp("b.json")));
}

TEST(Trace, ConcurrentCollectivesHaveATrackEach) {
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  jobs::ConcurrentJob job;
  job.name = "xy";
  job.members = {{collective::Collective::AllReduce, "dim:0",
                  collective::parse_algorithm("ring", "t"), core::Bytes{1 << 16}, 1},
                 {collective::Collective::AllToAll, "dim:1",
                  collective::parse_algorithm("direct", "t"), core::Bytes{1 << 16}, 1}};
  const auto path = temp("xy.json");
  {
    TraceWriter trace(path.string());
    jobs::run_concurrent_job("p", t, network::find_backend("flow", "b"), job, &trace);
  }  // the destructor closes
  const auto doc = nlohmann::json::parse(slurp(path));
  // Three runs (together, then each alone); in the first, NPU 0 has a track for its X ring and
  // one for its Y ring (4 + 4 collectives: one per group).
  std::set<std::string> runs, npu0_tracks;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "M") continue;
    if (e["name"] == "process_name") {
      const std::string n = e["args"]["name"];
      runs.insert(n.substr(0, n.find(':')));
    }
    if (e["name"] == "thread_name" && e["pid"] == 1) npu0_tracks.insert(e["args"]["name"]);
  }
  EXPECT_EQ(runs, (std::set<std::string>{"run 1", "run 2", "run 3"}));
  EXPECT_EQ(npu0_tracks, (std::set<std::string>{"all-reduce ring 64 KiB on dim:0 (rank 0)",
                                                "all-to-all direct 64 KiB on dim:1 (rank 0)"}));
}

TEST(Trace, UnwritablePathIsAnInputErrorNamingTheOption) {
  try {
    TraceWriter w("/nonexistent-dir/x.json");
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--trace: cannot write \"/nonexistent-dir/x.json\": no folder \"/nonexistent-dir\" (create it first)");
  }
}

TEST(Trace, WindowsStayBoundedAndKeepTheBusyTime) {
  // 4 windows of 10 ps. [5, 25) fits; [30, 95) needs windows up to 9: the width doubles to 20
  // then 40 (3 windows used), and no busy time is lost.
  BusyWindows w(1, 4, core::Time{10});
  w.add(0, core::Time{5}, core::Time{25});
  EXPECT_EQ(w.used(), 3u);
  w.add(0, core::Time{30}, core::Time{95});
  EXPECT_EQ(w.width(), core::Time{40});
  EXPECT_EQ(w.used(), 3u);
  EXPECT_DOUBLE_EQ(w.busy(0, 0), 20 + 10);  // [5,25) and [30,40)
  EXPECT_DOUBLE_EQ(w.busy(0, 1), 40);       // [40,80)
  EXPECT_DOUBLE_EQ(w.busy(0, 2), 15);       // [80,95)
  // A run far longer than the grid: still 4 windows.
  w.add(0, core::Time{1000000}, core::Time{1000001});
  EXPECT_LE(w.used(), 4u);
  double total = 0;
  for (std::size_t i = 0; i < w.used(); ++i) total += w.busy(0, i);
  EXPECT_DOUBLE_EQ(total, 20 + 65 + 1);
}

}  // namespace
}  // namespace collsim::report

namespace collsim::report {
namespace {

using namespace collsim::jobs;  // NOLINT: the drivers under test

TEST(Trace, HierarchicalCollectivesHaveAChunkStageTrackPerDimension) {
  // 1 MiB all-reduce in 2 chunks on torus:4x4: each chunk walks RS dim0, RS dim1, AG dim1, AG
  // dim0 (baseline), so 8 chunk-stage slices on two tracks, never overlapping on a track
  // (active_chunks = 1), the last ending when the collective ends.
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  jobs::CollectiveJob job;
  job.sizes = {core::Bytes{1 << 20}};
  job.chunks = 2;
  job.algorithms = {collective::parse_algorithm("hierarchical", "t")};
  const auto path = temp("hier.json");
  std::vector<ResultRow> rows;
  {
    TraceWriter trace(path.string());
    rows = jobs::run_collective_job("p", t, network::find_backend("analytical", "b"), job,
                                         &trace);
  }
  const auto doc = nlohmann::json::parse(slurp(path));
  std::uint64_t dims_pid = 0;
  std::map<std::uint64_t, std::string> tracks;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name" &&
        std::string(e["args"]["name"]).ends_with("/ dimensions")) {
      dims_pid = e["pid"];
    }
  }
  ASSERT_NE(dims_pid, 0u);
  std::map<std::string, std::vector<std::pair<double, double>>> slices;  // track -> [ts, end)
  std::string first;
  double first_ts = 1e300, last_end = 0, first_bytes = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["pid"] != dims_pid) continue;
    if (e["ph"] == "M" && e["name"] == "thread_name") tracks[e["tid"]] = e["args"]["name"];
    if (e["ph"] != "X") continue;
    const double ts = e["ts"], end = ts + double(e["dur"]);
    slices[tracks.at(e["tid"])].emplace_back(ts, end);
    if (ts < first_ts) first_ts = ts, first = e["name"], first_bytes = e["args"]["bytes_per_npu"];
    last_end = std::max(last_end, end);
  }
  ASSERT_EQ(slices.size(), 2u);
  EXPECT_EQ(slices["dim0"].size(), 4u);
  EXPECT_EQ(slices["dim1"].size(), 4u);
  for (auto& [name, v] : slices) {
    std::sort(v.begin(), v.end());
    for (std::size_t i = 1; i < v.size(); ++i) EXPECT_LE(v[i - 1].second, v[i].first + 1e-6);
  }
  EXPECT_EQ(first, "chunk 0 reduce-scatter");
  EXPECT_DOUBLE_EQ(first_ts, 0.0);
  EXPECT_DOUBLE_EQ(first_bytes, 524288.0);
  EXPECT_NEAR(last_end, rows[0].time.ns() / 1000.0, 1e-6);
}

}  // namespace
}  // namespace collsim::report
