// Multipath routing on the flow and packet backends (network/multipath.hpp), on hand-derived
// max-min cases: fattree:4x2 at 1 GB/s (1 byte per ns), no latency. NPUs 0..15, leaf switches
// 16..19 (NPU i on leaf 16 + i/4), spines 20..23; between two leaves 4 equal-cost paths, one
// through each spine.
#include "network/multipath.hpp"

#include <gtest/gtest.h>

#include <set>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "network/flow.hpp"
#include "network/packet.hpp"
#include "recorder.hpp"
#include "topology/builders.hpp"
#include "topology/link_failures.hpp"

namespace collsim::network {
namespace {

using collsim::testing::Recorder;

topology::Topology ft42() {
  return topology::fat_tree(4, 2, core::Bandwidth{1e9}, core::Time{});
}

BackendOptions with(Multipath m, std::uint32_t seed = 0) {
  BackendOptions o;
  o.multipath = m;
  o.ecmp_seed = seed;
  return o;
}

// The spine ECMP sends flow src -> dst through (attributes {}), under `seed`.
topology::NodeId ecmp_spine(const topology::Topology& t, std::uint32_t seed, topology::NodeId src,
                            topology::NodeId dst) {
  PathChooser c(t, Multipath::Ecmp, seed, "flow");
  std::vector<topology::LinkId> r;
  c.append(src, dst, c.message_path(src, dst, {}), r);
  return t.links()[r[1]].dst;
}

// The first seed (from `from`) under which flows 0 -> 4 and 1 -> 5 (leaf 16 to leaf 17) hash onto
// the same spine (collide == true) or onto different spines.
std::uint32_t seed_where(const topology::Topology& t, bool collide, std::uint32_t from = 0) {
  for (std::uint32_t s = from; s < from + 1000; ++s) {
    if ((ecmp_spine(t, s, 0, 4) == ecmp_spine(t, s, 1, 5)) == collide) return s;
  }
  ADD_FAILURE() << "no such seed";
  return 0;
}

TEST(Multipath, EcmpSpreadsFlowsEvenlyOverThePaths) {
  // 4000 flows (0 -> 4, collective ids 0..3999) over 4 paths: each within 10% of 1000.
  const auto t = ft42();
  PathChooser c(t, Multipath::Ecmp, 7, "flow");
  std::map<topology::NodeId, int> per_spine;
  for (std::uint32_t f = 0; f < 4000; ++f) {
    MessageAttributes a;
    a.flow = f;
    std::vector<topology::LinkId> r;
    c.append(0, 4, c.message_path(0, 4, a), r);
    ++per_spine[t.links()[r[1]].dst];
  }
  ASSERT_EQ(per_spine.size(), 4u);
  for (const auto& [spine, n] : per_spine) {
    EXPECT_GT(n, 900) << spine;
    EXPECT_LT(n, 1100) << spine;
  }
}

TEST(Multipath, EcmpIsOnePathPerFlowAndTheSameForTheSameSeed) {
  const auto t = ft42();
  PathChooser a(t, Multipath::Ecmp, 3, "flow"), b(t, Multipath::Ecmp, 3, "flow");
  for (topology::NodeId d = 4; d < 16; ++d) {
    const std::uint64_t first = a.message_path(0, d, {});
    EXPECT_EQ(a.message_path(0, d, {}), first);  // a flow's every message
    EXPECT_EQ(b.message_path(0, d, {}), first);  // another run, same seed
  }
  // Another seed moves some flows.
  PathChooser c(t, Multipath::Ecmp, 4, "flow");
  int moved = 0;
  for (topology::NodeId d = 4; d < 16; ++d) {
    moved += a.message_path(0, d, {}) % 4 != c.message_path(0, d, {}) % 4;
  }
  EXPECT_GT(moved, 0);
}

TEST(Multipath, EcmpCollisionHalvesTwoFlowsAndSprayingRestoresFullRate) {
  // Flows 0 -> 4 and 1 -> 5 of 1000 B each. Deterministic d-mod-k (none) sends them up to spines
  // 0 and 1: 1 GB/s each, done at 1000 ns. ECMP under a seed that hashes both onto one up-link:
  // they share it, 0.5 GB/s each, done at 2000 ns; under a seed that separates them, 1000 ns.
  // spray-packet: each splits into 4 sub-flows of 250 B, one per up-link; each up-link carries
  // two sub-flows, the NPU links four: a sub-flow gets 1/4 GB/s (its NPU link), the message
  // 1 GB/s: 1000 ns again.
  const auto t = ft42();
  struct Case {
    BackendOptions opt;
    double rate;
    std::int64_t done_ps;
  };
  const Case cases[] = {
      {with(Multipath::None), 1e9, 1'000'000},
      {with(Multipath::Ecmp, seed_where(t, true)), 0.5e9, 2'000'000},
      {with(Multipath::Ecmp, seed_where(t, false)), 1e9, 1'000'000},
      {with(Multipath::SprayPacket), -1, 1'000'000},  // (rate_of sees sub-flows, not messages)
  };
  for (const Case& c : cases) {
    core::Simulation sim;
    FlowBackend net(sim, t, c.opt);
    Recorder rec(sim);
    net.send(0, 4, core::Bytes{1000}, rec, 1);
    net.send(1, 5, core::Bytes{1000}, rec, 2);
    sim.run(core::Time::from_ns(1));
    if (c.rate > 0) {
      EXPECT_DOUBLE_EQ(net.rate_of(1), c.rate) << static_cast<int>(c.opt.multipath);
      EXPECT_DOUBLE_EQ(net.rate_of(2), c.rate);
    }
    sim.run();
    EXPECT_EQ(rec.delivered[1], c.done_ps) << static_cast<int>(c.opt.multipath);
    EXPECT_EQ(rec.delivered[2], c.done_ps);
    EXPECT_EQ(rec.injected[1], c.done_ps);
  }
}

TEST(Multipath, SprayPacketOnFlowUsesEveryUpLinkEqually) {
  const auto t = ft42();
  core::Simulation sim;
  FlowBackend net(sim, t, with(Multipath::SprayPacket));
  Recorder rec(sim);
  net.send(0, 4, core::Bytes{1001}, rec, 1);  // 251 + 250 + 250 + 250
  sim.run();
  std::multiset<std::uint64_t> up;
  for (topology::LinkId l : t.out_links(16)) {
    if (t.links()[l].dst >= 20) up.insert(net.link_stats()[l].bytes);
  }
  EXPECT_EQ(up, (std::multiset<std::uint64_t>{250, 250, 250, 251}));
  EXPECT_EQ(rec.delivered[1], 1'001'000);  // 1001 B at the NPU link's 1 GB/s
}

TEST(Multipath, SprayMessageSendsASourcesMessagesRoundRobin) {
  // Four messages 0 -> 4 sent at once take the four up-links, one each (250 B per link).
  const auto t = ft42();
  core::Simulation sim;
  FlowBackend net(sim, t, with(Multipath::SprayMessage, 9));
  Recorder rec(sim);
  for (std::uint64_t m = 0; m < 4; ++m) net.send(0, 4, core::Bytes{250}, rec, m);
  sim.run();
  for (topology::LinkId l : t.out_links(16)) {
    if (t.links()[l].dst >= 20) {
      EXPECT_EQ(net.link_stats()[l].bytes, 250u);
    }
  }
}

TEST(Multipath, FailedUpLinkReroutesAndRatesDropAsComputed) {
  // Four flows of 3000 B from leaf 16 (NPUs 0..3) to leaf 17 (NPUs 4..7); leaf 16's up-link to
  // spine 20 failed both ways. none: d-mod-k sends i -> 4 + i through spine i; flow 0 -> 4 loses
  // its spine and takes the remaining shortest path with the lowest link id, through spine 21,
  // where it meets 1 -> 5: those two get 0.5 GB/s (6000 ns), the others 1 GB/s (3000 ns).
  // spray-packet: 3 paths left, a sub-flow on each; every up-link carries 4 sub-flows (1/4 GB/s
  // each), so each message gets 3/4 GB/s: 4000 ns.
  auto t = ft42();
  topology::apply_failed_links(t, "sw0-sw4", "test");
  for (const Multipath m : {Multipath::None, Multipath::SprayPacket}) {
    core::Simulation sim;
    FlowBackend net(sim, t, with(m));
    Recorder rec(sim);
    for (topology::NodeId i = 0; i < 4; ++i) net.send(i, 4 + i, core::Bytes{3000}, rec, i);
    sim.run();
    for (topology::LinkId l : t.failed_links()) EXPECT_EQ(net.link_stats()[l].bytes, 0u);
    if (m == Multipath::None) {
      EXPECT_EQ(rec.delivered[0], 6'000'000);
      EXPECT_EQ(rec.delivered[1], 6'000'000);
      EXPECT_EQ(rec.delivered[2], 3'000'000);
      EXPECT_EQ(rec.delivered[3], 3'000'000);
    } else {
      for (std::uint64_t i = 0; i < 4; ++i) EXPECT_EQ(rec.delivered[i], 4'000'000) << i;
    }
  }
}

TEST(Multipath, PacketBackendSpraysPacketsOverTheUpLinks) {
  // One 1024 B message 0 -> 4 is 4 packets of 256 B (17 flits of 16 B: 272 B on the wire).
  // ecmp: all four on one up-link; spray-packet: one on each.
  const auto t = ft42();
  for (const Multipath m : {Multipath::Ecmp, Multipath::SprayPacket}) {
    core::Simulation sim;
    PacketBackend net(sim, t, with(m));
    Recorder rec(sim);
    net.send(0, 4, core::Bytes{1024}, rec, 1);
    sim.run();
    ASSERT_EQ(rec.delivered.count(1), 1u);
    std::multiset<std::uint64_t> up;
    for (topology::LinkId l : t.out_links(16)) {
      if (t.links()[l].dst >= 20) up.insert(net.link_stats()[l].bytes);
    }
    const std::multiset<std::uint64_t> want =
        m == Multipath::Ecmp ? std::multiset<std::uint64_t>{0, 0, 0, 1088}
                             : std::multiset<std::uint64_t>{272, 272, 272, 272};
    EXPECT_EQ(up, want) << static_cast<int>(m);
  }
}

TEST(Multipath, PacketBackendCollisionCostsTimeThatSprayingGetsBack) {
  // Flows 0 -> 4 and 1 -> 5, 64 KiB each (256 packets). Colliding on one up-link they take about
  // twice as long as apart; spraying their packets brings them back to about the time apart.
  const auto t = ft42();
  auto time_of = [&](const BackendOptions& o) {
    core::Simulation sim;
    PacketBackend net(sim, t, o);
    Recorder rec(sim);
    net.send(0, 4, core::Bytes{65536}, rec, 1);
    net.send(1, 5, core::Bytes{65536}, rec, 2);
    sim.run();
    return std::max(rec.delivered[1], rec.delivered[2]);
  };
  const double apart = time_of(with(Multipath::Ecmp, seed_where(t, false)));
  const double together = time_of(with(Multipath::Ecmp, seed_where(t, true)));
  const double sprayed = time_of(with(Multipath::SprayPacket));
  EXPECT_GT(together / apart, 1.8);
  EXPECT_LT(together / apart, 2.1);
  EXPECT_GT(sprayed / apart, 0.95);
  EXPECT_LT(sprayed / apart, 1.1);
}

TEST(Multipath, SameSeedSameBytes) {
  const auto t = ft42();
  auto run = [&](std::uint32_t seed) {
    core::Simulation sim;
    FlowBackend net(sim, t, with(Multipath::Ecmp, seed));
    Recorder rec(sim);
    for (topology::NodeId i = 0; i < 16; ++i) net.send(i, (i + 4) % 16, core::Bytes{1000}, rec, i);
    sim.run();
    std::vector<std::uint64_t> bytes;
    for (const auto& s : net.link_stats()) bytes.push_back(s.bytes);
    return std::pair{bytes, rec.delivered};
  };
  EXPECT_EQ(run(5), run(5));
  EXPECT_NE(run(5).first, run(6).first);
}

TEST(Multipath, RefusedWhereItCannotApply) {
  const auto torus = topology::torus({4, 4}, core::Bandwidth{1e9}, core::Time{});
  const auto ft = ft42();
  const auto sw = topology::switch_star(8, core::Bandwidth{1e9}, core::Time{});
  core::Simulation sim;
  auto flow = [&](const topology::Topology& t, const BackendOptions& o) {
    FlowBackend b(sim, t, o);
  };
  auto packet = [&](const topology::Topology& t, const BackendOptions& o) {
    PacketBackend b(sim, t, o);
  };
  EXPECT_THROW(flow(torus, with(Multipath::Ecmp)), core::InputError);
  EXPECT_THROW(packet(torus, with(Multipath::SprayPacket)), core::InputError);
  EXPECT_THROW(flow(ft, with(Multipath::None, 3)), core::InputError);  // a seed without multipath
  BackendOptions fifo = with(Multipath::SprayPacket);
  fifo.ni_policy = NiPolicy::Fifo;
  EXPECT_THROW(flow(ft, fifo), core::InputError);
  BackendOptions mbfc = with(Multipath::SprayPacket);
  mbfc.packet.message_based_flow_control = true;
  EXPECT_THROW(packet(ft, mbfc), core::InputError);
  // A BiGraph's same-layer routes turn round in the other layer: spread over every path they
  // can deadlock the packet backend's buffers (spray-packet on all-to-all did), so it refuses.
  const auto bg = topology::bigraph(8, 4, core::Bandwidth{1e9}, core::Time{});
  EXPECT_TRUE(topology::has_flat_switch_links(bg));
  EXPECT_FALSE(topology::has_flat_switch_links(ft));
  EXPECT_THROW(packet(bg, with(Multipath::Ecmp)), core::InputError);
  EXPECT_NO_THROW(flow(bg, with(Multipath::SprayPacket)));
  EXPECT_NO_THROW(packet(ft, with(Multipath::SprayPacket)));
  // switch:N has one path per pair: accepted.
  EXPECT_NO_THROW(flow(sw, with(Multipath::SprayPacket)));
}

}  // namespace
}  // namespace collsim::network
