// MultiTree's NI execution model (Sec. IV-A; the authors' simulator's --strict-schedule and
// --estimate-lockstep) on the packet backend, and the aggregation cost of a received reduction
// message on the ideal endpoint (their cycle model).
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "endpoint/endpoint.hpp"
#include "network/flow.hpp"
#include "network/packet.hpp"
#include "recorder.hpp"
#include "topology/builders.hpp"

namespace collsim::network {
namespace {

// NPUs 0 and 1, 16 GB/s (a 16 B flit per ns) and 10 ns each way.
topology::Topology pair() {
  const core::Bandwidth bw{16e9};
  const core::Time lat = core::Time::from_ns(10);
  return topology::Topology::graph(
      "pair", 2, 2, {topology::Link{0, 1, bw, lat, 0}, topology::Link{1, 0, bw, lat, 0}});
}

BackendOptions one_ni(bool strict, bool estimate) {
  BackendOptions o;
  o.packet.schedule_ni = true;
  o.packet.strict_schedule = strict;
  o.packet.estimate_lockstep = estimate;
  return o;
}

// Sends one message when its event fires.
struct Later final : core::EventHandler {
  void on_event(std::uint64_t) override { net->send(0, 1, core::Bytes{2560}, *rec, 1, attrs); }
  Backend* net = nullptr;
  DeliveryHandler* rec = nullptr;
  MessageAttributes attrs;
};

MessageAttributes step(std::uint32_t s) {
  MessageAttributes a;
  a.priority = s;
  a.flow = 0;
  return a;
}

// Gives NPU 0 the plan SENDS (its messages per step, from step 1) of BYTES each, and sends one
// message of BYTES at step S with tag TAG.
void plan_and_send(PacketBackend& net, testing::Recorder& rec, std::vector<std::uint32_t> sends,
                   std::uint64_t bytes, std::uint64_t tag, std::uint32_t s) {
  StepPlan plan;
  plan.sends = {std::move(sends), {}};
  plan.flow_bytes = bytes;
  net.set_step_plan(0, plan);
  net.send(0, 1, core::Bytes{bytes}, rec, tag, step(s));
}

// NPU 0 sends its step-2 message before its step-1 message is ready. Without strict order its
// one NI takes the step-2 message at once; with it, step 2 waits until step 1's message is out.
TEST(ScheduleNi, StrictScheduleSendsStepsInOrder) {
  const auto topo = pair();
  for (bool strict : {false, true}) {
    core::Simulation sim;
    PacketBackend net(sim, topo, one_ni(strict, false));
    testing::Recorder rec(sim);
    plan_and_send(net, rec, {0, 1, 1}, 2560, 2, 2);
    Later later;
    later.net = &net;
    later.rec = &rec;
    later.attrs = step(1);
    sim.schedule_in(core::Time::from_ns(5), later, 0);
    sim.run();
    // 10 packets of 17 flits: 170 ns of injection each.
    if (strict) {
      EXPECT_EQ(rec.injected.at(1), core::Time::from_ns(5 + 170).ps);
      EXPECT_EQ(rec.injected.at(2), core::Time::from_ns(5 + 340).ps);
    } else {
      EXPECT_EQ(rec.injected.at(2), core::Time::from_ns(170).ps);
      EXPECT_EQ(rec.injected.at(1), core::Time::from_ns(340).ps);
    }
  }
}

// A step in which the NPU sends nothing lasts the authors' estimate: m = 100 messages of 256 B,
// 17 m - 58 x 16 = 772 cycles at 1 GHz; without estimate_lockstep it is skipped.
TEST(ScheduleNi, EstimatedLockstepWaitsOutNoOpSteps) {
  const auto topo = pair();
  for (bool estimate : {false, true}) {
    core::Simulation sim;
    PacketBackend net(sim, topo, one_ni(true, estimate));
    testing::Recorder rec(sim);
    plan_and_send(net, rec, {0, 0, 1}, 25600, 0, 2);
    sim.run();
    EXPECT_EQ(rec.injected.at(0), core::Time::from_ns((estimate ? 772 : 0) + 1700).ps) << estimate;
  }
  EXPECT_THROW(
      {
        core::Simulation sim;
        PacketBackend net(sim, topo, one_ni(false, true));
      },
      core::InputError);
}

// Aggregation on the receiving NPU: 96000 FP32 parameters (375 KiB) take
// ceil(ceil(96000 / 16) / 32) x 16 = 3008 cycles at 1 GHz after the last byte, and a second
// message arriving at the same time waits for the first's.
TEST(ScheduleNi, AggregationCostPerReceivedReduction) {
  const auto topo = pair();
  const std::uint64_t bytes = 384000;
  for (std::uint32_t pe : {0u, 32u}) {
    core::Simulation sim;
    FlowBackend net(sim, topo, {});
    endpoint::EndpointParams p;
    p.aggregation_pe = pe;
    endpoint::Ideal ep(sim, net, p);
    testing::Recorder rec(sim);
    endpoint::Message m;
    m.src = 0;
    m.dst = 1;
    m.bytes = core::Bytes{bytes};
    m.reduce = true;
    ep.send(m, rec, 0);
    ep.send(m, rec, 1);  // shares the link; its aggregation waits for the first's
    m.src = 1;
    m.dst = 0;
    m.reduce = false;
    ep.send(m, rec, 2);  // a copy: no aggregation
    sim.run();
    const std::int64_t wire = core::Time::from_ns(10).ps + 48'000'000;  // 2 x 384000 B at 16 GB/s
    const std::int64_t first = std::min(rec.delivered.at(0), rec.delivered.at(1));
    const std::int64_t second = std::max(rec.delivered.at(0), rec.delivered.at(1));
    EXPECT_EQ(first, wire + (pe ? 3'008'000 : 0)) << pe;
    EXPECT_EQ(second, wire + (pe ? 6'016'000 : 0)) << pe;
    EXPECT_EQ(rec.delivered.at(2), core::Time::from_ns(10).ps + 24'000'000) << pe;
    EXPECT_EQ(ep.messages_independent(), pe == 0);
  }
}

}  // namespace
}  // namespace collsim::network
