// jobs/workload_runner: the one runner walks hand-built workload graphs on a Session; each case's
// times follow from the graph's rules (streams, meetings, sends matched by receives, the remote
// memory) and the links' alpha-beta costs, derived in the comments.
#include "jobs/workload_runner.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "network/backend.hpp"
#include "topology/builders.hpp"

namespace collsim::jobs {
namespace {

using core::Time;
using workload::Graph;
using workload::Node;
using workload::NodeKind;
using workload::ProgramBuilder;

// 10 GB/s links without latency: 1 MB takes 100 us on one link.
const core::Bandwidth kBw{10e9};

runtime::MachineSpec machine(const topology::Topology& t) {
  runtime::MachineSpec m;
  m.topology = &t;
  m.backend = &network::find_backend("flow", "backend");
  return m;
}

Node compute(Time t, std::uint16_t stream = 0, std::uint32_t category = 0) {
  Node n;
  n.kind = NodeKind::Compute;
  n.duration = t;
  n.stream = stream;
  n.category = category;
  return n;
}

Node send(topology::NodeId src, topology::NodeId dst, std::uint64_t bytes, std::uint16_t stream,
          std::uint32_t category, bool recv = false) {
  Node n;
  n.kind = recv ? NodeKind::Recv : NodeKind::Send;
  n.src = src;
  n.dst = dst;
  n.bytes = bytes;
  n.stream = stream;
  n.category = category;
  return n;
}

// Two timelines on NPUs 0 and 1 of a 2-NPU switch: streams compute (0), comm (1), p2p (2,
// concurrent); categories compute (0), comm (1).
Graph two_timelines() {
  Graph g;
  g.name = "test";
  g.stream("compute");
  g.stream("comm");
  g.stream("p2p", false);
  g.category("compute");
  g.category("comm");
  g.programs.resize(2);
  g.programs[0].source = "rank 0";
  g.programs[1].source = "rank 1";
  g.timelines = {{0, 0, {}}, {1, 1, {}}};
  return g;
}

WorkloadResult run(const Graph& g, const topology::Topology& t, WorkloadRunOptions o = {}) {
  runtime::Session s(machine(t));
  o.record = true;
  return run_workload(s, g, o);
}

TEST(WorkloadRunner, SerialStreamRunsOneNodeAtATimeInIdOrder) {
  const topology::Topology t = topology::switch_star(2, kBw, Time{});
  Graph g = two_timelines();
  ProgramBuilder b(g.programs[0]);
  // Three 10 us computes with no dependencies on the serial compute stream: 30 us in a row.
  for (int i = 0; i < 3; ++i) b.add(compute(Time::from_ns(10 * 1000)), {});
  // A 5 us compute on the concurrent stream runs beside them.
  b.add(compute(Time::from_ns(5 * 1000), 2), {});
  const WorkloadResult r = run(g, t);
  EXPECT_EQ(r.timelines[0].finish, Time::from_ns(30 * 1000));
  EXPECT_EQ(r.nodes[0][0].end, Time::from_ns(10 * 1000));
  EXPECT_EQ(r.nodes[0][2].end, Time::from_ns(30 * 1000));
  EXPECT_EQ(r.nodes[0][3].end, Time::from_ns(5 * 1000));
  EXPECT_EQ(r.timelines[0].compute, Time::from_ns(35 * 1000));
  EXPECT_EQ(r.timelines[0].busy[0], Time::from_ns(30 * 1000));  // main stream only
  EXPECT_EQ(r.timelines[1].finish, Time{});
}

TEST(WorkloadRunner, LifoStreamTakesTheLatestReadyFirst) {
  const topology::Topology t = topology::switch_star(2, kBw, Time{});
  Graph g = two_timelines();
  g.streams[1].lifo = true;
  ProgramBuilder b(g.programs[0]);
  const auto gate = b.add(compute(Time::from_ns(1 * 1000)), {});
  // Three delays on the lifo stream, all ready when the gate ends: ids 1, 2, 3 run 3, 2, 1.
  for (int i = 0; i < 3; ++i) {
    Node d;
    d.kind = NodeKind::Delay;
    d.duration = Time::from_ns(10 * 1000);
    d.stream = 1;
    b.add(d, {gate});
  }
  const WorkloadResult r = run(g, t);
  EXPECT_EQ(r.nodes[0][3].end, Time::from_ns(11 * 1000));
  EXPECT_EQ(r.nodes[0][2].end, Time::from_ns(21 * 1000));
  EXPECT_EQ(r.nodes[0][1].end, Time::from_ns(31 * 1000));
}

TEST(WorkloadRunner, SendEndsItsReceiveAndExposesTheWait) {
  const topology::Topology t = topology::switch_star(2, kBw, Time{});
  Graph g = two_timelines();
  // Rank 0: 20 us of compute, then 1 MB to rank 1 (two switch hops, store-free flow: 100 us).
  ProgramBuilder b0(g.programs[0]);
  const auto c0 = b0.add(compute(Time::from_ns(20 * 1000)), {});
  b0.add(send(0, 1, 1'000'000, 2, 1), {c0});
  // Rank 1: posts its receive at once; its compute waits for it: 120 us exposed, then 10 us.
  ProgramBuilder b1(g.programs[1]);
  const auto rv = b1.add(send(0, 1, 1'000'000, 2, 1, true), {});
  b1.add(compute(Time::from_ns(10 * 1000)), {rv});
  const WorkloadResult r = run(g, t);
  EXPECT_EQ(r.nodes[1][0].end, Time::from_ns(120 * 1000));
  EXPECT_EQ(r.timelines[1].finish, Time::from_ns(130 * 1000));
  EXPECT_EQ(r.timelines[1].exposed[1], Time::from_ns(120 * 1000));
  EXPECT_EQ(r.timelines[1].idle, Time{});
  EXPECT_EQ(r.sends, 1u);
  EXPECT_EQ(r.messages, 1u);
  ASSERT_EQ(r.waits.size(), 1u);
  EXPECT_EQ(r.waits[0].to - r.waits[0].from, Time::from_ns(120 * 1000));
}

TEST(WorkloadRunner, CollectiveMeetsItsParticipantsAndStartsWithTheLast) {
  const topology::Topology t = topology::switch_star(2, kBw, Time{});
  Graph g = two_timelines();
  workload::Group all;
  all.name = "all";  // every NPU, both timelines take part
  g.groups.push_back(all);
  // Rank 0 issues at 0, rank 1 after 50 us of compute: the 2 MB ring all-reduce (two steps of
  // 1 MB each way, 100 us each) runs from 50 to 250 us on both.
  for (std::uint32_t k = 0; k < 2; ++k) {
    ProgramBuilder b(g.programs[k]);
    std::vector<std::uint32_t> deps;
    if (k == 1) deps.push_back(b.add(compute(Time::from_ns(50 * 1000)), {}));
    Node c;
    c.kind = NodeKind::Collective;
    c.collective = collective::Collective::AllReduce;
    c.bytes = 2'000'000;
    c.group = 0;
    c.stream = 1;
    c.category = 1;
    b.add(c, deps);
  }
  WorkloadRunOptions o;
  o.algorithms[collective::Collective::AllReduce] =
      collective::parse_algorithm("ring", "algorithm");
  const WorkloadResult r = run(g, t, o);
  EXPECT_EQ(r.collectives, 1u);
  EXPECT_EQ(r.nodes[0][0].issued, Time{});
  EXPECT_EQ(r.nodes[0][0].end, Time::from_ns(250 * 1000));
  EXPECT_EQ(r.nodes[1][1].end, Time::from_ns(250 * 1000));
  EXPECT_EQ(r.messages, 4u);
}

// A group of a timing class: the second all-reduce of the same size is timed as the first one
// took (200 us, derived above) without simulating it; a third of another size is simulated.
TEST(WorkloadRunner, TimingClassSimulatesTheFirstCollectiveOfAKindOnly) {
  const topology::Topology t = topology::switch_star(2, kBw, Time{});
  const auto run_three = [&](std::uint32_t timing_class) {
    Graph g = two_timelines();
    workload::Group all;
    all.name = "all";
    all.timing_class = timing_class;
    g.groups.push_back(all);
    for (std::uint32_t k = 0; k < 2; ++k) {
      ProgramBuilder b(g.programs[k]);
      std::vector<std::uint32_t> deps;
      for (const std::uint64_t bytes : {2'000'000ull, 2'000'000ull, 4'000'000ull}) {
        Node c;
        c.kind = NodeKind::Collective;
        c.bytes = bytes;
        c.group = 0;
        c.stream = 1;
        c.category = 1;
        deps = {b.add(c, deps)};
      }
    }
    WorkloadRunOptions o;
    o.algorithms[collective::Collective::AllReduce] =
        collective::parse_algorithm("ring", "algorithm");
    return run(g, t, o);
  };
  const WorkloadResult plain = run_three(workload::kNone), timed = run_three(0);
  // 200 + 200 + 400 us, both ways.
  EXPECT_EQ(plain.total, Time::from_ns(800 * 1000));
  EXPECT_EQ(timed.total, plain.total);
  EXPECT_EQ(timed.nodes[0][1].end, Time::from_ns(400 * 1000));
  EXPECT_EQ(timed.messages, plain.messages);  // the timed one's messages are counted as the first's
  EXPECT_EQ(timed.collectives, 3u);
  EXPECT_LT(timed.events, plain.events);  // but not simulated
}

TEST(WorkloadRunner, CollectivesThatDisagreeAreRefused) {
  const topology::Topology t = topology::switch_star(2, kBw, Time{});
  Graph g = two_timelines();
  g.groups.push_back({"all", {}, {}, {}});
  for (std::uint32_t k = 0; k < 2; ++k) {
    Node c;
    c.kind = NodeKind::Collective;
    c.bytes = k == 0 ? 1000 : 2000;
    c.group = 0;
    c.stream = 1;
    ProgramBuilder(g.programs[k]).add(c, {});
  }
  WorkloadRunOptions o;
  o.algorithms[collective::Collective::AllReduce] =
      collective::parse_algorithm("ring", "algorithm");
  try {
    run(g, t, o);
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("but the member it meets"), std::string::npos)
        << e.what();
  }
}

TEST(WorkloadRunner, ReceiveNoSendMatchesIsADeadlockNamingTheRank) {
  const topology::Topology t = topology::switch_star(2, kBw, Time{});
  Graph g = two_timelines();
  ProgramBuilder(g.programs[1]).add(send(0, 1, 100, 2, 1, true), {});
  try {
    run(g, t);
    FAIL();
  } catch (const core::SimulationError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("the ranks deadlocked"), std::string::npos) << m;
    EXPECT_NE(m.find("rank 1 (rank 1): 1 node left"), std::string::npos) << m;
  }
}

TEST(WorkloadRunner, RemoteMemoryServesOneRequestAtATime) {
  const topology::Topology t = topology::switch_star(2, kBw, Time{});
  Graph g = two_timelines();
  // A pooled memory of 1 GB/s and 1 us latency: 1 MB loads of both ranks, 1001 us each, in
  // arrival order (rank 0 first: its timeline is walked first).
  for (std::uint32_t k = 0; k < 2; ++k) {
    Node m;
    m.kind = NodeKind::MemLoad;
    m.bytes = 1'000'000;
    m.stream = 2;
    m.category = 1;
    ProgramBuilder(g.programs[k]).add(m, {});
  }
  WorkloadRunOptions o;
  o.memory.kind = RemoteMemory::Kind::Pool;
  o.memory.latency = Time::from_ns(1 * 1000);
  o.memory.bandwidth = core::Bandwidth{1e9};
  const WorkloadResult r = run(g, t, o);
  EXPECT_EQ(r.nodes[0][0].end, Time::from_ns(1001 * 1000));
  EXPECT_EQ(r.nodes[1][0].end, Time::from_ns(2002 * 1000));
  EXPECT_EQ(r.memory_ops, 2u);
}

TEST(WorkloadRunner, WaitOnAChainOfCollectivesSplitsByCategory) {
  // Rank 0 alone: a 10 us compute, then two collectives in a chain on the comm stream (a 1 MB
  // all-gather on 2 NPUs of 100 us, category 1, then a send of 1 MB, category 2), then a
  // compute that needs the send: its 200 us wait is 100 us of each category.
  const topology::Topology t = topology::switch_star(2, kBw, Time{});
  Graph g = two_timelines();
  g.category("other");
  workload::Group all;
  all.name = "all";
  all.participants = {0};
  g.groups.push_back(all);
  ProgramBuilder b(g.programs[0]);
  const auto c0 = b.add(compute(Time::from_ns(10 * 1000)), {});
  Node ag;
  ag.kind = NodeKind::Collective;
  ag.collective = collective::Collective::AllGather;
  ag.bytes = 2'000'000;  // each rank sends its 1 MB half
  ag.group = 0;
  ag.stream = 1;
  ag.category = 1;
  const auto a = b.add(ag, {c0});
  const auto s = b.add(send(0, 1, 1'000'000, 1, 2), {a});
  b.add(compute(Time::from_ns(10 * 1000)), {c0, s});
  ProgramBuilder(g.programs[1]).add(send(0, 1, 1'000'000, 2, 2, true), {});
  WorkloadRunOptions o;
  o.algorithms[collective::Collective::AllGather] =
      collective::parse_algorithm("ring", "algorithm");
  const WorkloadResult r = run(g, t, o);
  EXPECT_EQ(r.timelines[0].finish, Time::from_ns(220 * 1000));
  EXPECT_EQ(r.timelines[0].exposed[1], Time::from_ns(100 * 1000));
  EXPECT_EQ(r.timelines[0].exposed[2], Time::from_ns(100 * 1000));
  EXPECT_EQ(r.timelines[0].busy[0], Time::from_ns(20 * 1000));
}

TEST(WorkloadRunner, EstimateCountsEachCollectiveOnceOverItsParticipants) {
  const topology::Topology t = topology::switch_star(4, kBw, Time{});
  Graph g;
  g.name = "estimate";
  g.stream("comm");
  g.category("comm");
  g.programs.resize(1);
  g.timelines = {{0, 0, {}}, {1, 0, {}}, {2, 0, {}}, {3, 0, {}}};
  g.groups.push_back({"all", {}, {}, {}});
  Node c;
  c.kind = NodeKind::Collective;
  c.bytes = 4000;
  c.group = 0;
  ProgramBuilder(g.programs[0]).add(c, {});
  WorkloadRunOptions o;
  o.algorithms[collective::Collective::AllReduce] =
      collective::parse_algorithm("ring", "algorithm");
  std::uint64_t moved = 0;
  const scheduler::WorkEstimate e = estimate_workload(t, g, o, &moved);
  // A ring all-reduce on 4 ranks: 2 (4 - 1) steps x 4 ranks = 24 messages, met once.
  EXPECT_EQ(e.messages, 24u);
  // The bound scheduler::moved_bytes gives: ranks x size x 2 for an all-reduce.
  EXPECT_EQ(moved, 32000u);
}

}  // namespace
}  // namespace collsim::jobs
