// MultiTree (ISCA'21) Fig. 9 trends at reduced size on the flow backend (examples/multitree/ runs
// the full sweep; docs/multitree.md has the numbers and the gaps): Table III links, 16 GB/s and
// 150 ns.
#include <gtest/gtest.h>

#include <string>

#include "collective/algorithm.hpp"
#include "endpoint/endpoint.hpp"
#include "network/flow.hpp"
#include "network/packet.hpp"
#include "runtime/execute.hpp"
#include "scheduler/executor.hpp"
#include "topology/builders.hpp"

#include "paper_settings.hpp"

namespace collsim {
namespace {

double time_of(const topology::Topology& t, const std::string& algo, std::uint64_t bytes) {
  const auto p =
      collective::build_program(collective::parse_algorithm(algo, "a"), t,
                                collective::Collective::AllReduce, core::Bytes{bytes}, 1);
  core::Simulation sim;
  network::FlowBackend net(sim, t, {});
  return runtime::execute(p, net, sim).time.seconds();
}

topology::Topology net(const char* spec) {
  return topology::from_compact(spec, core::Bandwidth{16e9}, core::Time::from_ns(150));
}

// Torus: MultiTree ahead of every other algorithm at every size (Fig. 9a). Mesh (Fig. 9b): ahead
// of every algorithm at small sizes, and of all but 2D-Ring at large ones. The paper has it ahead
// of 2D-Ring on the mesh at large sizes too; on the flow backend 2D-Ring is ahead there (a
// deviation, docs/multitree.md "Fig. 9 on the flow backend"), so that pair is not asserted.
TEST(MultiTreeValidation, AheadOfEveryAlgorithmOnTorusAndMesh) {
  for (const char* spec : {"torus:4x4", "mesh:4x4", "torus:8x8"}) {
    const auto t = net(spec);
    const bool mesh = std::string(spec).starts_with("mesh");
    for (std::uint64_t bytes : {32ull << 10, 1ull << 20, 16ull << 20}) {
      const double mt = time_of(t, "multitree", bytes);
      for (const char* other :
           {"ring", "ring-2d", "direct", "halving-doubling", "double-binary-tree"}) {
        if (mesh && bytes > (32u << 10) && std::string(other) == "ring-2d") continue;
        EXPECT_LT(mt, time_of(t, other, bytes)) << spec << " " << other << " " << bytes;
      }
    }
  }
  // Large sizes on the 8x8 torus: every NPU's four links at work, 3.5-4x Ring (a ring uses one
  // link of four; collsim 3.73x, T = 17 steps against the bound of 16). The paper gives Fig. 9
  // as plots only; its Fig. 11 training mean over Ring is 2.2x (docs/multitree.md).
  const auto t = net("torus:8x8");
  const double over_ring = time_of(t, "ring", 16 << 20) / time_of(t, "multitree", 16 << 20);
  EXPECT_GT(over_ring, 3.5);
  EXPECT_LT(over_ring, 4.0);
}

// Torus at large sizes: the double binary tree, whose rank-order trees map poorly on the torus,
// is the slowest of the paper's algorithms; 2D-Ring, with both dimensions at work, is 2x Ring.
TEST(MultiTreeValidation, DoubleBinaryTreeWorstAndTwoDRingAboveRingOnTorus) {
  for (const char* spec : {"torus:4x4", "torus:8x8"}) {
    const auto t = net(spec);
    const std::uint64_t bytes = 16ull << 20;
    const double dbt = time_of(t, "double-binary-tree", bytes);
    const double ring = time_of(t, "ring", bytes);
    for (const char* other : {"ring", "ring-2d", "multitree"}) {
      EXPECT_GT(dbt, 1.3 * time_of(t, other, bytes)) << spec << " " << other;
    }
    EXPECT_NEAR(ring / time_of(t, "ring-2d", bytes), 2.0, 0.05) << spec;
  }
}

// Fat tree and BiGraph (Fig. 9c-d): ahead of Ring at small sizes, the same at large ones ("both
// algorithms fully utilize the bandwidth": paper ratio 1, band 0.95-1.05). The paper's 32-node
// BiGraph is 8 switches of 4 NPUs.
TEST(MultiTreeValidation, SwitchedNetworksAheadSmallEvenLarge) {
  for (const char* spec : {"fattree:4x2", "bigraph:8x4"}) {
    const auto t = net(spec);
    EXPECT_LT(time_of(t, "multitree", 32 << 10), 0.5 * time_of(t, "ring", 32 << 10)) << spec;
    const double ratio = time_of(t, "multitree", 16 << 20) / time_of(t, "ring", 16 << 20);
    EXPECT_GT(ratio, 0.95) << spec;
    EXPECT_LT(ratio, 1.05) << spec;
  }
  // HDRM on the BiGraph: fewer steps than MultiTree, but each crosses the layers (3 links), so
  // it is behind at small sizes; at large ones it uses the full bandwidth too.
  const auto b = net("bigraph:8x4");
  EXPECT_GT(time_of(b, "hdrm", 32 << 10), 1.3 * time_of(b, "multitree", 32 << 10));
  EXPECT_NEAR(time_of(b, "hdrm", 16 << 20) / time_of(b, "multitree", 16 << 20), 1.0, 0.05);
}

// Fig. 9 on the packet backend (Table III routers, 4 NIs per NPU with the schedule-table NI),
// 4x4 torus at 1 MiB: MultiTree > 2D-Ring > Ring > double binary tree. (The paper's MultiTreeMsg
// gain of 6% is not asserted: collsim measures -9% to +3%, docs/multitree.md.)
double packet_time(const topology::Topology& t, const std::string& algo, std::uint64_t bytes,
                   bool mbfc) {
  const auto p =
      collective::build_program(collective::parse_algorithm(algo, "a"), t,
                                collective::Collective::AllReduce, core::Bytes{bytes}, 1);
  network::BackendOptions o;
  o.packet.nis_per_npu = 4;
  o.packet.schedule_ni = true;
  o.packet.message_based_flow_control = mbfc;
  core::Simulation sim;
  network::PacketBackend backend(sim, t, o);
  return runtime::execute(p, backend, sim).time.seconds();
}

TEST(MultiTreeValidation, PacketBackendOrderingOnTheTorus) {
  const auto t = net("torus:4x4");
  const std::uint64_t bytes = 1 << 20;
  const double mt = packet_time(t, "multitree", bytes, false);
  const double r2d = packet_time(t, "ring-2d", bytes, false);
  const double ring = packet_time(t, "ring", bytes, false);
  const double dbt = packet_time(t, "double-binary-tree", bytes, false);
  EXPECT_LT(1.4 * mt, r2d);
  EXPECT_LT(1.8 * r2d, ring);
  EXPECT_LT(ring, dbt);
}

// Fig. 10 at its smallest size (4x4 torus, 375 KiB per NPU) with the authors' NI execution
// (strict step order, estimated lockstep, 4 NIs, aggregation cost of 32x32 arrays): the paper's
// summary speedups of MultiTreeMsg, 3x over Ring and 1.4x over 2D-Ring (their four-flow form),
// each inside a band of about +-20% (examples/multitree/fig10 has the sweep to 256 NPUs).
double fig10_time(const std::string& algo, bool mbfc, bool legacy_allocation = false,
                  bool islip = false) {
  const auto t = net("torus:4x4");
  const auto p = collective::build_program(collective::parse_algorithm(algo, "a"), t,
                                           collective::Collective::AllReduce,
                                           core::Bytes{16ull * 375 * 1024}, 1);
  network::BackendOptions o = test::authors_ni(mbfc);
  if (legacy_allocation) {
    o.packet.credit_return = network::CreditReturn::PerPacket;
    o.packet.vc_select = network::VcSelect::MostFree;
    o.packet.switch_allocator = network::SwitchAllocator::OutputOrder;
  }
  if (islip) o.packet.switch_allocator = network::SwitchAllocator::ISlip;
  endpoint::EndpointParams ep;
  ep.aggregation_pe = 32;
  core::Simulation sim;
  network::PacketBackend backend(sim, t, o);
  endpoint::Ideal ideal(sim, backend, ep);
  scheduler::Executor ex(sim, ideal);
  const auto id = ex.start(p, {}, p.algorithm);
  sim.run();
  return ex.stats(id).end.seconds();
}

TEST(MultiTreeValidation, Fig10SpeedupOverRingAtSixteenNpus) {
  const double msg = fig10_time("multitree", true);
  const double ring = fig10_time("ring", false);
  EXPECT_GT(ring / msg, 2.4);  // collsim 3.03 (2.92 with the allocation before issue 37)
  EXPECT_LT(ring / msg, 3.6);
}

// Sec. VI-A: message-based flow control gains 6% over MultiTree with a head flit per 256 B
// packet (1/17 of the flits). At Fig. 10's 16-NPU size collsim gains 5.4% (1.05-1.07 at 1 and
// 16 MiB in the Fig. 9 packet table); band 1.02-1.10.
TEST(MultiTreeValidation, MessageBasedFlowControlGainsTheHeadFlits) {
  const double gain = fig10_time("multitree", false) / fig10_time("multitree", true);
  EXPECT_GT(gain, 1.02);
  EXPECT_LT(gain, 1.10);
}

// Known deviation (docs/multitree.md, "Fig. 10"): with the textbook router allocation (issue 37:
// fair round-robin arbiters, per-flit credits) the authors' four-flow 2D-Ring is as fast as
// MultiTreeMsg at 16 NPUs (0.93x; the paper: MultiTreeMsg 1.4x faster). collsim's allocation
// before issue 37, whose output arbiters could starve a transit port, slowed the 2D-Ring's
// contended links and gave 1.42x, inside the paper's band.
TEST(MultiTreeValidation, Fig10TwoDRingAsFastAsMultiTreeMsgUnderTheTextbookAllocatorKnownDeviation) {
  const double msg = fig10_time("multitree", true);
  const double r2d = fig10_time("ring-2d:directions=2", false);
  EXPECT_GT(r2d / msg, 0.85);
  EXPECT_LT(r2d / msg, 1.0);
  const double legacy_msg = fig10_time("multitree", true, true);
  const double legacy_r2d = fig10_time("ring-2d:directions=2", false, true);
  EXPECT_GT(legacy_r2d / legacy_msg, 1.3);
  EXPECT_LT(legacy_r2d / legacy_msg, 1.55);
}

// The same known deviation under BookSim's allocator, iSLIP with one iteration (the authors'
// setting; switch_allocator islip): at 16 NPUs it moves neither time by more than 0.2% (250.5 us
// and 269.0 us, 0.93x; docs/multitree.md, "Fig. 10"), so the allocator is not the gap. Per flit
// (switching wormhole, 25x the time of this test) it is 0.93x too, measured, not run here.
TEST(MultiTreeValidation, Fig10TwoDRingAsFastAsMultiTreeMsgUnderIslipKnownDeviation) {
  const double msg = fig10_time("multitree", true, false, true);
  const double r2d = fig10_time("ring-2d:directions=2", false, false, true);
  EXPECT_GT(r2d / msg, 0.85);
  EXPECT_LT(r2d / msg, 1.0);
}

}  // namespace
}  // namespace collsim
