// runtime::Session: the one owner of a simulated machine. It decides flat versus staged
// execution, sends point-to-point messages through the executor (observers and link figures see
// them), fans events out to several observers, and holds no global state (two Sessions in two
// threads give the same bytes as one after the other).
#include "runtime/session.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>
#include <thread>

#include "collective/algorithm.hpp"
#include "core/error.hpp"
#include "network/backend.hpp"
#include "topology/builders.hpp"

namespace collsim::runtime {
namespace {

using collective::Collective;

const core::Bandwidth kBw{16e9};                   // 16 GB/s
const core::Time kLat = core::Time::from_ns(150);  // 150 ns

MachineSpec machine(const topology::Topology& t, const char* backend, bool symmetry = false) {
  MachineSpec m;
  m.topology = &t;
  m.backend = &network::find_backend(backend, "backend");
  m.group_symmetry = symmetry;
  return m;
}

CollectiveRequest request(const char* algorithm, Collective c, std::uint64_t bytes,
                          std::uint32_t chunks = 1) {
  CollectiveRequest r;
  r.collective = c;
  r.algorithm = collective::parse_algorithm(algorithm, "algorithm");
  r.size = core::Bytes{bytes};
  r.chunks = chunks;
  return r;
}

struct Counter final : scheduler::ExecutionObserver {
  int starts = 0, sends = 0, delivered = 0, ends = 0, stages = 0;
  bool messages = true;
  void on_collective_start(scheduler::CollectiveId, const collective::Program&,
                           const std::string&) override {
    ++starts;
  }
  void on_send(const scheduler::MessageInfo&) override { ++sends; }
  void on_delivered(const scheduler::MessageInfo&) override { ++delivered; }
  void on_collective_end(scheduler::CollectiveId, const scheduler::CollectiveStats&) override {
    ++ends;
  }
  void on_stage(const scheduler::StageInfo&) override { ++stages; }
  bool watches_messages() const override { return messages; }
};

TEST(Session, PointToPointMessageTakesLatencyPlusSerializationAndIsSeen) {
  // One hop of a 4-NPU ring on the flow backend: 150 ns + 1 MiB / 16 GB/s = 150 ns + 65,536 ns.
  const auto t = topology::from_compact("ring:4", kBw, kLat);
  Session s(machine(t, "flow"));
  Counter a, b;
  s.add_observer(&a);
  s.add_observer(&b);
  core::Time arrived;
  const LaunchId id = s.send(0, 1, core::Bytes{1 << 20},
                             [&](LaunchId, const scheduler::CollectiveStats&) { arrived = s.now(); });
  s.run();
  EXPECT_EQ(arrived, core::Time::from_ns(150) + core::transfer_time(core::Bytes{1 << 20}, kBw));
  EXPECT_EQ(s.launch_stats(id).stats.time(), arrived);
  EXPECT_EQ(s.launch_stats(id).stats.messages, 1u);
  for (const Counter* c : {&a, &b}) {  // both observers told, once each
    EXPECT_EQ(c->starts, 1);
    EXPECT_EQ(c->sends, 1);
    EXPECT_EQ(c->delivered, 1);
    EXPECT_EQ(c->ends, 1);
  }
  // The link figures count it: the one link 0 -> 1 carried 1 MiB, no other link anything.
  std::uint64_t total = 0;
  for (const auto& l : s.report().links) total += l.bytes;
  EXPECT_EQ(total, 1u << 20);
}

TEST(Session, PointToPointRefusesItselfAndUnknownNpus) {
  const auto t = topology::from_compact("ring:4", kBw, kLat);
  Session s(machine(t, "flow"));
  EXPECT_THROW(s.send(2, 2, core::Bytes{8}), core::InputError);
  EXPECT_THROW(s.send(0, 4, core::Bytes{8}), core::InputError);
}

TEST(Session, LaunchDecidesFlatOrStagedAndMatchesTheClosedForm) {
  // Ring all-reduce of S on 8 NPUs of a ring on the analytical backend:
  // 2 (n-1) steps of (latency + S/n / bw) = 14 x (150 ns + 131,072 B / 16 GB/s).
  const auto t = topology::from_compact("ring:8", kBw, kLat);
  Session s(machine(t, "analytical"));
  const LaunchId ring = s.launch(request("ring", Collective::AllReduce, 1 << 20));
  s.run();
  EXPECT_EQ(s.launch_stats(ring).stats.time(),
            14 * (kLat + core::transfer_time(core::Bytes{(1 << 20) / 8}, kBw)));
  EXPECT_TRUE(s.launch_stats(ring).activity.empty());  // flat: no dimension queues

  // The hierarchical algorithm on a 2-D torus runs as stages: per-dimension activity and
  // chunk-stages are reported, the observer sees stages.
  const auto t2 = topology::from_compact("torus:4x4", kBw, kLat);
  Session h(machine(t2, "flow", true));
  Counter c;
  c.messages = false;
  h.add_observer(&c);
  const LaunchId staged = h.launch(request("hierarchical", Collective::AllReduce, 1 << 20, 4));
  h.run();
  const LaunchStats& l = h.launch_stats(staged);
  EXPECT_TRUE(l.finished);
  EXPECT_EQ(l.activity.size(), 2u);
  EXPECT_EQ(l.stages_started, 4u * 4u);  // 4 chunks x (RS, RS, AG, AG)
  EXPECT_EQ(c.stages, 16);
  EXPECT_TRUE(h.symmetry().holds()) << h.symmetry().broken;
  EXPECT_GT(l.stats.time().ps, 0);
}

TEST(Session, StagedOnAGroupIsRefusedBeforeRunning) {
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  CollectiveRequest r = request("hierarchical", Collective::AllReduce, 1 << 20);
  r.groups = collective::parse_groups("dim:0", t, "group");
  EXPECT_THROW(check_request(t, r), core::InputError);
  Session s(machine(t, "flow"));
  EXPECT_THROW(s.launch(r), core::InputError);
}

// Everything a run reports, as text: collective times, link bytes and busy time, events.
std::string fingerprint(const topology::Topology& t) {
  Session s(machine(t, "flow"));
  const LaunchId a = s.launch(request("ring", Collective::AllReduce, 3 << 20, 2));
  auto alltoall = request("direct", Collective::AllToAll, 1 << 18);
  alltoall.groups = collective::parse_groups("dim:1", t, "group");
  const LaunchId b = s.launch(alltoall);
  const LaunchId c = s.send(0, 5, core::Bytes{12345});
  s.run();
  std::string out;
  for (LaunchId id : {a, b, c}) out += fmt::format("{} ", s.launch_stats(id).stats.end.ps);
  for (const auto& l : s.report().links) out += fmt::format("{}:{} ", l.bytes, l.busy.ps);
  return out + std::to_string(s.report().events);
}

TEST(Session, TwoSessionsInTwoThreadsGiveTheBytesOfOneAfterTheOther) {
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  const std::string first = fingerprint(t), second = fingerprint(t);
  ASSERT_EQ(first, second);
  std::string x, y;
  std::thread tx([&] { x = fingerprint(t); });
  std::thread ty([&] { y = fingerprint(t); });
  tx.join();
  ty.join();
  EXPECT_EQ(x, first);
  EXPECT_EQ(y, first);
}

}  // namespace
}  // namespace collsim::runtime
