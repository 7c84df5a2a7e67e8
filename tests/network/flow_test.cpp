// The flow backend: max-min fair sharing by progressive filling, checked on hand-derived cases.
#include <gtest/gtest.h>

#include "runtime/execute.hpp"
#include "collective/algorithm.hpp"
#include "collective/ir/verifier.hpp"
#include "core/engine.hpp"
#include "network/analytical.hpp"
#include "network/flow.hpp"
#include "recorder.hpp"
#include "scheduler/executor.hpp"
#include "topology/builders.hpp"

namespace collsim::network {
namespace {

using topology::Link;

// Records when each message's injection and delivery callbacks fire.
using collsim::testing::Recorder;

// 1 GB/s links (1 byte per ns) with no latency unless given, so times are easy to derive.
Link link(topology::NodeId a, topology::NodeId b, double gbps = 1.0, std::int64_t lat_ns = 0) {
  return Link{a, b, core::Bandwidth{gbps * 1e9}, core::Time::from_ns(lat_ns), 0};
}

// NPUs 0 and 1 -> switch 3 -> NPU 2 (links 0: 0->3, 1: 1->3, 2: 3->2, then the reverse links),
// 1 GB/s except NPU 0's uplink at `uplink0_gbps`.
topology::Topology two_into_one(double uplink0_gbps = 1.0) {
  return topology::Topology::graph(
      "y", 3, 4,
      {link(0, 3, uplink0_gbps), link(1, 3), link(3, 2), link(2, 3), link(3, 0), link(3, 1)});
}

TEST(FlowBackend, TwoFlowsOnOneLinkGetHalfEach) {
  // NPUs 0, 1 -> switch 3 -> NPU 2. Both 1000-byte flows share link 3->2 at 0.5 GB/s: they end
  // together at 2000 ns (the uplinks are not the bottleneck).
  const auto topo = two_into_one();
  core::Simulation sim;
  FlowBackend net(sim, topo, {});
  Recorder rec(sim);
  net.send(0, 2, core::Bytes{1000}, rec, 1);
  net.send(1, 2, core::Bytes{1000}, rec, 2);
  sim.run(core::Time::from_ns(1));
  EXPECT_DOUBLE_EQ(net.rate_of(1), 0.5e9);
  EXPECT_DOUBLE_EQ(net.rate_of(2), 0.5e9);
  sim.run();
  EXPECT_EQ(rec.delivered[1], 2'000'000);
  EXPECT_EQ(rec.delivered[2], 2'000'000);
  EXPECT_EQ(net.link_stats()[2].bytes, 2000u);
  EXPECT_EQ(net.link_stats()[2].busy.ps, 2'000'000);
}

TEST(FlowBackend, FlowLimitedElsewhereLeavesItsShareToTheOthers) {
  // Flow A: 0 -> 2 over a 0.25 GB/s uplink, then the shared 1 GB/s link 3->2.
  // Flow B: 1 -> 2 over a 1 GB/s uplink and the shared link. Max-min: A is capped at 0.25 by its
  // uplink, B gets the rest of the shared link, 0.75 (not 0.5).
  const auto topo = two_into_one(0.25);
  core::Simulation sim;
  FlowBackend net(sim, topo, {});
  Recorder rec(sim);
  net.send(0, 2, core::Bytes{1000}, rec, 1);
  net.send(1, 2, core::Bytes{3000}, rec, 2);
  sim.run(core::Time::from_ns(1));
  EXPECT_DOUBLE_EQ(net.rate_of(1), 0.25e9);
  EXPECT_DOUBLE_EQ(net.rate_of(2), 0.75e9);
  sim.run();
  // A: 1000 B at 0.25 GB/s = 4000 ns. B: 3000 B at 0.75 GB/s = 4000 ns. Both end at 4 us.
  EXPECT_EQ(rec.delivered[1], 4'000'000);
  EXPECT_EQ(rec.delivered[2], 4'000'000);
}

TEST(FlowBackend, ProgressiveFillingOnThreeLinks) {
  // A line 0 -> 1 -> 2 -> 3 with links L0 (1 GB/s), L1 (1 GB/s), L2 (0.3 GB/s) and flows
  //   f1: 0->3 (L0 L1 L2), f2: 0->1 (L0), f3: 1->3 (L1 L2), f4: 2->3 (L2).
  // Filling: L2 has 3 flows, share 0.1 -> f1, f3, f4 = 0.1. L0 then has 1 - 0.1 = 0.9 for f2.
  // L1 carries f1 + f3 = 0.2 (not a bottleneck). An equal split without filling would give
  // f2 0.5: progressive filling matters.
  const auto topo = topology::Topology::graph(
      "line", 4, 4, {link(0, 1), link(1, 2), link(2, 3, 0.3), link(1, 0), link(2, 1), link(3, 2)});
  core::Simulation sim;
  FlowBackend net(sim, topo, {});
  Recorder rec(sim);
  net.send(0, 3, core::Bytes{1000}, rec, 1);
  net.send(0, 1, core::Bytes{1800}, rec, 2);
  net.send(1, 3, core::Bytes{1000}, rec, 3);
  net.send(2, 3, core::Bytes{1000}, rec, 4);
  sim.run(core::Time::from_ns(1));
  EXPECT_NEAR(net.rate_of(1), 0.1e9, 1);
  EXPECT_NEAR(net.rate_of(2), 0.9e9, 1);
  EXPECT_NEAR(net.rate_of(3), 0.1e9, 1);
  EXPECT_NEAR(net.rate_of(4), 0.1e9, 1);
  sim.run();
  // f2: 1800 B at 0.9 GB/s = 2000 ns. f1, f3, f4: 1000 B at 0.1 GB/s = 10000 ns (f2 leaving L0
  // frees nothing they need).
  EXPECT_EQ(rec.delivered[2], 2'000'000);
  EXPECT_NEAR(rec.delivered[1], 10'000'000, 1);
  EXPECT_NEAR(rec.delivered[3], 10'000'000, 1);
}

TEST(FlowBackend, RatesRiseWhenAFlowEnds) {
  // Two flows share one 1 GB/s link: 500 B and 1500 B. Both at 0.5 until the short one ends at
  // 1000 ns (500 B at 0.5); the long one has 1000 B left and runs alone at 1 GB/s: ends 2000 ns.
  const auto topo = two_into_one();
  core::Simulation sim;
  FlowBackend net(sim, topo, {});
  Recorder rec(sim);
  net.send(0, 2, core::Bytes{500}, rec, 1);
  net.send(1, 2, core::Bytes{1500}, rec, 2);
  sim.run();
  EXPECT_EQ(rec.injected[1], 1'000'000);
  EXPECT_EQ(rec.delivered[2], 2'000'000);
}

TEST(FlowBackend, LatencyIsAddedOncePerMessage) {
  // Two hops of 100 ns each: delivered at bytes/bandwidth + 200 ns; injected without latency.
  const auto topo = topology::Topology::graph(
      "y", 2, 3,
      {link(0, 2, 1.0, 100), link(2, 1, 1.0, 100), link(1, 2, 1.0, 100), link(2, 0, 1.0, 100)});
  core::Simulation sim;
  FlowBackend net(sim, topo, {});
  Recorder rec(sim);
  net.send(0, 1, core::Bytes{1000}, rec, 7);
  sim.run();
  EXPECT_EQ(rec.injected[7], 1'000'000);
  EXPECT_EQ(rec.delivered[7], 1'200'000);
}

TEST(FlowBackend, InjectionLimitIsALink) {
  // fc:4 at 1 GB/s per peer link; NPU 0 sends 1000 B to each of the 3 peers. Uncapped: 1000 ns.
  // With a 1.5 GB/s injection cap the three flows share it at 0.5 GB/s: 2000 ns.
  const auto topo = topology::fully_connected(4, core::Bandwidth{1e9}, core::Time{0});
  for (const bool capped : {false, true}) {
    core::Simulation sim;
    BackendOptions opt;
    if (capped) opt.npu_injection_bandwidth = core::Bandwidth{1.5e9};
    FlowBackend net(sim, topo, opt);
    Recorder rec(sim);
    for (topology::NodeId d = 1; d < 4; ++d) net.send(0, d, core::Bytes{1000}, rec, d);
    sim.run();
    EXPECT_EQ(rec.delivered[3], capped ? 2'000'000 : 1'000'000);
  }
}

TEST(FlowBackend, ZeroByteMessageTakesOnlyLatency) {
  const auto topo = topology::ring(2, core::Bandwidth{1e9}, core::Time::from_ns(150), true);
  core::Simulation sim;
  FlowBackend net(sim, topo, {});
  Recorder rec(sim);
  net.send(0, 1, core::Bytes{0}, rec, 1);
  sim.run();
  EXPECT_EQ(rec.injected[1], 0);
  EXPECT_EQ(rec.delivered[1], 150'000);
}

// Topology::ni_latency (the switch-fc platforms' NI links, 2 x 90 + 5 ns) comes once per message
// on every electrical backend: htorus:1:4 sends 6400 B (100 ns at 64 GB/s) to the ring
// neighbour (90 + 5 ns) and two hops on (2 x 95 ns), plus 185 ns each time. The packet backend
// adds its own packetization, so it is checked against itself without the NI latency.
TEST(Backends, NiLatencyOncePerMessage) {
  const auto t = topology::from_compact("htorus:1:4", core::Bandwidth{1e9}, core::Time{});
  auto plain = t;
  plain.set_ni_latency(core::Time{}, "t");
  for (const char* backend : {"analytical", "flow", "queue", "packet"}) {
    SCOPED_TRACE(backend);
    std::int64_t got[2][2];
    for (int with = 0; with < 2; ++with) {
      core::Simulation sim;
      auto net = make_backend(find_backend(backend, "t"), sim, with ? t : plain, {}, "t");
      Recorder rec(sim);
      net->send(0, 1, core::Bytes{6400}, rec, 1);
      net->send(1, 3, core::Bytes{6400}, rec, 2);
      sim.run();
      got[with][0] = rec.delivered[1];
      got[with][1] = rec.delivered[2];
    }
    EXPECT_EQ(got[1][0] - got[0][0], 185'000);
    EXPECT_EQ(got[1][1] - got[0][1], 185'000);
    if (std::string(backend) == "packet") continue;
    EXPECT_EQ(got[1][0], 100'000 + 95'000 + 185'000);
    // Store and forward (queue) serializes again at the second hop.
    EXPECT_EQ(got[1][1], (std::string(backend) == "queue" ? 200'000 : 100'000) + 190'000 + 185'000);
  }
}

double run(const topology::Topology& t, const char* algo, collective::Collective c,
           std::uint64_t size, const char* backend) {
  const auto p =
      collective::build_program(collective::parse_algorithm(algo, "t"), t, c, core::Bytes{size}, 1);
  core::Simulation sim;
  auto net = make_backend(find_backend(backend, "t"), sim, t, {}, "t");
  return runtime::execute(p, *net, sim).time.seconds();
}

TEST(FlowBackend, EqualsAnalyticalOnContentionFreeOneHopTraffic) {
  using collective::Collective;
  const core::Bandwidth bw{16e9};
  const auto lat = core::Time::from_ns(150);
  struct Case {
    topology::Topology topo;
    const char* algo;
    Collective c;
  };
  const Case cases[] = {
      {topology::ring(8, bw, lat, false), "ring", Collective::AllReduce},
      {topology::torus({8, 8}, bw, lat), "ring", Collective::AllReduce},
      {topology::fully_connected(8, bw, lat), "direct", Collective::AllReduce},
      {topology::fully_connected(16, bw, lat), "halving-doubling", Collective::AllReduce},
      {topology::fully_connected(8, bw, lat), "direct", Collective::AllToAll}};
  for (const Case& k : cases) {
    for (std::uint64_t s : {32768ull, 64ull << 20}) {
      const double a = run(k.topo, k.algo, k.c, s, "analytical");
      EXPECT_NEAR(run(k.topo, k.algo, k.c, s, "flow"), a, a * 1e-9) << k.topo.name() << k.algo;
    }
  }
}

TEST(FlowBackend, CrossingTrafficIsSlowerThanAnalytical) {
  using collective::Collective;
  const auto t = topology::ring(8, core::Bandwidth{16e9}, core::Time::from_ns(150), true);
  const std::uint64_t s = 8 << 20;
  EXPECT_GT(run(t, "direct", Collective::AllToAll, s, "flow"),
            1.5 * run(t, "direct", Collective::AllToAll, s, "analytical"));
  const auto torus = topology::torus({4, 4}, core::Bandwidth{16e9}, core::Time::from_ns(150));
  EXPECT_GT(run(torus, "direct", Collective::AllToAll, s, "flow"),
            1.5 * run(torus, "direct", Collective::AllToAll, s, "analytical"));
}

TEST(FlowBackend, EveryAlgorithmRunsOnEveryTopologyDeterministically) {
  const core::Bandwidth bw{16e9};
  const auto lat = core::Time::from_ns(150);
  int runs = 0;
  for (const char* spec : {"ring:8", "bidir-ring:16", "fc:8", "switch:16", "torus:4x4", "mesh:4x4",
                           "torus:4x4x4", "mesh:3x3", "hier:ring4xfc2xsw2", "switch:64", "fc:17"}) {
    const auto topo = topology::from_compact(spec, bw, lat);
    const std::uint32_t n = topo.num_npus();
    for (const auto& info : collective::algorithms()) {
      if (info.staged) continue;                               // scheduler/hierarchical_test.cpp
      if (!collective::refusal(info, topo).empty()) continue;  // e.g. ring-2d off grids
      if (info.power_of_two && (n & (n - 1)) != 0) continue;
      for (collective::Collective c : info.collectives) {
        const auto choice = collective::make_choice(info, {}, info.name, "t");
        const auto p = collective::build_program(choice, topo, c, core::Bytes{1 << 20}, 2);
        ASSERT_TRUE(collective::verify(p).ok) << spec << info.name;
        double first = -1;
        for (int rep = 0; rep < 2; ++rep) {
          core::Simulation sim;
          FlowBackend net(sim, topo, {});
          const double t = runtime::execute(p, net, sim).time.seconds();
          if (rep == 0) first = t;
          EXPECT_EQ(t, first) << spec << " " << info.name;  // same inputs, same time
          EXPECT_GT(t, 0);
        }
        ++runs;
      }
    }
  }
  EXPECT_GT(runs, 100);
}

}  // namespace
}  // namespace collsim::network

namespace collsim {
namespace {

TEST(FlowBackend, UncontendedMessagesTakeExactlyTheAnalyticalTime) {
  // One message alone on a 2-hop switch path: serialization at the bottleneck (core::
  // transfer_time, exact, rounded up to the picosecond) plus the route latency, on both backends,
  // for sizes and bandwidths whose quotient is not a whole number of picoseconds.
  for (const double gbps : {16.0, 25.0, 12.5, 100.0 / 3.0, 7.0}) {
    const auto t =
        topology::from_compact("switch:4", core::Bandwidth{gbps * 1e9}, core::Time::from_ns(150));
    for (const std::uint64_t bytes :
         {1ull, 3ull, 7ull, 1000ull, 12345ull, 65537ull, 999983ull, (1ull << 26) + 1}) {
      std::int64_t delivered[2] = {0, 0};
      for (int b = 0; b < 2; ++b) {
        core::Simulation sim;
        auto net = network::make_backend(network::find_backend(b == 0 ? "analytical" : "flow", "b"),
                                         sim, t, {}, "b");
        testing::Recorder rec(sim);
        net->send(0, 3, core::Bytes{bytes}, rec, 1);
        sim.run();
        delivered[b] = rec.delivered.at(1);
      }
      EXPECT_EQ(delivered[1], delivered[0]) << gbps << " GB/s, " << bytes << " B";
      EXPECT_EQ(delivered[0],
                (core::transfer_time(core::Bytes{bytes}, core::Bandwidth{gbps * 1e9}) +
                 core::Time::from_ns(300))
                    .ps);
    }
  }
}

}  // namespace
}  // namespace collsim
