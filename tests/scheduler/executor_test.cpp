// The executor as a component: several collectives at once on one network, collectives started
// from another's completion, observers, endpoints that hold arrivals, and the backend checks
// every backend shares.
#include "scheduler/executor.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <memory>

#include "collective/algorithm.hpp"
#include "core/error.hpp"
#include "network/analytical.hpp"
#include "network/flow.hpp"
#include "network/packet.hpp"
#include "network/queue.hpp"
#include "recorder.hpp"
#include "jobs/collective_sweep.hpp"
#include "topology/builders.hpp"

namespace collsim {
namespace {

using collective::Collective;

const core::Bandwidth kBw{16e9};
const core::Time kLat = core::Time::from_ns(150);

collective::Program build(const topology::Topology& t, const std::string& algo,
                          const std::string& group, Collective c, std::uint64_t bytes,
                          std::size_t which = 0) {
  const auto comms = collective::parse_groups(group, t, "g");
  return collective::build_program(collective::parse_algorithm(algo, "t"), t, comms.at(which), c,
                                   core::Bytes{bytes}, 1);
}

jobs::ConcurrentMember member(Collective c, const std::string& group, const std::string& algo,
                                   std::uint64_t bytes) {
  return jobs::ConcurrentMember{c, group, collective::parse_algorithm(algo, "t"),
                                     core::Bytes{bytes}, 1};
}

TEST(Executor, RowsAndColumnsOfATorusDoNotSlowEachOtherDown) {
  // X rings and Y rings of a torus use disjoint links: on the flow backend each all-reduce takes
  // exactly its time alone.
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  jobs::ConcurrentJob job;
  job.name = "xy";
  job.members = {member(Collective::AllReduce, "dim:0", "ring", 1 << 20),
                 member(Collective::AllToAll, "dim:1", "direct", 1 << 18)};
  const auto rows = jobs::run_concurrent_job("t", t, network::find_backend("flow", "b"), job);
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& r : rows) {
    EXPECT_EQ(r.time, r.alone_time) << r.algorithm;
    EXPECT_DOUBLE_EQ(r.slowdown, 1.0);
    EXPECT_EQ(r.groups, 4u);
    EXPECT_EQ(r.ranks, 4u);
    EXPECT_EQ(r.concurrent, "xy");
  }
  // Ring all-reduce on a 4-ring, one direction: T = 2(N-1)(alpha + S/(N B)), S = 1 MiB.
  const double want = 6 * (150e-9 + (1 << 20) / 4.0 / 16e9);
  EXPECT_NEAR(rows[0].time.seconds(), want, 1e-11);
}

TEST(Executor, TwoAllReducesOnOneRingShareItsBandwidth) {
  // Two identical ring all-reduces on the same X rings send equal messages over the same links
  // at the same instants: on the flow backend each gets B/2, so
  //   T = 2(N-1)(alpha + 2 S/(N B))  against  2(N-1)(alpha + S/(N B)) alone.
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  jobs::ConcurrentJob job;
  job.name = "twice";
  job.members = {member(Collective::AllReduce, "dim:0", "ring", 1 << 20),
                 member(Collective::AllReduce, "dim:0", "ring", 1 << 20)};
  const auto rows = jobs::run_concurrent_job("t", t, network::find_backend("flow", "b"), job);
  ASSERT_EQ(rows.size(), 2u);
  const double alone = 6 * (150e-9 + (1 << 20) / 4.0 / 16e9);
  const double shared = 6 * (150e-9 + 2 * (1 << 20) / 4.0 / 16e9);
  for (const auto& r : rows) {
    EXPECT_NEAR(r.alone_time.seconds(), alone, 1e-11);
    EXPECT_NEAR(r.time.seconds(), shared, 1e-11);
    EXPECT_NEAR(r.slowdown, shared / alone, 1e-6);
  }
}

TEST(Executor, ACollectiveStartedWhenAnotherEnds) {
  // A job driver chains collectives from the done callback: the second starts at the first's
  // end, so on the congestion-free analytical backend it ends at twice the time of one.
  const auto t = topology::from_compact("fc:4", kBw, kLat);
  const auto p = build(t, "direct", "all", Collective::AllReduce, 1 << 20);
  core::Simulation sim;
  network::AnalyticalBackend net(sim, t);
  endpoint::Ideal ep(sim, net);
  scheduler::Executor ex(sim, ep);
  std::vector<scheduler::CollectiveStats> done;
  ex.start(p, [&](scheduler::CollectiveId, const scheduler::CollectiveStats& s) {
    done.push_back(s);
    ex.start(p, [&](scheduler::CollectiveId, const scheduler::CollectiveStats& s2) {
      done.push_back(s2);
    });
  });
  scheduler::run_until_finished(sim, ex, net, core::Time{});
  ASSERT_EQ(done.size(), 2u);
  // Direct all-reduce on fc:4: 2 (alpha + S/(N B)).
  const double one = 2 * (150e-9 + (1 << 20) / 4.0 / 16e9);
  EXPECT_NEAR(done[0].time().seconds(), one, 1e-11);
  EXPECT_EQ(done[1].start, done[0].end);
  EXPECT_NEAR(done[1].end.seconds(), 2 * one, 1e-11);
  EXPECT_EQ(done[0].messages, 24u);  // 4 ranks x 3 peers x 2 phases
  EXPECT_EQ(done[1].bytes, done[0].bytes);
}

struct CountingObserver final : scheduler::ExecutionObserver, network::LinkObserver {
  void on_collective_start(scheduler::CollectiveId, const collective::Program&,
                           const std::string& l) override {
    labels.push_back(l);
  }
  void on_send(const scheduler::MessageInfo& m) override {
    ++sends;
    bytes += m.bytes.count;
    EXPECT_EQ(m.id, next_id++);
  }
  void on_injected(const scheduler::MessageInfo&) override { ++injected; }
  void on_delivered(const scheduler::MessageInfo&) override { ++delivered; }
  void on_recv_done(scheduler::CollectiveId, collective::Lane, std::uint32_t) override { ++recvs; }
  void on_collective_end(scheduler::CollectiveId, const scheduler::CollectiveStats& s) override {
    ends.push_back(s);
  }
  void on_link_busy(topology::LinkId l, core::Time b, core::Time e) override {
    ASSERT_LE(b, e);
    busy[l] += e - b;
  }
  std::vector<std::string> labels;
  std::vector<scheduler::CollectiveStats> ends;
  std::uint64_t sends = 0, injected = 0, delivered = 0, recvs = 0, bytes = 0, next_id = 0;
  std::map<topology::LinkId, core::Time> busy;
};

std::unique_ptr<network::Backend> make(const std::string& name, core::Simulation& sim,
                                       const topology::Topology& t) {
  return network::make_backend(network::find_backend(name, "b"), sim, t, {}, "b");
}

TEST(Executor, ObserversSeeEveryMessageAndEveryBusyInterval) {
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  const auto p = build(t, "ring", "all", Collective::AllReduce, 64 << 10);
  for (const char* backend : {"analytical", "queue", "flow", "packet"}) {
    core::Simulation sim;
    auto net = make(backend, sim, t);
    endpoint::Ideal ep(sim, *net);
    scheduler::Executor ex(sim, ep);
    CountingObserver obs;
    ex.set_observer(&obs);
    net->set_link_observer(&obs);
    ex.start(p, {}, "ring all");
    scheduler::run_until_finished(sim, ex, *net, core::Time{});
    ASSERT_EQ(obs.ends.size(), 1u);
    EXPECT_EQ(obs.labels, std::vector<std::string>{"ring all"});
    // Ring all-reduce: 2(N-1) messages per rank.
    EXPECT_EQ(obs.sends, 16u * 30) << backend;
    EXPECT_EQ(obs.injected, obs.sends);
    EXPECT_EQ(obs.delivered, obs.sends);
    EXPECT_EQ(obs.recvs, obs.sends);
    EXPECT_EQ(obs.bytes, obs.ends[0].bytes);
    // The reported intervals add up to the busy time the backend accounts per link.
    const auto& stats = net->link_stats();
    for (std::size_t l = 0; l < t.links().size(); ++l) {
      EXPECT_EQ(obs.busy[static_cast<topology::LinkId>(l)], stats[l].busy)
          << backend << " link " << l;
    }
  }
}

// An endpoint that holds arrivals: each NPU reduces one arrived message at a time, taking
// `reduce_time` each, before the executor sees it delivered (receiver-side admission).
class SerialReducer final : public endpoint::Endpoint,
                            network::DeliveryHandler,
                            core::EventHandler {
 public:
  SerialReducer(core::Simulation& sim, network::Backend& net, core::Time reduce_time,
                std::uint32_t npus)
      : sim_(sim), net_(net), reduce_(reduce_time), free_at_(npus) {}
  std::string_view name() const override { return "serial-reducer"; }
  void send(const endpoint::Message& m, network::DeliveryHandler& h, std::uint64_t tag) override {
    slots_.push_back(Slot{&h, tag, m.dst});
    net_.send(m.src, m.dst, m.bytes, *this, slots_.size() - 1, m.attrs);
  }
  void on_injected(std::uint64_t s) override { slots_[s].h->on_injected(slots_[s].tag); }
  void on_delivered(std::uint64_t s) override {
    core::Time& free = free_at_[slots_[s].dst];
    free = std::max(free, sim_.now()) + reduce_;
    sim_.schedule_at(free, *this, s);
  }
  void on_event(std::uint64_t s) override { slots_[s].h->on_delivered(slots_[s].tag); }

 private:
  struct Slot {
    network::DeliveryHandler* h;
    std::uint64_t tag;
    topology::NodeId dst;
  };
  core::Simulation& sim_;
  network::Backend& net_;
  core::Time reduce_;
  std::vector<core::Time> free_at_;
  std::deque<Slot> slots_;
};

TEST(Executor, EndpointCanHoldArrivals) {
  // Direct reduce-scatter on fc:4: every rank receives 3 messages of S/4 at alpha + S/(4B); a
  // receiver that reduces one at a time for 1 us each finishes 3 us later.
  const auto t = topology::from_compact("fc:4", kBw, kLat);
  const auto p = build(t, "direct", "all", Collective::ReduceScatter, 1 << 20);
  core::Simulation sim;
  network::AnalyticalBackend net(sim, t);
  SerialReducer ep(sim, net, core::Time::from_ns(1000), 4);
  scheduler::Executor ex(sim, ep);
  const auto id = ex.start(p);
  scheduler::run_until_finished(sim, ex, net, core::Time{});
  const double arrival = 150e-9 + (1 << 20) / 4.0 / 16e9;
  EXPECT_NEAR(ex.stats(id).time().seconds(), arrival + 3e-6, 1e-11);
}

TEST(Executor, DeadlockNamesTheCollectiveAndItsRanks) {
  const auto t = topology::from_compact("fc:3", kBw, kLat);
  auto p = build(t, "direct", "all", Collective::AllGather, 3000);
  collective::store_ops(p);
  p.ops[2].erase(p.ops[2].begin());  // rank 2 never sends to rank 0
  core::Simulation sim;
  network::AnalyticalBackend net(sim, t);
  endpoint::Ideal ep(sim, net);
  scheduler::Executor ex(sim, ep);
  ex.start(p, {}, "gather");
  const auto ok = build(t, "ring", "all", Collective::AllGather, 3000);
  ex.start(ok, {}, "ok");
  try {
    scheduler::run_until_finished(sim, ex, net, core::Time{});
    FAIL() << "expected a deadlock";
  } catch (const core::SimulationError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("2 collectives: deadlock"), std::string::npos) << what;
    EXPECT_NE(what.find("gather: 1 of 3 ranks unfinished: rank 0"), std::string::npos) << what;
    EXPECT_EQ(what.find("ok:"), std::string::npos) << what;
  }
}

TEST(Backends, EveryBackendRefusesASendToItselfTheSameWay) {
  const auto t = topology::from_compact("torus:2x2", kBw, kLat);
  for (const char* backend : {"analytical", "queue", "flow", "packet"}) {
    core::Simulation sim;
    auto net = make(backend, sim, t);
    testing::Recorder rec(sim);
    try {
      net->send(1, 1, core::Bytes{100}, rec, 0);
      FAIL() << backend;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()),
                std::string(backend) + " backend: send from NPU 1 to itself");
    }
    EXPECT_THROW(net->send(0, 4, core::Bytes{100}, rec, 0), std::invalid_argument) << backend;
    EXPECT_EQ(sim.pending(), 0u) << backend << ": nothing was scheduled";
  }
}

}  // namespace
}  // namespace collsim

namespace collsim {
namespace {

TEST(Executor, ConcurrentJobsRunOnEveryBackend) {
  // X-ring and Y-ring all-reduces share no link: no slowdown where links are the only shared
  // resource (analytical, queue, flow). On the packet backend both also pass through each NPU's
  // one NI, whose channel runs at one link's rate (MultiTree's NI), so they nearly halve each
  // other. Two all-reduces on the same X rings: no slowdown on the congestion-unaware analytical
  // backend, nearly 2x on the congestion-aware ones (less than 2: the latency is not shared).
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  for (const char* backend : {"analytical", "queue", "flow", "packet"}) {
    jobs::ConcurrentJob disjoint, shared;
    disjoint.members = {member(Collective::AllReduce, "dim:0", "ring", 256 << 10),
                        member(Collective::AllReduce, "dim:1", "ring", 256 << 10)};
    shared.members = {member(Collective::AllReduce, "dim:0", "ring", 256 << 10),
                      member(Collective::AllReduce, "dim:0", "ring", 256 << 10)};
    const auto& info = network::find_backend(backend, "b");
    for (const auto& r : jobs::run_concurrent_job("t", t, info, disjoint)) {
      if (std::string(backend) == "packet") {
        EXPECT_GT(r.slowdown, 1.7) << backend;
        EXPECT_LT(r.slowdown, 2.0) << backend;
      } else {
        EXPECT_DOUBLE_EQ(r.slowdown, 1.0) << backend;
      }
    }
    for (const auto& r : jobs::run_concurrent_job("t", t, info, shared)) {
      if (std::string(backend) == "analytical") {
        EXPECT_DOUBLE_EQ(r.slowdown, 1.0);
      } else {
        EXPECT_GT(r.slowdown, 1.7) << backend;
        EXPECT_LT(r.slowdown, 2.0) << backend;
      }
    }
  }
}

}  // namespace
}  // namespace collsim
