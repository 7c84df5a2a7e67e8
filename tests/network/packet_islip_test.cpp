// The packet backend's iSLIP switch allocation (switch_allocator islip; BookSim's `islip` with one
// iteration), checked grant by grant on a 2x2 case worked out by hand, against the default
// input-first allocator on the same case, plus determinism and the bounds on contended patterns.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "network/packet.hpp"
#include "recorder.hpp"
#include "topology/builders.hpp"

namespace collsim::network {
namespace {

struct Log final : PacketObserver {
  void on_packet_event(const PacketEvent& e) override {
    if (e.kind == PacketEvent::Kind::Grant) grants.push_back(e);
  }
  std::vector<PacketEvent> grants;
};

struct Grant {
  double at_ns = 0;
  std::string output, input;
  bool operator==(const Grant&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Grant& g) {
  return os << g.at_ns << " ns " << g.output << " <- " << g.input;
}

struct TwoByTwo {
  std::vector<Grant> grants;   // NPU 0's router: its two links, from its two injection ports
  std::vector<PacketEvent> all;
  double last_ns = 0;          // the last delivery
};

// NPU 0 of a bidirectional 3-ring, 2 NIs, 4 VCs: each NI sends 768 B (3 packets of 17 flits) to
// NPU 1 and 768 B to NPU 2, packets alternating between its two messages (ni_policy
// round-robin), so router 0's two injection ports (inputs A = NI 0, B = NI 1) both ask for both
// links (outputs X = link 0->1, Y = link 0->2): a 2x2 request matrix. 16 GB/s, 0 ns links.
TwoByTwo two_by_two(SwitchAllocator sa, Switching sw = Switching::VirtualCutThrough) {
  const topology::Topology topo =
      topology::ring(3, core::Bandwidth{16e9}, core::Time::from_ns(0), true);
  BackendOptions o;
  o.packet.nis_per_npu = 2;
  o.packet.switch_allocator = sa;
  o.packet.switching = sw;
  o.ni_policy = NiPolicy::RoundRobin;
  core::Simulation sim;
  PacketBackend net(sim, topo, o);
  Log log;
  net.set_packet_observer(&log);
  collsim::testing::Recorder rec(sim);
  std::uint64_t tag = 0;
  for (std::uint8_t ni : {0, 1}) {
    for (topology::NodeId dst : {1u, 2u}) {
      MessageAttributes a;
      a.ni = ni;
      net.send(0, dst, core::Bytes{768}, rec, tag++, a);
    }
  }
  sim.run();
  TwoByTwo r;
  r.all = log.grants;
  for (const PacketEvent& e : log.grants) {
    const std::string out = net.channel_name(e.channel), in = net.channel_name(e.in_channel);
    if ((out == "link 0->1" || out == "link 0->2") && in.find("injection") != std::string::npos) {
      r.grants.push_back({e.at.ps / 1000.0, out == "link 0->1" ? "X" : "Y",
                          in == "NPU 0 NI 0 injection" ? "A" : "B"});
    }
  }
  for (const auto& [t, at] : rec.delivered) r.last_ns = std::max(r.last_ns, at / 1000.0);
  return r;
}

TEST(PacketIslip, GrantsAndAcceptsByItsPointersOnATwoByTwoMatrix) {
  // Packets reach router 0 at 1 flit per ns, 17 ns apart per NI; the first to X ask at 2 ns, the
  // first to Y (each NI's second message) at 36 ns. By hand, with iSLIP's rule (an output grants
  // the first requesting port at or after its grant pointer, a port accepts the first granting
  // output at or after its accept pointer, both pointers move one past the other side only on
  // an acceptance, a declined output idles for the cycle):
  //   2 ns: only X is asked (A, B); pointer at the start: X grants A, A accepts.
  //         X's grant pointer -> past A; A's accept pointer -> past X.
  //  19 ns: X is free, asked by A and B: grants B (past A), B accepts. X's pointer -> past B.
  //  36 ns: X is free, asked by A and B: grants A (past B). Y, asked for the first time by A and
  //         B, grants A (its pointer at the start). A has two grants and accepts Y (past X):
  //         X's grant is declined and X idles this cycle although B asked for it.
  //  37 ns: X again (one cycle later): A is sending, B asks: X grants B, B accepts.
  //  54 ns: X (free at 54) asked by A and B grants A (past B); Y (free at 53, waited for B's
  //         port) asked by B grants B; both accepted.
  //  71 ns, 88 ns: the pointers have desynchronised: each output grants the other port in
  //         turn and every grant is accepted; then each NI's last packet to Y.
  const TwoByTwo r = two_by_two(SwitchAllocator::ISlip);
  const std::vector<Grant> want = {
      {2, "X", "A"},  {19, "X", "B"}, {36, "Y", "A"}, {37, "X", "B"}, {54, "X", "A"},
      {54, "Y", "B"}, {71, "X", "B"}, {71, "Y", "A"}, {88, "X", "A"}, {88, "Y", "B"},
      {105, "Y", "A"}, {122, "Y", "B"}};
  EXPECT_EQ(r.grants, want);
  // Each output sends 6 packets of 17 flits (102 ns of flits); with X's idle cycle at 36 ns the
  // last packet leaves Y at 139 ns and arrives whole at NPU 2 at 141 ns.
  EXPECT_DOUBLE_EQ(r.last_ns, 141.0);
}

TEST(PacketIslip, InputFirstMatchesBothOutputsWhereIslipLeavesOneIdle) {
  // The default allocator on the same case: at 36 ns port A offers its VC to X (its VC pointer),
  // X takes it, and port B's offer to Y is granted in the same instant: a full matching, no
  // idle cycle, and 1 ns earlier at the end.
  const TwoByTwo r = two_by_two(SwitchAllocator::InputFirst);
  ASSERT_GE(r.grants.size(), 4u);
  EXPECT_EQ(r.grants[2], (Grant{36, "X", "A"}));
  EXPECT_EQ(r.grants[3], (Grant{36, "Y", "B"}));
  EXPECT_DOUBLE_EQ(r.last_ns, 140.0);
}

TEST(PacketIslip, PerFlitUnderWormholeInterleavesPacketsOnALink) {
  // switching wormhole allocates the switch per flit: X alternates between A's and B's flits
  // from the start (each output then carries both ports' packets interleaved flit by flit).
  const TwoByTwo r = two_by_two(SwitchAllocator::ISlip, Switching::Wormhole);
  ASSERT_GE(r.grants.size(), 4u);
  EXPECT_EQ(r.grants[0].input, "A");
  EXPECT_EQ(r.grants[1].input, "B");
  EXPECT_EQ(r.grants[2].input, "A");
  EXPECT_EQ(r.grants[0].output, "X");
  EXPECT_EQ(r.grants[1].output, "X");
  EXPECT_DOUBLE_EQ(r.grants[1].at_ns - r.grants[0].at_ns, 1.0);  // one flit, one cycle
  // 6 x 17 flits per output, and one declined cycle or more: never below the link bound.
  EXPECT_GE(r.last_ns, 102.0);
  EXPECT_LE(r.last_ns, 160.0);
}

TEST(PacketIslip, SameInputsSameGrants) {
  for (Switching sw : {Switching::VirtualCutThrough, Switching::Wormhole}) {
    const TwoByTwo a = two_by_two(SwitchAllocator::ISlip, sw);
    const TwoByTwo b = two_by_two(SwitchAllocator::ISlip, sw);
    ASSERT_EQ(a.all.size(), b.all.size());
    for (std::size_t i = 0; i < a.all.size(); ++i) {
      EXPECT_EQ(a.all[i].at, b.all[i].at);
      EXPECT_EQ(a.all[i].channel, b.all[i].channel);
      EXPECT_EQ(a.all[i].in_channel, b.all[i].in_channel);
      EXPECT_EQ(a.all[i].in_vc, b.all[i].in_vc);
      EXPECT_EQ(a.all[i].out_vc, b.all[i].out_vc);
    }
    EXPECT_EQ(a.last_ns, b.last_ns);
  }
}

TEST(PacketIslip, ContendedPatternsStayWithinTheirBounds) {
  // All-to-all on small rings and tori, 16 KiB per message: completion never below the
  // busiest link's busy time nor the NI bound, and within 5% of the larger (one iteration
  // leaves an output idle for a cycle now and then; the pointers desynchronise after that).
  struct Case {
    std::string name;
    topology::Topology topo;
  };
  const core::Bandwidth bw{16e9};
  const core::Time lat = core::Time::from_ns(0);
  const std::vector<Case> cases = {{"bidir-ring4", topology::ring(4, bw, lat, true)},
                                   {"torus3x3", topology::torus({3, 3}, bw, lat)}};
  for (const Case& c : cases) {
    for (Switching sw : {Switching::VirtualCutThrough, Switching::Wormhole}) {
      BackendOptions o;
      o.packet.switch_allocator = SwitchAllocator::ISlip;
      o.packet.switching = sw;
      core::Simulation sim;
      PacketBackend net(sim, c.topo, o);
      collsim::testing::Recorder rec(sim);
      const std::uint32_t n = c.topo.num_npus();
      std::uint64_t tag = 0;
      for (std::uint32_t i = 0; i < n; ++i) {
        for (std::uint32_t j = 1; j < n; ++j) {
          net.send(i, (i + j) % n, core::Bytes{16384}, rec, tag++);
        }
      }
      sim.run();
      ASSERT_EQ(rec.delivered.size(), tag) << c.name;
      double last = 0, bound = 0;
      for (const auto& [t, at] : rec.delivered) last = std::max(last, at / 1000.0);
      for (const LinkStats& l : net.link_stats()) bound = std::max(bound, l.busy.ns());
      EXPECT_GE(last, bound) << c.name;
      // Here each NPU's one NI is the bottleneck: n - 1 messages of 1088 flits at 1 ns each.
      const double ni_bound = (n - 1) * static_cast<double>(net.flits_for(16384));
      EXPECT_GE(last, ni_bound) << c.name;
      EXPECT_LE(last, 1.05 * std::max(bound, ni_bound)) << c.name;
    }
  }
}

}  // namespace
}  // namespace collsim::network
