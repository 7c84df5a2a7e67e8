// Endpoint models (ACE, MICRO'20): the LogGP bus in closed form, one message through each model
// (every bus hop summed by hand), ACE's DMA staging and SRAM admission, the parameter schema and
// its errors, the compute coupling, and the CLI's endpoint flags.
#include "endpoint/endpoint.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <utility>

#include "cli_run.hpp"
#include "compute/systolic.hpp"
#include "core/error.hpp"
#include "endpoint/loggp_bus.hpp"
#include "network/analytical.hpp"
#include "topology/builders.hpp"

namespace collsim {
namespace {

using core::Time;

Time ps(std::int64_t v) { return Time::from_ps(v); }

TEST(LogGPBus, ATransferTakesOverheadSerializationLatencyOverheadAndQueuesFifo) {
  endpoint::Bus bus(core::Bandwidth{1e9},
                    {Time::from_ns(50), Time::from_ns(20), Time::from_ns(20)});
  const auto a = bus.reserve(Time{}, core::Bytes{1000});  // 1000 B at 1 GB/s = 1 us
  EXPECT_EQ(a.queued, Time{});
  EXPECT_EQ(a.done, Time::from_ns(20 + 1000 + 50 + 20));
  // Requested at the same time: waits until the first has left the bus (o + bytes G).
  const auto b = bus.reserve(Time{}, core::Bytes{1000});
  EXPECT_EQ(b.queued, Time::from_ns(1020));
  EXPECT_EQ(b.done, Time::from_ns(1020 + 1090));
  // The gap (ASTRA-sim 1.0's rule): the next transfer's overhead is max(o, g - idle time since
  // the previous one left the bus).
  endpoint::Bus small(core::Bandwidth{1e12}, {Time{}, Time{}, Time::from_ns(20)});
  small.reserve(Time{}, core::Bytes{1});                       // on the bus [0, 1 ps)
  EXPECT_EQ(small.reserve(Time{}, core::Bytes{1}).done, ps(1 + 20000 + 1));
  EXPECT_EQ(small.reserve(Time::from_ns(25), core::Bytes{1}).done,
            Time::from_ns(25) + ps(20000 - (25000 - 20002) + 1));
  EXPECT_EQ(small.reserve(Time::from_ns(100), core::Bytes{1}).done, Time::from_ns(100) + ps(1));
}

// A run of equal bus messages in closed form is the bus-message-by-bus-message FIFO recursion
// d_i = max(d_{i-1} + max(o, g) + b G, a_i + o + b G), for arrivals evenly spaced.
TEST(LogGPBus, ARunInClosedFormIsThePerMessageRecursion) {
  const endpoint::LogGP p{Time::from_ns(50), Time::from_ns(20), Time::from_ns(20)};
  const core::Bytes piece{4096};
  const Time ser = core::transfer_time(piece, core::Bandwidth{500e9});  // 8192 ps
  for (const std::int64_t spacing : {0, 10000, 28192, 40000}) {      // ps between arrivals
    for (const std::uint32_t n : {1u, 2u, 7u, 64u}) {
      endpoint::Bus bus(core::Bandwidth{500e9}, p);
      bus.reserve(Time{}, core::Bytes{100000});  // busy until 220 ns
      const Time first = Time::from_ns(100);
      const Time last = first + ps(spacing * (n - 1));
      const auto g = bus.reserve_run(first, last, n, piece);
      Time d = std::max(first, Time::from_ns(20) + ps(200000)) + p.overhead + ser;
      const Time first_done = d;
      for (std::uint32_t i = 1; i < n; ++i) {
        d = std::max(d + p.overhead + ser, first + ps(spacing * i) + p.overhead + ser);
      }
      EXPECT_EQ(g.first_done, first_done + p.latency + p.overhead) << spacing << " " << n;
      EXPECT_EQ(g.done, d + p.latency + p.overhead) << spacing << " " << n;
    }
  }
}

// One message 0 -> 1 through an endpoint; returns when the destination had it.
struct Probe final : network::DeliveryHandler, endpoint::StagingHandler {
  core::Simulation* sim = nullptr;
  Time injected, delivered, staged;
  void on_injected(std::uint64_t) override { injected = sim->now(); }
  void on_delivered(std::uint64_t) override { delivered = sim->now(); }
  void on_staged(std::uint64_t) override { staged = sim->now(); }
};

Time one_message(const std::string& name, bool reduce, std::uint64_t bytes,
                 const endpoint::EndpointParams& p = {}) {
  const auto t = topology::from_compact("fc:2", core::Bandwidth{100e9}, Time::from_ns(100));
  core::Simulation sim;
  network::AnalyticalBackend net(sim, t);
  auto ep = endpoint::find_endpoint(name, "t").make(sim, net, t, p);
  Probe probe;
  probe.sim = &sim;
  endpoint::Message m{0, 1, core::Bytes{bytes}, {}, reduce};
  ep->send(m, probe, 0);
  sim.run();
  EXPECT_GE(probe.delivered, probe.injected);
  return probe.delivered;
}

TEST(Endpoints, BaselineChargesEveryBusHopOfFig7b) {
  const Time net = one_message("none", true, 1000);
  // LogGP hops, each o + bytes G + L + o with G from Table 7 (ceil to ps):
  const Time mem1k = ps(20000 + 1112 + 50000 + 20000);  // 1000 B at 900 GB/s
  const Time nic1k = ps(20000 + 2000 + 50000 + 20000);  // 1000 B at 500 GB/s
  const Time mem2k = ps(20000 + 2223 + 50000 + 20000);  // both operands read back
  const Time alu = ps(55);                              // 1000 B at 4 B/FLOP x 5% x 91.75 TFLOP/s
  // send: memory -> NPU, NPU -> NIC; arrive: NIC -> NPU, NPU -> memory, read 2x, add, write.
  EXPECT_EQ(one_message("baseline", true, 1000),
            net + mem1k + nic1k + nic1k + mem1k + mem2k + alu + mem1k);
  // A copy is only written to memory.
  EXPECT_EQ(one_message("baseline", false, 1000), net + mem1k + nic1k + nic1k + mem1k);
  // baseline++ moves messages like baseline; it differs in what training keeps.
  EXPECT_EQ(one_message("baseline++", true, 1000), one_message("baseline", true, 1000));
  // ASTRA-sim 1.0's memory model: no read-back of the operands, the rest as Fig. 7b.
  endpoint::EndpointParams astra;
  astra.reduce_reads_operands = false;
  EXPECT_EQ(one_message("baseline", true, 1000, astra),
            net + mem1k + nic1k + nic1k + mem1k + alu + mem1k);
  EXPECT_EQ(one_message("baseline", false, 1000, astra), one_message("baseline", false, 1000));
}

TEST(Endpoints, OneBusMessageOnIdleBusesCostsTheSumOfItsLogGPTerms) {
  // ACE Table 7's 4 KB message, Sec. 5's L = 50, o = g = 20 cycles: every bus hop is
  // o + 4096 G + L + o, the local add 4096 B at 4 B/FLOP on 5% of 91.75 TFLOP/s.
  const Time net = one_message("none", true, 4096);
  const Time mem = ps(20000 + 4552 + 50000 + 20000);   // 4096 B at 900 GB/s
  const Time nic = ps(20000 + 8192 + 50000 + 20000);   // 4096 B at 500 GB/s
  const Time mem2 = ps(20000 + 9103 + 50000 + 20000);  // both operands read back
  const Time alu = ps(224);
  EXPECT_EQ(one_message("baseline", true, 4096), net + mem + nic + nic + mem + mem2 + alu + mem);
  // The baseline's own bus message is its algorithm message (ASTRA-sim 1.0 charges LogGP once per
  // message): 8 KB crosses each bus as one transfer, o paid once per hop.
  const Time net8 = one_message("none", true, 8192);
  const Time mem8 = ps(20000 + 9103 + 50000 + 20000);
  const Time nic8 = ps(20000 + 16384 + 50000 + 20000);
  const Time mem16 = ps(20000 + 18205 + 50000 + 20000);
  const Time alu8 = ps(447);
  const Time one = one_message("baseline", true, 8192);
  EXPECT_EQ(one, net8 + mem8 + nic8 + nic8 + mem8 + mem16 + alu8 + mem8);
  endpoint::EndpointParams whole, pieces;
  whole.bus_message = core::Bytes{0};
  EXPECT_EQ(one_message("baseline", true, 8192, whole), one);
  // In 4 KB bus messages (bus_message set) the two halves pipeline from bus to bus: sooner than
  // one transfer per bus, later than one 4 KB message.
  pieces.bus_message = core::Bytes{4096};
  EXPECT_LT(one_message("baseline", true, 8192, pieces), one);
  EXPECT_GT(one_message("baseline", true, 8192, pieces), one_message("baseline", true, 4096));
}

// Messages 0 -> 1 (and, with SECOND's bytes non-zero, SECOND) on fc:2, 100 GB/s and 100 ns per
// link, analytical backend, through endpoint NAME with P; when each was delivered.
std::pair<Time, Time> two_messages(const std::string& name, const endpoint::EndpointParams& p,
                                   std::uint64_t first_bytes, endpoint::Message second) {
  const auto t = topology::from_compact("fc:2", core::Bandwidth{100e9}, Time::from_ns(100));
  core::Simulation sim;
  network::AnalyticalBackend net(sim, t);
  auto ep = endpoint::find_endpoint(name, "t").make(sim, net, t, p);
  Probe a, b;
  a.sim = b.sim = &sim;
  ep->send(endpoint::Message{0, 1, core::Bytes{first_bytes}, {}, false}, a, 0);
  if (second.bytes.count > 0) ep->send(second, b, 1);
  sim.run();
  return {a.delivered, b.delivered};
}

// 64 KB each way between two NPUs under baseline in 4 KB bus messages (so that NPU 1 is still
// sending when NPU 0's message arrives; as one transfer its bus is free by then); when the
// message 0 -> 1 is delivered.
Time exchange(bool half, bool both_ways) {
  endpoint::EndpointParams p;
  p.npu_nic_half_duplex = half;
  p.bus_message = core::Bytes{4096};
  const endpoint::Message back{1, 0, core::Bytes{both_ways ? 65536u : 0u}, {}, false};
  return two_messages("baseline", p, 65536, back).first;
}

TEST(Endpoints, HalfDuplexNicBusSerializesBothDirections) {
  // One way, the option changes nothing; both ways, NPU 1's NPU-NIC bus is busy sending while
  // the message from NPU 0 arrives, so it is delivered later.
  EXPECT_EQ(exchange(true, false), exchange(false, false));
  EXPECT_EQ(exchange(false, true), exchange(false, false));
  EXPECT_GT(exchange(true, true), exchange(false, true));
}

TEST(Endpoints, LinkFifoInjectsOneMessageAtATimePerLink) {
  // Two 1000 B messages 0 -> 1 on a 100 GB/s link with 100 ns latency (the analytical backend
  // does not share links): with link_fifo the second enters when the first has left (10 ns).
  for (const bool fifo : {false, true}) {
    endpoint::EndpointParams p;
    p.link_fifo = fifo;
    const auto [a, b] =
        two_messages("none", p, 1000, endpoint::Message{0, 1, core::Bytes{1000}, {}, false});
    EXPECT_EQ(a, Time::from_ns(110));
    EXPECT_EQ(b, Time::from_ns(fifo ? 120 : 110)) << fifo;
  }
}

TEST(Endpoints, IdealDmaCopiesChunksInAtTheNicBandwidthOneAtATime) {
  const auto t = topology::from_compact("fc:2", core::Bandwidth{100e9}, Time::from_ns(100));
  core::Simulation sim;
  network::AnalyticalBackend net(sim, t);
  endpoint::EndpointParams p;
  EXPECT_FALSE(endpoint::find_endpoint("none", "t").make(sim, net, t, p)->stages_memory());
  p.ideal_dma = true;
  p.ideal_chunk = core::Bytes{65536};
  auto ideal = endpoint::find_endpoint("none", "t").make(sim, net, t, p);
  ASSERT_TRUE(ideal->stages_memory());
  EXPECT_EQ(ideal->chunk_limit().count, 65536u);
  Probe a, b, c, out;
  a.sim = b.sim = c.sim = out.sim = &sim;
  ideal->stage_in(0, core::Bytes{65536}, a, 0);  // 131072 ps at 500 GB/s, no LogGP cost
  ideal->stage_in(0, core::Bytes{65536}, b, 1);  // after the first
  ideal->stage_in(1, core::Bytes{65536}, c, 2);  // another NPU: at once
  ideal->stage_out(0, core::Bytes{65536}, out, 3);
  sim.run();
  EXPECT_EQ(a.staged, ps(131072));
  EXPECT_EQ(b.staged, ps(2 * 131072));
  EXPECT_EQ(c.staged, ps(131072));
  EXPECT_EQ(out.staged, Time{});
}

TEST(Endpoints, AceReducesInItsAlusAndCopiesForFree) {
  const Time net = one_message("none", true, 1000);
  // 4 ALUs x min(16 lanes x 4 B, 64 B bus) per 1 GHz cycle = 256 GB/s: 1000 B in 3.90625 ns.
  EXPECT_EQ(one_message("ace", true, 1000), net + ps(3907));
  EXPECT_EQ(one_message("ace", false, 1000), net);
}

TEST(Endpoints, CalibrationKnobsApplyToEveryEndpoint) {
  endpoint::EndpointParams p;
  p.message_overhead = Time::from_ns(30);
  p.link_efficiency = 0.5;  // twice the bytes on the wire: +10 ns at 100 GB/s for 1000 B
  for (const char* name : {"none", "ideal", "baseline", "ace"}) {
    EXPECT_EQ(one_message(name, true, 1000, p),
              one_message(name, true, 1000) + Time::from_ns(30) + Time::from_ns(10))
        << name;
  }
}

// ASTRA-sim 1.0's endpoint-delay: every endpoint holds each message that long at its source,
// on top of message_overhead; given as text it is a time ("10 ns", 10 cycles at 1 GHz).
TEST(Endpoints, EndpointDelayOfAstraSimAddsToEveryMessage) {
  endpoint::EndpointParams p;
  endpoint::set_endpoint_param(p, "endpoint_delay=10 ns", "t");
  EXPECT_EQ(p.endpoint_delay, Time::from_ns(10));
  for (const char* name : {"none", "ideal", "baseline", "ace"}) {
    EXPECT_EQ(one_message(name, true, 1000, p), one_message(name, true, 1000) + Time::from_ns(10))
        << name;
  }
  p.message_overhead = Time::from_ns(30);
  EXPECT_EQ(one_message("none", true, 1000, p),
            one_message("none", true, 1000) + Time::from_ns(40));
  EXPECT_EQ(endpoint::endpoint_label("none", p),
            "none:message_overhead=30 ns:endpoint_delay=10 ns");
}

TEST(Endpoints, AceStagesThroughMemoryThenNicBus) {
  const auto t = topology::from_compact("fc:2", core::Bandwidth{100e9}, Time::from_ns(100));
  core::Simulation sim;
  network::AnalyticalBackend net(sim, t);
  auto ace = endpoint::find_endpoint("ace", "t").make(sim, net, t, {});
  ASSERT_TRUE(ace->stages_memory());
  EXPECT_EQ(ace->chunk_limit().count, 64u << 10);
  Probe probe;
  probe.sim = &sim;
  ace->stage_in(0, core::Bytes{65536}, probe, 0);
  sim.run();
  // 64 KiB as 16 bus messages of 4 KB (Table 7), pipelined: on the memory bus each holds it
  // o + 4552 ps (4 KB at 900 GB/s), back to back; the NPU-NIC bus (o + 8192 ps each) is the
  // slower, so the last leaves it 16 of its holds after the first arrived there, then L + o.
  const Time mem_first = ps(20000 + 4552) + Time::from_ns(70);
  EXPECT_EQ(probe.staged, mem_first + ps(16 * (20000 + 8192)) + Time::from_ns(70));
  EXPECT_EQ(ace->stats().staged, 1u);
  EXPECT_EQ(ace->stats().bus_transfers, 32u);
  // The RX DMA writes the whole chunk back (Fig. 7c, sub-step 5.4): one transfer on the NPU-NIC
  // bus (o + 131072 ps + L + o), then one on the memory bus (o + 72818 ps + L + o).
  Probe back;
  back.sim = &sim;
  const Time start = sim.now();
  ace->stage_out(0, core::Bytes{65536}, back, 1);
  sim.run();
  EXPECT_EQ(back.staged - start, ps(20000 + 131072 + 70000) + ps(20000 + 72818 + 70000));
  EXPECT_EQ(ace->stats().bus_transfers, 34u);
  // bus_message set by the user applies to both copies.
  endpoint::EndpointParams p;
  p.bus_message = core::Bytes{0};
  EXPECT_EQ(endpoint::bus_message_or(p, endpoint::kAceBusMessage).count, 0u);
}

TEST(Endpoints, AceAdmissionBoundsChunksBySramPartitionAndStateMachines) {
  const auto t = topology::from_compact("fc:2", core::Bandwidth{100e9}, Time::from_ns(100));
  core::Simulation sim;
  network::AnalyticalBackend net(sim, t);
  endpoint::EndpointParams p;
  p.ace_sram = core::Bytes{4000};
  p.ace_state_machines = 4;
  p.ace_sram_partition = core::ChoiceIndex{endpoint::kAcePartitionPhaseChunk};
  auto ace = endpoint::find_endpoint("ace", "t").make(sim, net, t, p);
  endpoint::ChunkAdmission* a = ace->admission();
  ASSERT_NE(a, nullptr);
  // Two phases and results: 1000, 2000 and 1000 bytes (by the chunk as it is in each phase).
  a->shape({{1, 1, 1}, {1, 2, 1}, {1, 1, 1}});
  EXPECT_EQ(a->phases(), 2u);
  EXPECT_TRUE(a->try_enter(0, 600));
  EXPECT_FALSE(a->try_enter(0, 600));  // 1200 > 1000
  EXPECT_TRUE(a->try_enter(0, 400));
  // Phase 1: 2000 bytes but 4 machines / 2 phases = 2 chunk-stages at once.
  EXPECT_TRUE(a->try_enter(1, 10));
  EXPECT_TRUE(a->try_enter(1, 10));
  EXPECT_FALSE(a->try_enter(1, 10));
  a->finish(1);  // a stage ended: its state machine is free
  EXPECT_TRUE(a->try_enter(1, 10));
  // The results partition needs no machine; an empty partition takes an oversize chunk.
  EXPECT_TRUE(a->try_enter(2, 5000));
  EXPECT_FALSE(a->try_enter(2, 1));
  EXPECT_EQ(ace->stats().oversize, 1u);
  a->shape({{5, 5, 5}, {5, 5, 5}});  // later shapes do not change the partitions
  EXPECT_EQ(a->phases(), 2u);
}

// Sec. 6's heuristic read the other way: bandwidth x the chunk as it entered the collective, so
// a phase after a reduce-scatter (smaller chunks) gets as much as its bandwidth says.
TEST(Endpoints, AceSramPartitionByInitialChunkWeighsByBandwidthAlone) {
  const auto t = topology::from_compact("fc:2", core::Bandwidth{100e9}, Time::from_ns(100));
  core::Simulation sim;
  network::AnalyticalBackend net(sim, t);
  endpoint::EndpointParams p;
  endpoint::set_endpoint_param(p, "ace_sram_partition=initial-chunk", "f");
  p.ace_sram = core::Bytes{4000};
  p.ace_state_machines = 100;
  auto ace = endpoint::find_endpoint("ace", "t").make(sim, net, t, p);
  endpoint::ChunkAdmission* a = ace->admission();
  ASSERT_NE(a, nullptr);
  // Phase 0 at 2 units of bandwidth, phase 1 at 1 with a quarter of the chunk, results at 1:
  // 2000, 1000 and 1000 bytes (phase-chunk would give 3200, 400 and 400).
  a->shape({{2, 1, 1}, {1, 0.25, 1}, {1, 0.25, 1}});
  EXPECT_TRUE(a->try_enter(1, 600));
  EXPECT_TRUE(a->try_enter(1, 400));
  EXPECT_FALSE(a->try_enter(1, 1));  // 1000 bytes full
  EXPECT_TRUE(a->try_enter(0, 1999));
  EXPECT_FALSE(a->try_enter(0, 2));
  EXPECT_EQ(ace->stats().oversize, 0u);
  EXPECT_THROW(endpoint::set_endpoint_param(p, "ace_sram_partition=bandwidth", "f"),
               core::InputError);
}

TEST(EndpointParams, ParseUnitsSharesAndRejectBadInput) {
  endpoint::EndpointParams p;
  endpoint::set_endpoint_param(p, "link_efficiency=94%", "--endpoint-param");
  EXPECT_DOUBLE_EQ(p.link_efficiency, 0.94);
  endpoint::set_endpoint_param(p, "baseline_memory_share", "0.25", "f");
  EXPECT_DOUBLE_EQ(p.baseline_memory_share, 0.25);
  endpoint::set_endpoint_param(p, "npu_peak_flops", "100 TFLOP/s", "f");
  EXPECT_DOUBLE_EQ(p.npu_peak_flops, 100e12);
  endpoint::set_endpoint_param(p, "ace_sram", "2 MiB", "f");
  EXPECT_EQ(p.ace_sram.count, 2u << 20);
  EXPECT_EQ(endpoint::endpoint_label("ace", p),
            "ace:link_efficiency=94%:baseline_memory_share=25%:npu_peak_flops=100 "
            "TFLOP/s:ace_sram=2 MiB");
  EXPECT_EQ(endpoint::endpoint_label("ideal", {}), "ideal");
  EXPECT_EQ(endpoint::endpoint_label("none", {}), "none");
  // bus_message is unset by default (each endpoint's own); set, it shows in the label.
  endpoint::EndpointParams q;
  EXPECT_FALSE(q.bus_message.has_value());
  EXPECT_EQ(endpoint::bus_message_or(q, endpoint::kWholeMessage).count, 0u);
  EXPECT_EQ(endpoint::bus_message_or(q, endpoint::kAceBusMessage).count, 4096u);
  endpoint::set_endpoint_param(q, "bus_message=4 KiB", "f");
  EXPECT_EQ(endpoint::endpoint_label("baseline", q), "baseline:bus_message=4 KiB");
  for (const auto& e : endpoint::endpoint_params()) {
    if (e.spec.key == "bus_message") {
      EXPECT_EQ(endpoint::format_endpoint_param({}, e).rfind("unset (the endpoint's", 0), 0u);
    }
  }
  for (const char* bad : {"link_efficiency=0", "link_efficiency=150%", "link_efficiency=x",
                          "npu_peak_flops=1e12", "ace_alus=0", "bogus=1", "=3", "ace_sram"}) {
    EXPECT_THROW(endpoint::set_endpoint_param(p, bad, "--endpoint-param"), core::InputError) << bad;
  }
  try {
    endpoint::set_endpoint_param(p, "bogus=1", "--endpoint-param");
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown endpoint parameter \"bogus\"; valid: "),
              std::string::npos);
  }
}

TEST(EndpointParams, TrainingSharesFollowSec5) {
  const endpoint::EndpointParams p;
  const auto share = [&](const char* n) {
    const auto f = endpoint::find_endpoint(n, "t").training_share;
    return f ? f(p) : endpoint::TrainingShare{};
  };
  EXPECT_DOUBLE_EQ(share("baseline").compute, 0.95);
  EXPECT_DOUBLE_EQ(share("baseline").memory, 0.80);
  EXPECT_DOUBLE_EQ(share("baseline++").compute, 1.0);
  EXPECT_DOUBLE_EQ(share("baseline++").memory, 0.95);
  EXPECT_DOUBLE_EQ(share("ace").memory, 0.95);
  EXPECT_DOUBLE_EQ(share("ideal").memory, 1.0);
  EXPECT_DOUBLE_EQ(share("none").memory, 1.0);
}

TEST(ComputeCoupling, SystolicWithMemoryIsBoundByTheSharedBandwidth) {
  compute::SystolicParams sp{256, 256, 1, 700e6, core::Bandwidth{900e9}};
  const compute::Systolic s(sp);
  compute::PassWork w;
  w.gemms = {{256, 256, 256}};  // 1022 cycles at 700 MHz = 1460 ns
  w.bytes = 9e6;                // 10 us at 900 GB/s: memory bound
  EXPECT_EQ(s.time(w), Time::from_ns(10000));
  // Baseline's training share: 80% of the memory bandwidth, 95% of the array.
  EXPECT_EQ(s.scaled(0.95, 0.8)->time(w), Time::from_ns(12500));
  w.bytes = 0;
  EXPECT_EQ(s.scaled(0.95, 0.8)->time(w), ps(1536842));  // 1460 ns / 0.95
}

TEST(EndpointCli, UnknownEndpointsAndParametersExitTwoNamingTheFlag) {
  auto r = test::collsim("collective -t ring:4 -a ring -s 1MiB --endpoint acee -q");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--endpoint: unknown endpoint \"acee\"; did you mean ace?; valid: none, ideal, "
                       "baseline, baseline++, ace"),
            std::string::npos)
      << r.err;
  r = test::collsim(
      "collective -t ring:4 -a ring -s 1MiB --endpoint ace --endpoint-param sram=1MiB -q");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown endpoint parameter \"sram\""), std::string::npos) << r.err;
  r = test::collsim("collective -t ring:4 -a ring -s 1MiB --endpoint ace,ace -q");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("named twice"), std::string::npos) << r.err;
}

TEST(EndpointCli, OneRowPerEndpointWithItsLabelAndBreakdown) {
  const auto r = test::collsim(
      "collective -t ring:4 -a ring -s 1MiB -b analytical --endpoint none,ideal,baseline,ace "
      "--endpoint-param link_efficiency=94% --format csv -q");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(",none:link_efficiency=94%,,\n"), std::string::npos) << r.out;
  // ideal is ACE's engine without its costs: ACE's copy-in (TX DMA), no copy-out.
  EXPECT_NE(r.out.find(",ideal:link_efficiency=94%,bus_queuing_ns="), std::string::npos);
  EXPECT_NE(r.out.find(",baseline:link_efficiency=94%,bus_queuing_ns="), std::string::npos);
  EXPECT_NE(r.out.find(",ace:link_efficiency=94%,"), std::string::npos);
  // ACE's 64 KB chunks (Table 4): 1 MiB is 16 chunks, each copied in and out on 4 NPUs.
  EXPECT_NE(r.out.find("dma_transfers=128"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace collsim
