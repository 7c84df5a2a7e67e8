// Scaling a Chakra trace of N ranks to K x N (jobs/trace_scale.hpp, issue 35): the clones'
// groups (cloned and widened), sends kept inside their clone, the replay of a 2x scaled hybrid
// trace equal to the same job written out by hand for 2N ranks, and a pure data-parallel trace
// scaled 2x and 16x against the ring all-reduce's closed form on the widened world.
#include "jobs/trace_scale.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_run.hpp"
#include "collective/algorithm.hpp"
#include "core/error.hpp"
#include "jobs/trace_replay.hpp"
#include "network/backend.hpp"
#include "topology/builders.hpp"

namespace collsim::jobs {
namespace {

using workload::chakra::Node;
using workload::chakra::NodeKind;
using workload::chakra::RankTrace;

constexpr double kBandwidth = 100e9;  // B/s per link
constexpr std::int64_t kLatencyNs = 500;

Node compute(std::uint64_t id, std::uint64_t us, std::vector<std::uint64_t> deps = {}) {
  Node n;
  n.id = id, n.name = fmt::format("c{}", id), n.kind = NodeKind::Compute, n.duration_us = us;
  n.data_deps = std::move(deps);
  return n;
}

Node all_reduce(std::uint64_t id, std::uint64_t bytes, const std::string& pg,
                std::vector<std::uint64_t> deps) {
  Node n;
  n.id = id, n.name = fmt::format("ar{}", id), n.kind = NodeKind::Collective;
  n.comm_type = 0, n.comm_size = bytes, n.pg_name = pg;
  n.data_deps = std::move(deps);
  return n;
}

Node p2p(std::uint64_t id, bool send, std::int32_t src, std::int32_t dst, std::uint64_t bytes,
         std::vector<std::uint64_t> deps) {
  Node n;
  n.id = id, n.name = fmt::format("p{}", id), n.kind = send ? NodeKind::Send : NodeKind::Recv;
  n.comm_src = src, n.comm_dst = dst, n.comm_size = bytes;
  n.data_deps = std::move(deps);
  return n;
}

std::vector<topology::DimSpec> switches(std::vector<std::uint32_t> sizes) {
  std::vector<topology::DimSpec> dims;
  for (std::uint32_t s : sizes) {
    topology::DimSpec d;
    d.kind = topology::DimKind::Switch;
    d.size = s;
    d.bandwidth = core::Bandwidth{kBandwidth};
    d.latency = core::Time::from_ns(kLatencyNs);
    dims.push_back(d);
  }
  return dims;
}

ReplayOptions ring() {
  ReplayOptions o;
  o.algorithms.emplace(collective::Collective::AllReduce,
                       collective::parse_algorithm("ring", "algorithm"));
  return o;
}

double ns(core::Time t) { return static_cast<double>(t.ps) / 1e3; }

// A hybrid job of 4 ranks on Switch 2 x Switch 2: tensor-parallel pairs {0,1} {2,3} all-reduce
// 1 MiB after 10 us of compute, rank 0 sends 256 KiB to rank 1 (a pipeline hand-off), then the
// data-parallel pairs {0,2} {1,3} all-reduce 4 MiB of gradients. `base` offsets the ranks,
// `tp` / `dp` name the groups (as a hand-written 8-rank trace names its second replica's).
std::vector<RankTrace> hybrid(std::int32_t base, const std::string& tp0, const std::string& tp1,
                              const std::string& dp0, const std::string& dp1) {
  std::vector<RankTrace> t(4);
  for (std::int32_t r = 0; r < 4; ++r) {
    RankTrace& rk = t[static_cast<std::size_t>(r)];
    rk.file = fmt::format("hybrid.{}.et", base + r);
    rk.nodes = {compute(1, 10), all_reduce(2, 1 << 20, r < 2 ? tp0 : tp1, {1})};
    if (r == 0) rk.nodes.push_back(p2p(3, true, base + 0, base + 1, 262144, {2}));
    if (r == 1) rk.nodes.push_back(p2p(3, false, base + 0, base + 1, 262144, {2}));
    rk.nodes.push_back(all_reduce(4, 4 << 20, r % 2 == 0 ? dp0 : dp1,
                                  {r < 2 ? std::uint64_t{3} : std::uint64_t{2}}));
  }
  return t;
}

const std::map<std::string, std::vector<topology::NodeId>> kGroups = {
    {"tp0", {0, 1}}, {"tp1", {2, 3}}, {"dp0", {0, 2}}, {"dp1", {1, 3}}};

TEST(TraceScale, ClonesRanksAndGroupsAndWidensTheDataParallelOnes) {
  const ScaledTrace s = scale_trace(hybrid(0, "tp0", "tp1", "dp0", "dp1"), 4, kGroups, 2,
                                    {"dp0", "dp1"});
  ASSERT_EQ(s.ranks.size(), 8u);
  EXPECT_EQ(s.cloned_groups, 2u);
  EXPECT_EQ(s.widened_groups, 2u);
  const std::map<std::string, std::vector<topology::NodeId>> want = {
      {"tp0", {0, 1}},       {"tp0#1", {4, 5}},     {"tp1", {2, 3}},
      {"tp1#1", {6, 7}},     {"dp0", {0, 2, 4, 6}}, {"dp1", {1, 3, 5, 7}}};
  EXPECT_EQ(s.groups, want);
  // Rank 5 is clone 1 of rank 1: its tensor-parallel group renamed, its receive from rank 4.
  const RankTrace& r5 = s.ranks[5];
  EXPECT_EQ(r5.nodes[1].pg_name, "tp0#1");
  EXPECT_EQ(r5.nodes[2].comm_src, 4);
  EXPECT_EQ(r5.nodes[2].comm_dst, 5);
  EXPECT_EQ(r5.nodes[3].pg_name, "dp1");  // widened: the same name for every clone
  EXPECT_EQ(s.ranks[1].nodes[1].pg_name, "tp0");
  EXPECT_NE(r5.file.find("clone 1 of 2"), std::string::npos) << r5.file;
  // Bad input: a group to widen that does not exist, a factor of 0.
  try {
    scale_trace(hybrid(0, "tp0", "tp1", "dp0", "dp1"), 4, kGroups, 2, {"dp9"});
    ADD_FAILURE() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--widen: \"dp9\" is not a group"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(scale_trace(hybrid(0, "tp0", "tp1", "dp0", "dp1"), 4, kGroups, 0, {}),
               core::InputError);
}

TEST(TraceScale, TwiceScaledHybridTraceIsTheHandWrittenEightRankJob) {
  std::vector<topology::DimSpec> dims = switches({2, 2});
  const topology::Topology platform = scale_platform(dims, 2);
  EXPECT_EQ(platform.num_npus(), 8u);
  EXPECT_EQ(dims.back().size, 4u);
  const network::BackendInfo& backend = network::find_backend("analytical", "backend");

  const ScaledTrace s = scale_trace(hybrid(0, "tp0", "tp1", "dp0", "dp1"), 4, kGroups, 2,
                                    {"dp0", "dp1"});
  ReplayOptions o = ring();
  o.groups = s.groups;
  const ReplayResult scaled = replay(platform, backend, s.ranks, o);

  // The same job written by hand: the second replica's ranks 4-7 with groups of their own
  // names, the data-parallel groups of four.
  std::vector<RankTrace> by_hand = hybrid(0, "a", "b", "dp0", "dp1");
  for (RankTrace& t : hybrid(4, "c", "d", "dp0", "dp1")) by_hand.push_back(std::move(t));
  ReplayOptions h = ring();
  h.groups = {{"a", {0, 1}}, {"b", {2, 3}}, {"c", {4, 5}}, {"d", {6, 7}},
              {"dp0", {0, 2, 4, 6}}, {"dp1", {1, 3, 5, 7}}};
  const ReplayResult written = replay(platform, backend, by_hand, h);

  EXPECT_EQ(scaled.total, written.total);
  ASSERT_EQ(scaled.ranks.size(), 8u);
  for (std::size_t r = 0; r < 8; ++r) EXPECT_EQ(scaled.ranks[r].finish, written.ranks[r].finish);
  // Communicator sizes through the messages: 4 tensor-parallel rings of 2 ranks (2 x 1 x 2
  // messages each), 2 data-parallel rings of 4 (2 x 3 x 4 each), 2 sends.
  EXPECT_EQ(scaled.collectives, 6u);
  EXPECT_EQ(scaled.sends, 2u);
  EXPECT_EQ(scaled.messages, 4u * 4 + 2u * 24 + 2);
  EXPECT_EQ(scaled.messages, written.messages);
  EXPECT_EQ(scaled.bytes, written.bytes);
  // The unscaled job is faster: its data-parallel rings have 2 ranks, not 4 (and every rank's
  // gradient all-reduce crosses the outer switch either way).
  o.groups = kGroups;
  const ReplayResult one = replay(topology::hierarchical(switches({2, 2})), backend,
                                  hybrid(0, "tp0", "tp1", "dp0", "dp1"), o);
  EXPECT_LT(one.total, scaled.total);
}

TEST(TraceScale, DataParallelTraceFollowsTheRingClosedFormOnTheWidenedWorld) {
  // Every rank of 4 on one switch computes 20 us, then all-reduces 8 MiB on the world. Scaled
  // K times: one ring of 4K ranks, 2 (n - 1) steps of n = 4K, each S / n bytes over two links
  // (NPU -> switch -> NPU, cut-through: 2 latencies + the bytes at the link's bandwidth).
  const std::uint64_t size = 8 << 20;
  std::vector<RankTrace> t(4);
  for (auto& rk : t) rk.nodes = {compute(1, 20), all_reduce(2, size, "", {1})};
  const network::BackendInfo& backend = network::find_backend("analytical", "backend");
  for (std::uint32_t k : {1u, 2u, 16u}) {
    std::vector<topology::DimSpec> dims = switches({4});
    const topology::Topology platform = scale_platform(dims, k);
    const ScaledTrace s = scale_trace(t, 4, {}, k, {});
    ASSERT_EQ(s.ranks.size(), 4u * k);
    const ReplayResult r = replay(platform, backend, s.ranks, ring());
    const double n = 4.0 * k;
    const double step_ns =
        2.0 * kLatencyNs + static_cast<double>(size) / n / kBandwidth * 1e9;
    const double want = 20000 + 2 * (n - 1) * step_ns;
    EXPECT_NEAR(ns(r.total), want, 1e-6 * want) << k;
    EXPECT_EQ(r.messages, static_cast<std::uint64_t>(2 * (n - 1) * n)) << k;
    EXPECT_EQ(r.collectives, 1u);
  }
}

}  // namespace
}  // namespace collsim::jobs
