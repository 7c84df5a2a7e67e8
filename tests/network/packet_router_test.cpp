// The packet backend's router allocation (issue 37) as properties over small rings, tori and
// meshes with contended patterns (shifts, all-to-all, random permutations, incast), each run in
// milliseconds:
//  * with buffers of at least two packets plus the credit round trip, the credit delay (0, 1, 3
//    cycles) moves the completion time by at most 3%;
//  * more VCs than one per class are never slower (up to the drain of the last packets: 1%), and
//    doubling them beyond that is never more than 10% slower;
//  * completion is never below the link-load bound (the busiest link's flits at its rate) nor
//    the NI bound, and equals the NI bound (within 2%) where an NI is the bottleneck.
// The allocation that showed the opposite before (docs/network-models.md, "Router allocation"):
// an output arbiter whose round-robin pointer was a position in a list that granted requests
// leave and new ones join at the end, so two VCs of one input port re-requesting in turn kept the
// pointer from ever reaching the other port's request.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "network/packet.hpp"
#include "recorder.hpp"
#include "topology/builders.hpp"

namespace collsim::network {
namespace {

struct Send {
  topology::NodeId src = 0, dst = 0;
};

struct Outcome {
  double completion_ns = 0;  // last delivery
  double link_bound_ns = 0;  // busiest link's busy time
  double ni_bound_ns = 0;    // busiest NI: the flits it injects or ejects, at one flit per ns
};

constexpr std::uint64_t kBytes = 8192;  // 32 packets of 256 B per message

// Every message of `s` (BYTES each) at once; when the last arrived and the bounds.
Outcome run(const topology::Topology& topo, const BackendOptions& o, const std::vector<Send>& s,
            std::uint64_t bytes = kBytes) {
  core::Simulation sim;
  PacketBackend net(sim, topo, o);
  collsim::testing::Recorder rec(sim);
  for (std::uint64_t m = 0; m < s.size(); ++m) {
    net.send(s[m].src, s[m].dst, core::Bytes{bytes}, rec, m);
  }
  sim.run();
  Outcome out;
  for (std::uint64_t m = 0; m < s.size(); ++m) {
    out.completion_ns = std::max(out.completion_ns, rec.delivered.at(m) / 1000.0);
  }
  for (const LinkStats& l : net.link_stats()) {
    out.link_bound_ns = std::max(out.link_bound_ns, l.busy.ns());
  }
  std::vector<double> in(topo.num_npus()), ej(topo.num_npus());
  for (const Send& x : s) {
    in[x.src] += static_cast<double>(net.flits_for(bytes));  // 16 GB/s: 1 ns per 16 B flit
    ej[x.dst] += static_cast<double>(net.flits_for(bytes));
  }
  for (std::size_t i = 0; i < in.size(); ++i) {
    out.ni_bound_ns = std::max({out.ni_bound_ns, in[i], ej[i]});
  }
  return out;
}

const core::Bandwidth kBw{16e9};
const core::Time kLat = core::Time::from_ns(0);

struct Case {
  std::string name;
  topology::Topology topo;
  std::vector<Send> sends;
  std::uint32_t min_vcs = 1;  // one VC per class: 2 where datelines split the VCs
};

std::vector<Send> shift(std::uint32_t n, std::uint32_t k) {
  std::vector<Send> s;
  for (std::uint32_t i = 0; i < n; ++i) s.push_back({i, (i + k) % n});
  return s;
}
std::vector<Send> all_to_all(std::uint32_t n) {
  std::vector<Send> s;
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t j = 1; j < n; ++j) s.push_back({i, (i + j) % n});
  }
  return s;
}
std::vector<Send> permutation(std::uint32_t n, std::uint32_t seed) {
  std::vector<topology::NodeId> p(n);
  for (std::uint32_t i = 0; i < n; ++i) p[i] = i;
  std::mt19937 rng(seed);
  std::shuffle(p.begin(), p.end(), rng);
  std::vector<Send> s;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (p[i] != i) s.push_back({i, p[i]});
  }
  return s;
}

std::vector<Case> contended_cases() {
  using topology::mesh;
  using topology::ring;
  using topology::torus;
  std::vector<Case> c;
  c.push_back({"ring3 all-to-all", ring(3, kBw, kLat, false), all_to_all(3), 2});
  c.push_back({"ring4 shift2", ring(4, kBw, kLat, false), shift(4, 2), 2});
  c.push_back({"ring4 all-to-all", ring(4, kBw, kLat, false), all_to_all(4), 2});
  c.push_back({"bidir-ring4 all-to-all", ring(4, kBw, kLat, true), all_to_all(4), 2});
  c.push_back({"torus4x4 shift2", torus({4, 4}, kBw, kLat), shift(16, 2), 2});
  c.push_back({"torus4x4 permutation", torus({4, 4}, kBw, kLat), permutation(16, 7), 2});
  c.push_back({"torus3x3 all-to-all", torus({3, 3}, kBw, kLat), all_to_all(9), 2});
  c.push_back({"mesh3x3 all-to-all", mesh({3, 3}, kBw, kLat), all_to_all(9), 1});
  c.push_back({"mesh4x4 permutation", mesh({4, 4}, kBw, kLat), permutation(16, 11), 1});
  c.push_back({"mesh4x4 shift5", mesh({4, 4}, kBw, kLat), shift(16, 5), 1});
  return c;
}

// 2 packets of 17 flits plus a credit round trip of up to 1 (flit) + 3 (credit delay) + 1
// (pipeline) cycles, and the default 318.
constexpr std::uint32_t kBuffers[] = {40, 318};

TEST(PacketRouter, CreditDelayMovesCompletionByAtMostThreePercent) {
  for (const Case& c : contended_cases()) {
    for (std::uint32_t buffer : kBuffers) {
      for (std::uint32_t vcs : {c.min_vcs, 2 * c.min_vcs, 4 * c.min_vcs}) {
        double lo = 1e300, hi = 0;
        for (std::uint32_t cd : {0u, 1u, 3u}) {
          BackendOptions o;
          o.packet.vcs = vcs;
          o.packet.vc_buffer_flits = buffer;
          o.packet.credit_delay_cycles = cd;
          const double t = run(c.topo, o, c.sends).completion_ns;
          lo = std::min(lo, t);
          hi = std::max(hi, t);
        }
        EXPECT_LE(hi / lo, 1.03) << c.name << ", " << vcs << " VCs of " << buffer << " flits";
      }
    }
  }
}

TEST(PacketRouter, MoreVirtualChannelsRelieveHeadOfLineBlocking) {
  for (const Case& c : contended_cases()) {
    for (std::uint32_t buffer : kBuffers) {
      BackendOptions o;
      o.packet.vc_buffer_flits = buffer;
      o.packet.vcs = c.min_vcs;
      const double one_per_class = run(c.topo, o, c.sends).completion_ns;
      double previous = one_per_class;
      for (std::uint32_t vcs : {2 * c.min_vcs, 4 * c.min_vcs, 8 * c.min_vcs}) {
        o.packet.vcs = vcs;
        const double t = run(c.topo, o, c.sends).completion_ns;
        // Never slower than one VC per class, up to the drain of the last packets.
        EXPECT_LE(t, one_per_class * 1.01) << c.name << ", " << vcs << " VCs of " << buffer;
        EXPECT_LE(t, previous * 1.10) << c.name << ", " << vcs << " VCs of " << buffer;
        previous = t;
      }
    }
  }
}

TEST(PacketRouter, NeverBelowTheLinkLoadOrNiBound) {
  for (const Case& c : contended_cases()) {
    for (std::uint32_t vcs : {c.min_vcs, 4 * c.min_vcs}) {
      BackendOptions o;
      o.packet.vcs = vcs;
      const Outcome r = run(c.topo, o, c.sends);
      EXPECT_GE(r.completion_ns, r.link_bound_ns) << c.name;
      EXPECT_GE(r.completion_ns, r.ni_bound_ns) << c.name;
      // A loose upper side: within 1.5x the larger bound (the NI's message FIFO may leave links
      // idle; docs/network-models.md lists the measured ratios).
      EXPECT_LE(r.completion_ns, 1.5 * std::max(r.link_bound_ns, r.ni_bound_ns)) << c.name;
    }
  }
}

TEST(PacketRouter, EqualsTheNiBoundWhereAnNiIsTheBottleneck) {
  using topology::ring;
  using topology::torus;
  // Incast (every NPU to NPU 0: its ejection NI carries n - 1 messages) and scatter (NPU 0 to
  // every NPU: its injection NI), on rings and a torus whose links each carry less.
  std::vector<Case> cases;
  for (std::uint32_t n : {4u, 6u}) {
    std::vector<Send> incast, scatter;
    for (std::uint32_t i = 1; i < n; ++i) {
      incast.push_back({i, 0});
      scatter.push_back({0, i});
    }
    cases.push_back({"bidir-ring incast", ring(n, kBw, kLat, true), incast, 2});
    cases.push_back({"bidir-ring scatter", ring(n, kBw, kLat, true), scatter, 2});
  }
  std::vector<Send> incast;
  for (std::uint32_t i = 1; i < 16; ++i) incast.push_back({i, 0});
  cases.push_back({"torus4x4 incast", torus({4, 4}, kBw, kLat), incast, 2});
  for (const Case& c : cases) {
    for (std::uint32_t vcs : {2u, 4u, 8u}) {
      BackendOptions o;
      o.packet.vcs = vcs;
      const Outcome r = run(c.topo, o, c.sends);
      ASSERT_GE(r.ni_bound_ns, r.link_bound_ns) << c.name;
      EXPECT_GE(r.completion_ns, r.ni_bound_ns) << c.name;
      EXPECT_LE(r.completion_ns, 1.02 * r.ni_bound_ns) << c.name << ", " << vcs << " VCs";
    }
  }
}

TEST(PacketRouter, TheIssueTorusStepIsAtTheBoundForEveryCreditDelayAndVcCount) {
  // Every NPU of a 4x4 torus sends 64 KiB to x + 2 (the x+2 step of the issue): each +x link
  // carries two 2-hop flows, 2 x 4352 flits, so the link-load bound is 8704 ns. Before issue 37
  // it took 15,167 ns at 4 VCs with a credit delay of 1 and 8,757 ns with 0.
  std::vector<Send> s;
  for (std::uint32_t y = 0; y < 4; ++y) {
    for (std::uint32_t x = 0; x < 4; ++x) s.push_back({y * 4 + x, y * 4 + (x + 2) % 4});
  }
  topology::Topology topo = topology::torus({4, 4}, kBw, kLat);
  topo.set_ring_tie(topology::RingTie::Plus);
  for (std::uint32_t vcs : {2u, 4u, 8u}) {
    for (std::uint32_t cd : {0u, 1u, 3u}) {
      BackendOptions o;
      o.packet.vcs = vcs;
      o.packet.credit_delay_cycles = cd;
      const double t = run(topo, o, s, 65536).completion_ns;
      EXPECT_GE(t, 8704.0) << vcs << " VCs, credit delay " << cd;
      EXPECT_LE(t, 8704.0 * 1.01) << vcs << " VCs, credit delay " << cd;
    }
  }
}

TEST(PacketRouter, TheLegacyAllocationStillReproducesTheIssue) {
  // --credit-return per-packet --vc-select most-free --switch-allocator output-order: collsim's
  // allocation before issue 37, kept to reproduce old results; its known deviation is pinned
  // here as one (ring:3 all-to-all at 4 VCs: 1.33x its bound with a credit delay of 1).
  BackendOptions o;
  o.packet.credit_return = CreditReturn::PerPacket;
  o.packet.vc_select = VcSelect::MostFree;
  o.packet.switch_allocator = SwitchAllocator::OutputOrder;
  o.packet.vcs = 4;
  const topology::Topology topo = topology::ring(3, kBw, kLat, false);
  const double t = run(topo, o, all_to_all(3), 65536).completion_ns;
  EXPECT_NEAR(t / 13056.0, 1.33, 0.02);
}

}  // namespace
}  // namespace collsim::network
