// Endpoint models (ACE, MICRO'20): the LogGP bus in closed form, one message through each model
// (every bus hop summed by hand), ACE's DMA staging and SRAM admission, the parameter schema and
// its errors, the compute coupling, and the CLI's endpoint flags.
#include "endpoint/endpoint.hpp"

#include <gtest/gtest.h>

#include <memory>

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
  // The gap: a tiny transfer cannot start sooner than g after the previous start.
  endpoint::Bus small(core::Bandwidth{1e12}, {Time{}, Time{}, Time::from_ns(20)});
  small.reserve(Time{}, core::Bytes{1});
  EXPECT_EQ(small.reserve(Time{}, core::Bytes{1}).queued, Time::from_ns(20));
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
  const Time net = one_message("ideal", true, 1000);
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
}

TEST(Endpoints, AceReducesInItsAlusAndCopiesForFree) {
  const Time net = one_message("ideal", true, 1000);
  // 4 ALUs x min(16 lanes x 4 B, 64 B bus) per 1 GHz cycle = 256 GB/s: 1000 B in 3.90625 ns.
  EXPECT_EQ(one_message("ace", true, 1000), net + ps(3907));
  EXPECT_EQ(one_message("ace", false, 1000), net);
}

TEST(Endpoints, CalibrationKnobsApplyToEveryEndpoint) {
  endpoint::EndpointParams p;
  p.message_overhead = Time::from_ns(30);
  p.link_efficiency = 0.5;  // twice the bytes on the wire: +10 ns at 100 GB/s for 1000 B
  for (const char* name : {"ideal", "baseline", "ace"}) {
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
  for (const char* name : {"ideal", "baseline", "ace"}) {
    EXPECT_EQ(one_message(name, true, 1000, p), one_message(name, true, 1000) + Time::from_ns(10))
        << name;
  }
  p.message_overhead = Time::from_ns(30);
  EXPECT_EQ(one_message("ideal", true, 1000, p),
            one_message("ideal", true, 1000) + Time::from_ns(40));
  EXPECT_EQ(endpoint::endpoint_label("ideal", p),
            "ideal:message_overhead=30 ns:endpoint_delay=10 ns");
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
  // 64 KiB over the memory bus (72818 ps at 900 GB/s) then the NPU-NIC bus (131072 ps).
  EXPECT_EQ(probe.staged, ps(90000 + 72818) + ps(90000 + 131072));
  EXPECT_EQ(ace->stats().staged, 1u);
  EXPECT_EQ(ace->stats().bus_transfers, 2u);
}

TEST(Endpoints, AceAdmissionBoundsChunksBySramPartitionAndStateMachines) {
  const auto t = topology::from_compact("fc:2", core::Bandwidth{100e9}, Time::from_ns(100));
  core::Simulation sim;
  network::AnalyticalBackend net(sim, t);
  endpoint::EndpointParams p;
  p.ace_sram = core::Bytes{4000};
  p.ace_state_machines = 4;
  auto ace = endpoint::find_endpoint("ace", "t").make(sim, net, t, p);
  endpoint::ChunkAdmission* a = ace->admission();
  ASSERT_NE(a, nullptr);
  a->shape({1, 2, 1});  // two phases and results: 1000, 2000 and 1000 bytes
  EXPECT_EQ(a->phases(), 2u);
  EXPECT_TRUE(a->try_enter(0, 600));
  EXPECT_FALSE(a->try_enter(0, 600));  // 1200 > 1000
  EXPECT_TRUE(a->try_enter(0, 400));
  // Phase 1: 2000 bytes but 4 machines / 2 phases = 2 chunk-stages at once.
  EXPECT_TRUE(a->try_enter(1, 10));
  EXPECT_TRUE(a->try_enter(1, 10));
  EXPECT_FALSE(a->try_enter(1, 10));
  a->leave(1, 10);
  EXPECT_TRUE(a->try_enter(1, 10));
  // The results partition needs no machine; an empty partition takes an oversize chunk.
  EXPECT_TRUE(a->try_enter(2, 5000));
  EXPECT_FALSE(a->try_enter(2, 1));
  EXPECT_EQ(ace->stats().oversize, 1u);
  a->shape({5, 5});  // later shapes do not change the partitions
  EXPECT_EQ(a->phases(), 2u);
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
  EXPECT_NE(r.err.find("--endpoint: unknown endpoint \"acee\"; valid: ideal, baseline, "
                       "baseline++, ace"),
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
      "collective -t ring:4 -a ring -s 1MiB -b analytical --endpoint ideal,baseline,ace "
      "--endpoint-param link_efficiency=94% --format csv -q");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(",ideal:link_efficiency=94%,,\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",baseline:link_efficiency=94%,bus_queuing_ns="), std::string::npos);
  EXPECT_NE(r.out.find(",ace:link_efficiency=94%,"), std::string::npos);
  EXPECT_NE(r.out.find("dma_transfers=8"), std::string::npos) << r.out;  // 4 NPUs in and out
}

}  // namespace
}  // namespace collsim
