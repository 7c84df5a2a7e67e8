// The packet backend: closed forms for single messages, link throughput with and without
// message-based flow control, back-pressure, round-robin fairness, deadlock freedom.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/execute.hpp"
#include "collective/algorithm.hpp"
#include "collective/ir/verifier.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "network/packet.hpp"
#include "recorder.hpp"
#include "scheduler/executor.hpp"
#include "topology/builders.hpp"

namespace collsim::network {
namespace {

topology::Link link(topology::NodeId a, topology::NodeId b, double gbps = 16,
                    std::int64_t ns = 10) {
  return topology::Link{a, b, core::Bandwidth{gbps * 1e9}, core::Time::from_ns(ns), 0};
}

// NPUs 0-1-2-3 in a line, 16 GB/s (a 16 B flit takes 1 ns) and 10 ns per link.
topology::Topology line4() {
  return topology::Topology::graph(
      "line", 4, 4, {link(0, 1), link(1, 2), link(2, 3), link(1, 0), link(2, 1), link(3, 2)});
}

BackendOptions small_packets() {
  BackendOptions o;
  o.packet.packet_payload_bytes = 64;  // 1 head + 4 payload flits = 5 flits
  return o;
}

// Messages all sent at time 0 on a fresh packet backend; times (ps) per message, in order.
struct Message {
  topology::NodeId src = 0, dst = 0;
  std::uint64_t bytes = 0;
};
struct Times {
  std::vector<std::int64_t> injected, delivered;
};
Times send_all(const topology::Topology& topo, const BackendOptions& o,
               const std::vector<Message>& messages) {
  core::Simulation sim;
  PacketBackend net(sim, topo, o);
  collsim::testing::Recorder rec(sim);
  for (std::uint64_t m = 0; m < messages.size(); ++m) {
    net.send(messages[m].src, messages[m].dst, core::Bytes{messages[m].bytes}, rec, m);
  }
  sim.run();
  Times t;
  for (std::uint64_t m = 0; m < messages.size(); ++m) {
    t.injected.push_back(rec.injected.at(m));
    t.delivered.push_back(rec.delivered.at(m));
  }
  return t;
}

TEST(PacketBackend, OneMessageOverThreeHopsMatchesTheClosedForm) {
  // ft = 1 ns per flit, L = 10 ns, pipeline p = 1 ns, F = 5 flits, h = 3 links, P packets.
  // The head crosses the NI injection channel (ft, no latency) and waits p; each link adds
  // ft + L + p; the ejection channel then takes the whole packet, F ft; packets follow each other
  // F ft apart:  delivered = (ft + p) + h (ft + L + p) + P F ft,  injected = P F ft.
  // Wormhole moves each flit on its own, but with room to spare the flits follow each other as
  // virtual cut-through's do: the same times.
  for (const auto switching : {Switching::VirtualCutThrough, Switching::Wormhole})
    for (std::uint64_t packets : {1u, 3u}) {
      BackendOptions o = small_packets();
      o.packet.switching = switching;
      const Times t = send_all(line4(), o, {{0, 3, 64 * packets}});
      const std::int64_t ns = 1000;
      EXPECT_EQ(t.delivered[0], (2 + 3 * 12 + static_cast<std::int64_t>(packets) * 5) * ns);
      EXPECT_EQ(t.injected[0], static_cast<std::int64_t>(packets) * 5 * ns);
    }
}

TEST(PacketBackend, WormholeWithBuffersSmallerThanAPacketIsPacedByTheCreditLoop) {
  // Wormhole lets a VC be smaller than a packet (5 flits here); virtual cut-through refuses it.
  // One VC of 2 flits per port, link 0 -> 1 of 10 ns, pipeline 1, credit delay 1: a flit granted
  // on the link at g is in router 1 at g + 1 + 10, competes at g + 12, leaves on the ejection
  // channel at g + 13, and its credit is back at the link at g + 13 + 10 + 1 = g + 24. Two
  // credits per 24 ns: a long stream moves one flit every 12 ns, so 10 more packets (50 flits)
  // take 600 ns more.
  const auto topo = line4();
  const auto delivered = [&](std::uint64_t packets) {
    BackendOptions o = small_packets();
    o.packet.switching = Switching::Wormhole;
    o.packet.vcs = 1;
    o.packet.vc_buffer_flits = 2;
    return send_all(topo, o, {{0, 1, 64 * packets}}).delivered[0];
  };
  EXPECT_EQ(delivered(20) - delivered(10), 600 * 1000);
  core::Simulation sim;
  BackendOptions vct = small_packets();
  vct.packet.vc_buffer_flits = 2;
  EXPECT_THROW(PacketBackend(sim, topo, vct), core::InputError);
}

TEST(PacketBackend, NiQueuesAddOneFlitTimeEachToTheClosedForm) {
  // As above with an injection and an ejection queue of 80 flits (MultiTree's NI): the head also
  // crosses the NPU -> injection queue channel and the ejection queue -> NPU channel, ft each,
  // with no pipeline delay (NI queues are not routers); 80 flits hold all P packets, so nothing
  // waits for credits:  delivered = 2 ft + (ft + p) + h (ft + L + p) + P F ft,
  // injected (the last tail is in the injection queue) = P F ft.
  for (std::uint64_t packets : {1u, 3u}) {
    BackendOptions o = small_packets();
    o.packet.injection_queue_flits = 80;
    o.packet.ejection_queue_flits = 80;
    const Times t = send_all(line4(), o, {{0, 3, 64 * packets}});
    const std::int64_t ns = 1000;
    EXPECT_EQ(t.delivered[0], (2 + 2 + 3 * 12 + static_cast<std::int64_t>(packets) * 5) * ns);
    EXPECT_EQ(t.injected[0], static_cast<std::int64_t>(packets) * 5 * ns);
  }
}

TEST(PacketBackend, SlowNpuDrainBackPressuresThroughTheEjectionQueue) {
  // NPUs 0 and 2 each send 40 packets (200 flits) to NPU 1 on a line; NI bandwidth 4 GB/s (4 ns a
  // flit between each NPU and its NI queues), links 16 GB/s, 10 ns; one VC of 20 flits per router
  // port (4 packets: enough for the credit round trip at 4 ns a flit) and a 5-flit injection
  // queue. NPU 1 drains its ejection queue at 4 ns a flit:
  // 400 flits take >= 1600 ns whatever the queue depth.
  //  * A deep ejection queue (1000 flits) absorbs both streams: each sender feeds at its own NI
  //    rate, except that its one-packet injection queue takes a packet only when the previous
  //    tail has left it and the credit is back (1 ns head on the injection channel + 1 ns credit
  //    delay): 40 x (5 x 4 + 2) = 880 ns. The drain never idles: the last delivery is 1600 ns
  //    plus the first packet's trip.
  //  * A one-packet ejection queue back-pressures through the credits: a sender can be ahead of
  //    the drain by only what its path buffers (injection queue 5, two router VCs 40, the link
  //    ~3: about 50 flits), and the drain serves the two in turn, so a sender finishes feeding
  //    after 2 x (200 - 50) x 4 ns = 1200 ns. The drain also idles between packets: the ejection
  //    channel can refill the queue only when the previous tail has left it and the credit has
  //    come back (credit delay 1 ns + the head's 1 ns), >= 2 ns for each of the 80 packets.
  const auto topo =
      topology::Topology::graph("line3", 3, 3, {link(0, 1), link(1, 0), link(1, 2), link(2, 1)});
  for (const std::uint32_t depth : {1000u, 5u}) {
    BackendOptions o = small_packets();
    o.packet.vcs = 1;
    o.packet.vc_buffer_flits = 20;
    o.packet.ni_bandwidth = core::Bandwidth{4e9};
    o.packet.injection_queue_flits = 5;
    o.packet.ejection_queue_flits = depth;
    const Times t = send_all(topo, o, {{0, 1, 64 * 40}, {2, 1, 64 * 40}});
    SCOPED_TRACE("ejection queue " + std::to_string(depth));
    const std::int64_t ns = 1000;
    const std::int64_t last = std::max(t.delivered[0], t.delivered[1]);
    for (const std::int64_t injected : t.injected) {
      if (depth == 1000) {
        EXPECT_NEAR(injected, 880 * ns, 3 * ns);
      } else {
        EXPECT_GE(injected, 1200 * ns);
      }
    }
    if (depth == 1000) {
      EXPECT_GE(last, 1600 * ns);
      EXPECT_LE(last, (1600 + 40) * ns);
    } else {
      EXPECT_GE(last, (1600 + 80 * 2) * ns);
    }
    std::printf(
        "[ ni queue ] depth %u: injected %lld / %lld ns, delivered %lld / %lld ns\n", depth,
        static_cast<long long>(t.injected[0] / ns), static_cast<long long>(t.injected[1] / ns),
        static_cast<long long>(t.delivered[0] / ns), static_cast<long long>(t.delivered[1] / ns));
  }
}

TEST(PacketBackend, NiQueueShallowerThanAPacketIsRefused) {
  const auto topo = line4();
  core::Simulation sim;
  BackendOptions o = small_packets();
  o.packet.ejection_queue_flits = 4;  // a packet is 5 flits
  try {
    PacketBackend net(sim, topo, o);
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_STREQ(e.what(),
                 "packet backend option ejection_queue_flits: must hold a whole packet (5 flits) "
                 "for virtual cut-through, got 4");
  }
}

double stream_efficiency(bool mbfc) {
  // 1 MiB over one link; payload rate relative to the link rate, excluding the fixed latency.
  BackendOptions o;  // Table III: 256 B payload, 16 B flits
  o.packet.message_based_flow_control = mbfc;
  const std::uint64_t bytes = 1 << 20;
  const Times t = send_all(line4(), o, {{0, 1, bytes}});
  // The fixed part: ft + p before the link, ft + L + p across it.
  const double fixed_ps = (1 + 1) * 1000.0 + (1 + 10 + 1) * 1000.0;
  const double seconds = (static_cast<double>(t.delivered[0]) - fixed_ps) * 1e-12;
  return static_cast<double>(bytes) / seconds / 16e9;
}

TEST(PacketBackend, MessagesBecomePacketsOfFlits) {
  // 1 MiB in 256 B packets of 16 B flits: 4096 packets of 1 head + 16 payload flits; with
  // message-based flow control one head flit for the whole message.
  const auto topo = line4();
  core::Simulation sim;
  BackendOptions o;
  EXPECT_EQ(PacketBackend(sim, topo, o).flits_for(1 << 20), 4096u * 17u);
  EXPECT_EQ(PacketBackend(sim, topo, o).flits_for(100), 1u + 7u);  // 100 B: 7 payload flits
  o.packet.message_based_flow_control = true;
  EXPECT_EQ(PacketBackend(sim, topo, o).flits_for(1 << 20), 65536u + 1u);
}

TEST(PacketBackend, HeadFlitsCostOneSeventeenthOfALongStream) {
  // 256 B payload + one 16 B head flit per packet: payload efficiency 256 / 272 = 16/17.
  EXPECT_NEAR(stream_efficiency(false), 16.0 / 17.0, 0.01 * 16.0 / 17.0);
}

TEST(PacketBackend, MessageBasedFlowControlRecoversTheLinkRate) {
  // One head flit for 65,536 payload flits: within 0.1% of the link rate (MultiTree (ISCA'21)
  // Sec. IV-B).
  EXPECT_NEAR(stream_efficiency(true), 1.0, 0.001);
}

TEST(PacketBackend, SlowEjectionThrottlesTheSenderThroughCredits) {
  // NPU 1's only outgoing link is 2 GB/s, so its NI (ejection) runs at 2 GB/s; NPU 0 injects at
  // 16 GB/s. With one VC of one packet's worth of buffer, every packet waits for the credit of
  // the one before it, so the sender can inject no faster than the receiver ejects: 32 packets
  // of 5 flits take at least 32 * 5 * 8 ns = 1280 ns to leave NPU 0, instead of 160 ns.
  const auto topo = topology::Topology::graph("pair", 2, 2, {link(0, 1), link(1, 0, 2.0)});
  for (const bool small : {false, true}) {
    BackendOptions o = small_packets();
    o.packet.vcs = 1;
    o.packet.vc_buffer_flits = small ? 5 : 1000;
    const Times t = send_all(topo, o, {{0, 1, 64 * 32}});
    if (small) {
      EXPECT_GE(t.injected[0], 31 * 5 * 8 * 1000);  // paced by ejection
    } else {
      // Enough buffer for the whole message: injection runs at 16 GB/s, the buffer absorbs it.
      EXPECT_EQ(t.injected[0], 32 * 5 * 1000);
    }
    // Either way the last packet is ejected at 2 GB/s: delivery >= 32 * 5 * 8 ns.
    EXPECT_GE(t.delivered[0], 32 * 5 * 8 * 1000);
  }
}

TEST(PacketBackend, TwoFlowsThroughOneOutputShareItRoundRobin) {
  // NPUs 0 and 1 each send 64 KiB to NPU 2 through switch 3; the switch's output to NPU 2 is
  // shared. Alone, a message takes T1; together each gets half the port, so both finish near
  // 2 T1, within 5% of each other and of 2 T1.
  const auto topo = topology::Topology::graph(
      "star", 3, 4, {link(0, 3), link(1, 3), link(3, 2), link(2, 3), link(3, 0), link(3, 1)});
  const std::uint64_t bytes = 64 << 10;
  const auto alone = static_cast<double>(send_all(topo, {}, {{0, 2, bytes}}).delivered[0]);
  const Times t = send_all(topo, {}, {{0, 2, bytes}, {1, 2, bytes}});
  const double a = static_cast<double>(t.delivered[0]), b = static_cast<double>(t.delivered[1]);
  EXPECT_NEAR(a / b, 1.0, 0.05);
  EXPECT_NEAR(std::max(a, b) / (2 * alone), 1.0, 0.05);
}

TEST(PacketBackend, BadOptionsAreRefused) {
  const auto torus = topology::torus({4, 4}, core::Bandwidth{16e9}, core::Time::from_ns(150));
  core::Simulation sim;
  BackendOptions o;
  o.packet.vcs = 3;
  EXPECT_THROW(PacketBackend(sim, torus, o), core::InputError);  // dateline needs even VCs
  o = {};
  o.packet.vc_buffer_flits = 10;  // a 17-flit packet does not fit
  try {
    PacketBackend net(sim, torus, o);
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("vc_buffer_flits: must hold a whole packet (17 flits"),
              std::string::npos)
        << e.what();
  }
}

double run(const topology::Topology& t, const char* algo, collective::Collective c,
           std::uint64_t size, const char* backend, const BackendOptions& o = {}) {
  const auto p =
      collective::build_program(collective::parse_algorithm(algo, "t"), t, c, core::Bytes{size}, 1);
  core::Simulation sim;
  auto net = make_backend(find_backend(backend, "t"), sim, t, o, "t");
  return runtime::execute(p, *net, sim).time.seconds();
}

TEST(PacketBackend, LargeContentionFreeMessagesCostFlowTimesSeventeenSixteenths) {
  // Ring all-reduce on its Hamiltonian cycle shares no link: the packet time is the flow time
  // stretched by (payload + header) / payload = 272 / 256, within 1%.
  const core::Bandwidth bw{16e9};
  const auto lat = core::Time::from_ns(150);
  for (const auto& topo : {topology::ring(8, bw, lat, true), topology::torus({4, 4}, bw, lat)}) {
    const double flow = run(topo, "ring", collective::Collective::AllReduce, 8 << 20, "flow");
    const double packet = run(topo, "ring", collective::Collective::AllReduce, 8 << 20, "packet");
    EXPECT_NEAR(packet / (flow * 17.0 / 16.0), 1.0, 0.01) << topo.name();
  }
}

TEST(PacketBackend, EveryAlgorithmRunsDeadlockFreeOnEveryTopology) {
  const core::Bandwidth bw{16e9};
  const auto lat = core::Time::from_ns(150);
  BackendOptions tight;  // two VCs (one per dateline class) of one packet each: most contention
  tight.packet.vcs = 2;
  tight.packet.vc_buffer_flits = 17;
  BackendOptions worm = tight;  // wormhole with buffers of 2 flits: worms span many routers
  worm.packet.switching = Switching::Wormhole;
  worm.packet.vc_buffer_flits = 2;
  int runs = 0;
  for (const char* spec : {"ring:8", "bidir-ring:16", "fc:8", "switch:16", "torus:4x4", "mesh:4x4",
                           "torus:4x4x4", "mesh:3x3", "hier:ring4xfc2xsw2", "torus:3x5"}) {
    const auto topo = topology::from_compact(spec, bw, lat);
    const std::uint32_t n = topo.num_npus();
    for (const auto& info : collective::algorithms()) {
      if (info.staged) continue;                               // scheduler/hierarchical_test.cpp
      if (!collective::refusal(info, topo).empty()) continue;  // e.g. ring-2d off grids
      if (info.power_of_two && (n & (n - 1)) != 0) {
        continue;
      }
      for (collective::Collective c : info.collectives) {
        for (const BackendOptions& o : {BackendOptions{}, tight, worm}) {
          const double t = run(topo, info.name.c_str(), c, 16 << 10, "packet", o);
          EXPECT_GT(t, 0) << spec << " " << info.name;
          ++runs;
        }
        // Same inputs, same time.
        EXPECT_EQ(run(topo, info.name.c_str(), c, 16 << 10, "packet", tight),
                  run(topo, info.name.c_str(), c, 16 << 10, "packet", tight))
            << spec << " " << info.name;
      }
    }
  }
  EXPECT_GT(runs, 150);
}

// MultiTree's schedule-table NI (Sec. IV-A): messages of one NPU leave in time-step order, and a
// contended channel serves the earliest step first.
std::vector<std::int64_t> deliveries_with_steps(const topology::Topology& topo,
                                                const BackendOptions& o,
                                                const std::vector<Message>& messages,
                                                const std::vector<std::uint32_t>& steps) {
  core::Simulation sim;
  PacketBackend net(sim, topo, o);
  collsim::testing::Recorder rec(sim);
  for (std::uint64_t m = 0; m < messages.size(); ++m) {
    MessageAttributes a;
    a.priority = steps[m];
    net.send(messages[m].src, messages[m].dst, core::Bytes{messages[m].bytes}, rec, m, a);
  }
  sim.run();
  std::vector<std::int64_t> t;
  for (std::uint64_t m = 0; m < messages.size(); ++m) t.push_back(rec.delivered.at(m));
  return t;
}

TEST(PacketBackend, ScheduleNiSendsTheEarliestStepFirst) {
  // Four one-packet messages 0 -> 3 sent at once with steps 4, 3, 1, 2. The NI takes the first
  // at once (it is idle); then the earliest waiting step. Without schedule_ni: send order.
  BackendOptions o = small_packets();
  const std::vector<Message> m(4, Message{0, 3, 64});
  const std::vector<std::uint32_t> steps = {4, 3, 1, 2};
  const auto fifo = deliveries_with_steps(line4(), o, m, steps);
  EXPECT_TRUE(fifo[0] < fifo[1] && fifo[1] < fifo[2] && fifo[2] < fifo[3]);
  o.packet.schedule_ni = true;
  const auto sched = deliveries_with_steps(line4(), o, m, steps);
  EXPECT_TRUE(sched[0] < sched[2] && sched[2] < sched[3] && sched[3] < sched[1]);
  // Back to back, one 5-flit packet (5 ns) apart, as in FIFO order.
  EXPECT_EQ(sched[1] - sched[0], 3 * 5000);
  EXPECT_EQ(fifo[3] - fifo[0], 3 * 5000);
}

TEST(PacketBackend, ScheduleNiRoutersGrantTheEarliestStep) {
  // 0 -> 2 (two hops) and 3 -> 2 (one hop), ten packets each, contend for NPU 2's ejection
  // channel; round-robin alternates their packets once both are there. Whichever has the earlier
  // step takes every grant it can with schedule_ni: delayed by at most the one packet it finds
  // in the channel. Alone, 0 -> 2 takes (ft + p) + 2 (ft + L + p) + 10 x 5 ft = 76 ns and 3 -> 2
  // 64 ns.
  BackendOptions o = small_packets();
  const std::vector<Message> m = {{0, 2, 640}, {3, 2, 640}};
  const auto rr = deliveries_with_steps(line4(), o, m, {1, 2});
  EXPECT_GT(rr[0], (76 + 5) * 1000);
  EXPECT_GT(rr[1], (64 + 5) * 1000);
  o.packet.schedule_ni = true;
  const auto first = deliveries_with_steps(line4(), o, m, {1, 2});
  EXPECT_LE(first[0], (76 + 5) * 1000);
  EXPECT_GT(first[1], first[0]);
  const auto second = deliveries_with_steps(line4(), o, m, {2, 1});
  EXPECT_LE(second[1], (64 + 5) * 1000);
  EXPECT_GT(second[0], second[1]);
}

}  // namespace
}  // namespace collsim::network
