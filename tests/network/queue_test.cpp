// The queue backend (per-link FIFO, store-and-forward): hand-worked timings in picoseconds,
// agreement with analytical where nothing contends, slowdown where traffic crosses, and every
// algorithm running to completion, deterministically.
// Notation: a = link latency, B = link bandwidth, ser(x) = ceil(x / B) in ps.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/execute.hpp"
#include "collective/algorithm.hpp"
#include "collective/ir/verifier.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "network/analytical.hpp"
#include "network/backend.hpp"
#include "network/queue.hpp"
#include "scheduler/executor.hpp"
#include "topology/builders.hpp"

namespace collsim {
namespace {

using collective::Collective;

const core::Bandwidth kBw{16e9};  // 16 GB/s
const core::Time kLat = core::Time::from_ns(150);

// Records when each tag was injected and delivered. Optionally sends a follow-up message from
// on_injected, the way the executor starts the next message on a channel.
class Recorder final : public network::DeliveryHandler {
 public:
  explicit Recorder(core::Simulation& sim) : sim_(sim) {}

  void on_injected(std::uint64_t tag) override {
    EXPECT_FALSE(injected.contains(tag)) << "tag " << tag << " injected twice";
    EXPECT_FALSE(delivered.contains(tag)) << "tag " << tag << " delivered before injected";
    injected[tag] = sim_.now().ps;
    if (chain_backend != nullptr && tag + 1 < chain_count) {
      chain_backend->send(chain_src, chain_dst, chain_bytes, *this, tag + 1);
    }
  }
  void on_delivered(std::uint64_t tag) override {
    EXPECT_FALSE(delivered.contains(tag)) << "tag " << tag << " delivered twice";
    delivered[tag] = sim_.now().ps;
  }

  std::map<std::uint64_t, std::int64_t> injected, delivered;
  // Chaining: after tag k is injected, send tag k+1 (for k+1 < chain_count).
  network::Backend* chain_backend = nullptr;
  topology::NodeId chain_src = 0, chain_dst = 0;
  core::Bytes chain_bytes;
  std::uint64_t chain_count = 0;

 private:
  core::Simulation& sim_;
};

struct Outcome {
  core::Time time;
  std::vector<network::LinkStats> stats;
};

template <typename Net>
Outcome simulate(const topology::Topology& t, const std::string& algo, Collective c,
                 std::uint64_t size, std::uint32_t chunks = 1) {
  const auto p = collective::build_program(collective::parse_algorithm(algo, "t"), t, c,
                                           core::Bytes{size}, chunks);
  core::Simulation sim;
  Net net(sim, t);
  const core::Time time = runtime::execute(p, net, sim).time;
  return Outcome{time, net.link_stats()};
}

Outcome on_queue(const topology::Topology& t, const std::string& algo, Collective c,
                 std::uint64_t size, std::uint32_t chunks = 1) {
  return simulate<network::QueueBackend>(t, algo, c, size, chunks);
}
Outcome on_analytical(const topology::Topology& t, const std::string& algo, Collective c,
                      std::uint64_t size, std::uint32_t chunks = 1) {
  return simulate<network::AnalyticalBackend>(t, algo, c, size, chunks);
}

TEST(QueueBackend, IsRegisteredAfterAnalytical) {
  const auto& all = network::backends();
  ASSERT_GE(all.size(), 2u);
  EXPECT_EQ(all[0].name, "analytical");
  EXPECT_EQ(all[1].name, "queue");
  const network::BackendInfo& info = network::find_backend("queue", "backend");
  EXPECT_TRUE(info.params.empty());  // no NPU limits, no packet options
  EXPECT_FALSE(info.description.empty());

  const auto topo = topology::ring(4, kBw, kLat, false);
  core::Simulation sim;
  EXPECT_EQ(network::make_backend(info, sim, topo, {}, "backend")->name(), "queue");
  network::BackendOptions capped;
  capped.npu_injection_bandwidth = core::Bandwidth{1e9};
  EXPECT_THROW(network::make_backend(info, sim, topo, capped, "backend"), core::InputError);
}

TEST(QueueBackend, EqualsAnalyticalOnContentionFreeOneHopTraffic) {
  // Every message crosses one link that no other message uses at the same time (one channel per
  // link, one message per channel in flight), so both backends give now + ser + a per message.
  // The times are then equal to the picosecond, which is stronger than 1e-9 relative.
  const std::uint64_t s = 8 * (4ull << 20);  // a multiple of 8: whole S/N slices
  const auto ring = topology::from_compact("ring:8", kBw, kLat);
  for (Collective c : {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather}) {
    for (std::uint32_t chunks : {1u, 4u}) {
      // Ring all-reduce, closed form 2(N-1)(a + S/(N B)) (validation/closed_form_test.cpp).
      EXPECT_EQ(on_queue(ring, "ring", c, s, chunks).time,
                on_analytical(ring, "ring", c, s, chunks).time)
          << to_string(c) << " chunks " << chunks;
    }
  }
  const auto fc = topology::from_compact("fc:8", kBw, kLat);
  for (Collective c : collective::all_collectives()) {
    for (const char* algo : {"direct", "halving-doubling", "recursive-doubling"}) {
      if (!collective::find_algorithm(algo, "t").supports(c)) continue;
      const core::Time q = on_queue(fc, algo, c, s).time;
      const core::Time a = on_analytical(fc, algo, c, s).time;
      EXPECT_EQ(q, a) << algo << " " << to_string(c);
      EXPECT_NEAR(q.seconds(), a.seconds(), a.seconds() * 1e-9);
    }
  }
  // Direct reduce-scatter on fc:8, closed form a + S/(N B) = 150 ns + 4 MiB / 16 GB/s
  // = 150,000 ps + ceil(4,194,304 B * 1e12 / 16e9) ps = 150,000 + 262,144,000 = 262,294,000 ps.
  EXPECT_EQ(on_queue(fc, "direct", Collective::ReduceScatter, s).time.ps, 262'294'000);
}

TEST(QueueBackend, SecondMessageWaitsAtASharedSwitchLink) {
  // switch:3, every link 1 GB/s (1 byte = 1,000 ps) and a = 100 ns = 100,000 ps.
  // At t = 0, A: NPU 0 -> NPU 2, 3,000 bytes (ser 3,000,000 ps per link);
  //           B: NPU 1 -> NPU 2, 4,000 bytes (ser 4,000,000 ps per link).
  // Routes: A = up0, down2; B = up1, down2. They meet on down2 (switch -> NPU 2).
  //   A: up0 0 .. 3,000,000 (injected); at the switch 3,100,000; down2 3,100,000 .. 6,100,000;
  //      delivered 6,100,000 + 100,000 = 6,200,000.
  //   B: up1 0 .. 4,000,000 (injected); at the switch 4,100,000, down2 busy with A until
  //      6,100,000, so B waits 2,000,000 ps; down2 6,100,000 .. 10,100,000;
  //      delivered 10,200,000.
  // Analytical would deliver B at 4,000,000 + 2 * 100,000 = 4,200,000 (no waiting).
  const core::Bandwidth bw{1e9};
  const core::Time lat = core::Time::from_ns(100);
  const auto topo = topology::switch_star(3, bw, lat);
  const auto route_a = topo.route(0, 2), route_b = topo.route(1, 2);
  ASSERT_EQ(route_a.size(), 2u);
  ASSERT_EQ(route_b.size(), 2u);
  ASSERT_EQ(route_a[1], route_b[1]);

  core::Simulation sim;
  network::QueueBackend net(sim, topo);
  Recorder rec(sim);
  net.send(0, 2, core::Bytes{3000}, rec, 0);
  net.send(1, 2, core::Bytes{4000}, rec, 1);
  EXPECT_TRUE(rec.injected.empty());  // callbacks come from events, never from send()
  sim.run();
  EXPECT_EQ(rec.injected.at(0), 3'000'000);
  EXPECT_EQ(rec.delivered.at(0), 6'200'000);
  EXPECT_EQ(rec.injected.at(1), 4'000'000);
  EXPECT_EQ(rec.delivered.at(1), 10'200'000);

  // LinkStats: up0 3,000 B busy 3 us; up1 4,000 B busy 4 us; down2 7,000 B busy 7 us; the
  // other links (up2, down0, down1) nothing.
  const auto& st = net.link_stats();
  ASSERT_EQ(st.size(), topo.links().size());
  EXPECT_EQ(st[route_a[0]].bytes, 3000u);
  EXPECT_EQ(st[route_a[0]].busy.ps, 3'000'000);
  EXPECT_EQ(st[route_b[0]].bytes, 4000u);
  EXPECT_EQ(st[route_b[0]].busy.ps, 4'000'000);
  EXPECT_EQ(st[route_a[1]].bytes, 7000u);
  EXPECT_EQ(st[route_a[1]].busy.ps, 7'000'000);
  std::uint64_t total = 0;
  for (const auto& s : st) total += s.bytes;
  EXPECT_EQ(total, 14'000u);  // 2 links x 3,000 + 2 links x 4,000
}

TEST(QueueBackend, SameSourceMessagesQueueOnTheFirstLink) {
  // Unidirectional ring:3 (0 -> 1 -> 2 -> 0), 1 GB/s, a = 100 ns. At t = 0, in this order,
  //   A: 0 -> 1, 4,000 bytes (one hop), B: 0 -> 2, 2,000 bytes (hops 0->1, 1->2).
  // Link 0->1 serves A first: 0 .. 4,000,000 (A injected), A delivered 4,100,000.
  // B starts on 0->1 at 4,000,000, ends 6,000,000 (B injected: the wait delays injection too),
  // reaches NPU 1 at 6,100,000, crosses 1->2 6,100,000 .. 8,100,000, delivered 8,200,000.
  const auto topo = topology::ring(3, core::Bandwidth{1e9}, core::Time::from_ns(100), false);
  core::Simulation sim;
  network::QueueBackend net(sim, topo);
  Recorder rec(sim);
  net.send(0, 1, core::Bytes{4000}, rec, 0);
  net.send(0, 2, core::Bytes{2000}, rec, 1);
  sim.run();
  EXPECT_EQ(rec.injected.at(0), 4'000'000);
  EXPECT_EQ(rec.delivered.at(0), 4'100'000);
  EXPECT_EQ(rec.injected.at(1), 6'000'000);
  EXPECT_EQ(rec.delivered.at(1), 8'200'000);
  // Link 0->1 carried both (6,000 B, busy 6 us); link 1->2 only B.
  const auto& st = net.link_stats();
  const auto l01 = topo.route(0, 1).at(0), l12 = topo.route(1, 2).at(0);
  EXPECT_EQ(st[l01].bytes, 6000u);
  EXPECT_EQ(st[l01].busy.ps, 6'000'000);
  EXPECT_EQ(st[l12].bytes, 2000u);
  EXPECT_EQ(st[l12].busy.ps, 2'000'000);
}

TEST(QueueBackend, StoreAndForwardOverThreeHops) {
  // Unidirectional ring:4, B = 3 GB/s, a = 150 ns; 0 -> 3 is 3 hops. 1,000 bytes:
  //   ser = ceil(1,000 * 1e12 / 3e9) = ceil(333,333.3) = 333,334 ps, rounded per hop.
  //   delivered = 3 (a + ser) = 3 (150,000 + 333,334) = 1,450,002 ps; injected = ser = 333,334.
  // Analytical (cut-through) would give 3 a + ser = 783,334 ps.
  const auto topo = topology::ring(4, core::Bandwidth{3e9}, kLat, false);
  ASSERT_EQ(topo.hops(0, 3), 3u);
  {
    core::Simulation sim;
    network::QueueBackend net(sim, topo);
    Recorder rec(sim);
    net.send(0, 3, core::Bytes{1000}, rec, 7);
    sim.run();
    EXPECT_EQ(rec.injected.at(7), 333'334);
    EXPECT_EQ(rec.delivered.at(7), 1'450'002);
    for (topology::LinkId l : topo.route(0, 3)) {
      EXPECT_EQ(net.link_stats()[l].bytes, 1000u);
      EXPECT_EQ(net.link_stats()[l].busy.ps, 333'334);
    }
  }
  {
    core::Simulation sim;
    network::AnalyticalBackend net(sim, topo);
    Recorder rec(sim);
    net.send(0, 3, core::Bytes{1000}, rec, 7);
    sim.run();
    EXPECT_EQ(rec.delivered.at(7), 783'334);
  }
  {
    // Zero bytes: no serialization, only latency: injected at 0, delivered at 3 a = 450,000.
    core::Simulation sim;
    network::QueueBackend net(sim, topo);
    Recorder rec(sim);
    net.send(0, 3, core::Bytes{0}, rec, 0);
    sim.run();
    EXPECT_EQ(rec.injected.at(0), 0);
    EXPECT_EQ(rec.delivered.at(0), 450'000);
  }
}

TEST(QueueBackend, BackToBackMessagesPipelineAcrossHops) {
  // The source sends message k+1 when message k is injected (as the executor does), 4 messages
  // 0 -> 2 on unidirectional ring:3, 1 GB/s, a = 100 ns, 1,000 bytes: ser S = 1,000,000 ps,
  // a = 100,000 ps. Message k leaves link 0->1 at (k+1) S and reaches NPU 1 at (k+1) S + a; link
  // 1->2 finished message k-1 at k S + a, so nothing waits:
  //   injected(k) = (k+1) S,  delivered(k) = (k+2) S + 2 a.
  // The callbacks call send() from inside the backend's own events, so slots are reused.
  const auto topo = topology::ring(3, core::Bandwidth{1e9}, core::Time::from_ns(100), false);
  core::Simulation sim;
  network::QueueBackend net(sim, topo);
  Recorder rec(sim);
  rec.chain_backend = &net;
  rec.chain_src = 0;
  rec.chain_dst = 2;
  rec.chain_bytes = core::Bytes{1000};
  rec.chain_count = 4;
  net.send(0, 2, core::Bytes{1000}, rec, 0);
  sim.run();
  ASSERT_EQ(rec.delivered.size(), 4u);
  for (std::int64_t k = 0; k < 4; ++k) {
    EXPECT_EQ(rec.injected.at(k), (k + 1) * 1'000'000) << k;
    EXPECT_EQ(rec.delivered.at(k), (k + 2) * 1'000'000 + 200'000) << k;
  }
}

TEST(QueueBackend, CrossingMultiHopTrafficIsSlowerThanAnalytical) {
  // Direct all-to-all sends every pair at once: multi-hop routes share links, which analytical
  // ignores (every message gets the full bandwidth) and queue serializes.
  const std::uint64_t s = 1ull << 20;
  for (const char* spec : {"bidir-ring:8", "torus:4x4"}) {
    const auto topo = topology::from_compact(spec, kBw, kLat);
    const Outcome q = on_queue(topo, "direct", Collective::AllToAll, s);
    const Outcome a = on_analytical(topo, "direct", Collective::AllToAll, s);
    EXPECT_GT(q.time, a.time) << spec;
    // On queue a link never serializes two messages at once, so no link is busy longer than the
    // run; on analytical the busiest link is oversubscribed beyond it.
    core::Time q_max, a_max;
    for (const auto& st : q.stats) q_max = std::max(q_max, st.busy);
    for (const auto& st : a.stats) a_max = std::max(a_max, st.busy);
    EXPECT_LE(q_max, q.time) << spec;
    EXPECT_GT(a_max, a.time) << spec;
    // Both backends move the same bytes over the same routes.
    for (std::size_t l = 0; l < q.stats.size(); ++l) EXPECT_EQ(q.stats[l].bytes, a.stats[l].bytes);
  }
  // Ring all-reduce on a ring is one hop per step and one message per link: no contention.
  const auto ring = topology::from_compact("ring:8", kBw, kLat);
  const std::uint64_t s8 = 8 * (1ull << 20);
  const core::Time q = on_queue(ring, "ring", Collective::AllReduce, s8).time;
  const core::Time a = on_analytical(ring, "ring", Collective::AllReduce, s8).time;
  EXPECT_NEAR(q.seconds(), a.seconds(), a.seconds() * 1e-9);
  // Closed form 2(N-1)(a + S/(N B)) = 14 (150,000 + 65,536,000) ps = 919,604,000 ps.
  EXPECT_EQ(q.ps, 919'604'000);
}

bool power_of_two(std::uint32_t n) { return (n & (n - 1)) == 0; }

TEST(QueueBackend, EveryAlgorithmRunsDeterministically) {
  int runs = 0;
  for (const char* spec : {"ring:8", "bidir-ring:16", "fc:8", "switch:16", "torus:4x4", "mesh:4x4",
                           "torus:4x4x4", "hier:ring4xfc2xsw2"}) {
    const auto topo = topology::from_compact(spec, kBw, kLat);
    for (const collective::AlgorithmInfo& info : collective::algorithms()) {
      if (info.staged) continue;                               // scheduler/hierarchical_test.cpp
      if (!collective::refusal(info, topo).empty()) continue;  // e.g. ring-2d off grids
      for (Collective c : info.collectives) {
        for (std::uint32_t chunks : {1u, 3u}) {
          const std::string what =
              fmt::format("{} {} on {} chunks {}", info.name, to_string(c), spec, chunks);
          const auto choice = collective::make_choice(info, {}, info.name, "test");
          collective::Program p;
          try {
            p = collective::build_program(choice, topo, c, core::Bytes{1 << 20}, chunks);
          } catch (const core::InputError& e) {
            // Only power-of-two-only algorithms may refuse, and only on other counts.
            EXPECT_FALSE(power_of_two(topo.num_npus())) << what << ": " << e.what();
            continue;
          }
          const collective::Verdict v = collective::verify(p);
          EXPECT_TRUE(v.ok) << what << ": " << v.reason;

          Outcome first, second;
          for (Outcome* r : {&first, &second}) {
            core::Simulation sim;
            network::QueueBackend net(sim, topo);
            ASSERT_NO_THROW(r->time = runtime::execute(p, net, sim).time) << what;
            r->stats = net.link_stats();
            EXPECT_EQ(sim.pending(), 0u) << what;
          }
          EXPECT_GT(first.time, core::Time::zero()) << what;
          EXPECT_EQ(first.time, second.time) << what;
          for (std::size_t l = 0; l < first.stats.size(); ++l) {
            EXPECT_EQ(first.stats[l].bytes, second.stats[l].bytes) << what;
            EXPECT_EQ(first.stats[l].busy, second.stats[l].busy) << what;
            EXPECT_LE(first.stats[l].busy, first.time) << what << " link " << l;
          }
          ++runs;
        }
      }
    }
  }
  EXPECT_GE(runs, 8 * 2 * 4);  // at least ring's and direct's collectives everywhere
}

}  // namespace
}  // namespace collsim
