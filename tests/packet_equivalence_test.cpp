// The packet backend simulates at packet granularity: one event per packet per hop, each packet's
// flits moving back to back, with timing taken from the flits (a channel's finish time is
// max(grant + flits * flit_time, tail arrival + pipeline + flit_time)). This file proves, on small
// cases, that it gives exactly the picosecond times of a flit-by-flit simulation of the same
// network rules: FlitReference below is that simulation, written independently, cycle by cycle,
// moving every flit on its own. Every channel's flit time, link latency, router pipeline and
// credit delay is a whole number of 1 ns cycles (16 B flits at 16 GB/s take 1 ns).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "core/units.hpp"
#include "network/backend.hpp"
#include "network/packet.hpp"
#include "topology/builders.hpp"
#include "topology/topology.hpp"

namespace collsim {
namespace {

using Cycle = std::int64_t;
constexpr std::int64_t kCyclePs = 1000;  // one cycle: 1 ns, the flit time of a 16 GB/s channel
const core::Bandwidth kBw{16e9};
constexpr std::uint32_t kNone = UINT32_MAX;

// One message: `bytes` from NPU src to NPU dst, handed to the network at cycle `at`.
struct Send {
  topology::NodeId src = 0;
  topology::NodeId dst = 0;
  std::uint64_t bytes = 0;
  Cycle at = 0;
};

// Per message (in the order of the sends): when its last flit had left the source NI and when
// its last flit had been ejected, in ps (-1: never).
struct Times {
  std::vector<std::int64_t> injected;
  std::vector<std::int64_t> delivered;
};

Cycle to_cycles(core::Time t, const char* what) {
  EXPECT_EQ(t.ps % kCyclePs, 0) << what << " (" << t.ps << " ps) is not a whole number of cycles";
  return t.ps / kCyclePs;
}

// ------------------------------------------------------------------------------------------------
// The flit-by-flit reference.
//
// Channels: each directed topology link, and per NPU one injection channel (NI -> its router) and
// one ejection channel (router -> NI), latency 0. A channel carries one flit per flit time: a flit
// that starts at cycle s is on the wire until s + flit time and is in the downstream buffer at
// s + flit time + latency. Every channel except an ejection channel ends in an input port of
// `vcs` VCs of vc_buffer_flits flits, and its sender keeps a credit counter per downstream VC. An
// NPU's NI source queue is unbounded and holds all of a message's flits from the cycle it is sent.
//
// Per cycle t, in this order:
//  1. new messages are split into packets (one head flit per packet, or only on the first with
//     message-based flow control) and join their NI queue;
//  2. credits due at t arrive;
//  3. flits due at t enter their VC (a head flit brings its packet into the VC's packet FIFO);
//  4. a channel whose tail flit finished at t is free; that packet has left its VC, and (for a
//     router VC) its credits start back to the upstream channel, arriving after that channel's
//     latency + the credit delay. Credits return per packet at the tail, as packet.cpp does; a
//     router returning them per flit would free buffer space earlier, which matters only when
//     a VC is not much larger than a packet;
//  5. a VC whose front packet is not yet granted and whose head flit has been in the VC for the
//     pipeline delay (0 in an NI queue) starts requesting the packet's next channel;
//  6. switch allocation, per packet (virtual cut-through): a free channel scans its requests
//     round-robin exactly as packet.cpp's try_grant does (requests kept in the order they were
//     made, the scan resumes at the one after the granted one) and grants the first whose packet
//     fits in a downstream VC of its class (the one with the most free space; ties: the lowest); the credits for the whole packet are
//     taken at the grant;
//  7. a granted channel sends its packet's next flit if its flit time since the previous flit has
//     passed and the flit has been in the VC for the pipeline delay. After the tail the channel
//     is free (step 4) for the next packet. There is no input-port constraint: two VCs of one
//     input port may send to two outputs in the same cycle (as in packet.cpp).
// Torus/ring dateline classes follow packet.cpp's rule (a new dimension starts in class 0, the
// wrap-around link and everything after it in that dimension use class 1).
class FlitReference {
 public:
  FlitReference(const topology::Topology& topo, const network::PacketOptions& opt)
      : topo_(topo), opt_(opt), vcs_(opt.vcs) {
    pipeline_ = to_cycles(opt.router_period * opt.router_pipeline_cycles, "router pipeline");
    credit_delay_ = to_cycles(opt.router_period * opt.credit_delay_cycles, "credit delay");
    const core::Bytes flit{opt.flit_bytes};
    bool datelines = false;
    for (const auto& d : topo.dimensions()) {
      datelines = datelines || (d.spec.kind == topology::DimKind::Ring && d.spec.size >= 3) ||
                  (d.spec.kind == topology::DimKind::UniRing && d.spec.size >= 2);
    }
    class_split_ = datelines;
    const auto& links = topo.links();
    for (const topology::Link& l : links) {
      Channel c;
      c.flit_cycles = to_cycles(core::transfer_time(flit, l.bandwidth), "link flit time");
      c.latency = to_cycles(l.latency, "link latency");
      c.dim = l.dim;
      c.link = true;
      if (datelines && topo.is_npu(l.src) && topo.is_npu(l.dst)) {
        const auto& spec = topo.dimensions()[l.dim].spec;
        if (spec.kind == topology::DimKind::Ring || spec.kind == topology::DimKind::UniRing) {
          const std::int64_t a = topo.coords(l.src)[l.dim], b = topo.coords(l.dst)[l.dim];
          c.dateline = std::abs(a - b) > 1 || (spec.size == 2 && a > b);
        }
      }
      channels_.push_back(c);
    }
    const std::uint32_t n = topo.num_npus();
    for (int ejection = 0; ejection < 2; ++ejection) {
      for (topology::NodeId npu = 0; npu < n; ++npu) {
        double bw = 0;
        for (topology::LinkId l : topo.out_links(npu)) {
          bw = std::max(bw, links[l].bandwidth.bytes_per_s);
        }
        if (opt.ni_bandwidth) bw = opt.ni_bandwidth->bytes_per_s;
        Channel c;
        c.flit_cycles = to_cycles(core::transfer_time(flit, core::Bandwidth{bw}), "NI flit time");
        c.ejection = ejection == 1;
        channels_.push_back(c);
      }
    }
    for (Channel& c : channels_) {
      if (!c.ejection) c.credits.assign(vcs_, opt.vc_buffer_flits);
    }
    vcs_of_.resize(channels_.size() * vcs_ + n);
    for (std::uint32_t ch = 0; ch < channels_.size(); ++ch) {
      for (std::uint32_t v = 0; v < vcs_; ++v) {
        vcs_of_[ch * vcs_ + v].upstream = ch;
        vcs_of_[ch * vcs_ + v].pipe = pipeline_;
      }
    }
  }

  Times run(const std::vector<Send>& sends) {
    Times out{std::vector<std::int64_t>(sends.size(), -1),
              std::vector<std::int64_t>(sends.size(), -1)};
    std::map<Cycle, std::vector<std::uint32_t>> starting;
    for (std::uint32_t m = 0; m < sends.size(); ++m) starting[sends[m].at].push_back(m);
    std::size_t done = 0;
    for (Cycle t = 0; done < sends.size(); ++t) {
      if (t > kMaxCycles) {
        ADD_FAILURE() << "reference: traffic still in the network after " << kMaxCycles
                      << " cycles";
        break;
      }
      // 1. New messages.
      for (std::uint32_t m : take(starting, t)) enqueue(sends[m], m, t);
      // 2. Credits.
      for (const CreditReturn& r : take(credits_due_, t)) channels_[r.channel].credits[r.vc] += r.n;
      // 3. Flits entering a VC.
      for (const Arrival& a : take(arrivals_, t)) {
        Vc& v = vcs_of_[a.vc];
        v.flits.push_back(Flit{a.packet, a.index, t});
        EXPECT_LE(v.flits.size(), opt_.vc_buffer_flits) << "VC overflow";
        if (a.index == 0) {
          Packet& p = packets_[a.packet];
          ++p.hop;
          p.head_arrived = t;
          v.packets.push_back(a.packet);
        }
      }
      // 4. Tails that finished.
      for (std::uint32_t ch : take(tails_, t)) {
        Channel& c = channels_[ch];
        c.busy = false;
        Vc& v = vcs_of_[c.src_vc];
        const std::uint32_t pid = v.packets.front();
        EXPECT_EQ(pid, c.packet);
        v.packets.pop_front();
        v.sending = false;
        const Packet& p = packets_[pid];
        if (v.upstream != kNone) {
          const Cycle due = t + channels_[v.upstream].latency + credit_delay_;
          const CreditReturn r{v.upstream, c.src_vc % vcs_, p.flits};
          if (due == t) {
            channels_[r.channel].credits[r.vc] += r.n;  // no delay: usable in this cycle
          } else {
            credits_due_[due].push_back(r);
          }
        } else if (p.last) {
          out.injected[p.message] = t * kCyclePs;
        }
        if (c.ejection && --packets_left_[p.message] == 0) {
          out.delivered[p.message] = t * kCyclePs;
          ++done;
        }
      }
      // 5. Requests, in VC order when several start in the same cycle.
      for (std::uint32_t id = 0; id < vcs_of_.size(); ++id) {
        Vc& v = vcs_of_[id];
        if (v.packets.empty() || v.requesting || v.sending) continue;
        const Packet& p = packets_[v.packets.front()];
        if (p.head_arrived + v.pipe > t) continue;
        v.requesting = true;
        channels_[paths_[p.message][p.hop]].requests.push_back(id);
      }
      // 6. Switch allocation.
      for (std::uint32_t ch = 0; ch < channels_.size(); ++ch) grant(ch, t);
      // 7. Flits leaving.
      for (std::uint32_t ch = 0; ch < channels_.size(); ++ch) send_flit(ch, t);
    }
    return out;
  }

  // Cycles in which a free channel had requests but no downstream VC with room for any of them.
  std::uint64_t credit_stalls() const { return credit_stalls_; }
  // Cycles in which a granted channel could not send because its next flit had not arrived.
  std::uint64_t flit_waits() const { return flit_waits_; }

 private:
  static constexpr Cycle kMaxCycles = 1'000'000;

  struct Channel {
    Cycle flit_cycles = 1;
    Cycle latency = 0;
    bool ejection = false;
    bool link = false;
    bool dateline = false;
    std::uint32_t dim = kNone;
    std::vector<std::uint32_t> credits;   // per downstream VC
    std::vector<std::uint32_t> requests;  // input VCs, in the order they started requesting
    std::size_t rr = 0;
    bool busy = false;  // granted to `packet` until its tail has finished
    std::uint32_t src_vc = 0, dst_vc = 0, packet = 0, sent = 0;
    Cycle next_start = 0;
  };
  struct Flit {
    std::uint32_t packet = 0;
    std::uint32_t index = 0;  // 0: the packet's first flit (its head)
    Cycle arrived = 0;
  };
  struct Vc {
    std::uint32_t upstream = kNone;  // the channel that fills it; kNone: an NI source queue
    Cycle pipe = 0;
    std::deque<Flit> flits;
    std::deque<std::uint32_t> packets;  // head arrived, tail not yet left; the front one competes
    bool requesting = false;
    bool sending = false;
  };
  struct Packet {
    std::uint32_t message = 0;
    std::uint32_t flits = 0;
    std::uint32_t hop = 0;  // index in the path of the channel it crosses next
    std::uint32_t vc_class = 0;
    std::uint32_t dim = kNone;
    Cycle head_arrived = 0;
    bool last = false;
  };
  struct Arrival {
    std::uint32_t vc = 0, packet = 0, index = 0;
  };
  struct CreditReturn {
    std::uint32_t channel = 0, vc = 0, n = 0;
  };

  template <typename T>
  static std::vector<T> take(std::map<Cycle, std::vector<T>>& due, Cycle t) {
    std::vector<T> now;
    if (auto it = due.find(t); it != due.end()) {
      now = std::move(it->second);
      due.erase(it);
    }
    return now;
  }

  std::uint32_t injection(topology::NodeId npu) const {
    return static_cast<std::uint32_t>(topo_.links().size()) + npu;
  }
  std::uint32_t ejection(topology::NodeId npu) const {
    return injection(npu) + topo_.num_npus();
  }

  void enqueue(const Send& s, std::uint32_t m, Cycle t) {
    std::vector<std::uint32_t> path{injection(s.src)};
    for (topology::LinkId l : topo_.route(s.src, s.dst)) path.push_back(l);
    path.push_back(ejection(s.dst));
    paths_.resize(std::max<std::size_t>(paths_.size(), m + 1));
    packets_left_.resize(paths_.size());
    paths_[m] = path;
    const std::uint32_t queue = static_cast<std::uint32_t>(channels_.size()) * vcs_ + s.src;
    Vc& q = vcs_of_[queue];
    std::uint64_t left = s.bytes;
    bool first = true;
    do {
      const std::uint64_t payload = std::min<std::uint64_t>(left, opt_.packet_payload_bytes);
      left -= payload;
      Packet p;
      p.message = m;
      const bool head = first || !opt_.message_based_flow_control;
      p.flits = static_cast<std::uint32_t>((payload + opt_.flit_bytes - 1) / opt_.flit_bytes) +
                (head ? 1 : 0);
      p.head_arrived = t;
      p.last = left == 0;
      const auto pid = static_cast<std::uint32_t>(packets_.size());
      packets_.push_back(p);
      for (std::uint32_t k = 0; k < p.flits; ++k) q.flits.push_back(Flit{pid, k, t});
      q.packets.push_back(pid);
      ++packets_left_[m];
      first = false;
    } while (left > 0);
  }

  std::uint32_t pick_vc(const Channel& c, const Packet& p) const {
    if (c.ejection) return 0;
    std::uint32_t cls = c.dim == p.dim ? p.vc_class : 0;
    if (c.dateline) cls = 1;
    const std::uint32_t lo = class_split_ ? cls * (vcs_ / 2) : 0;
    const std::uint32_t hi = class_split_ ? lo + vcs_ / 2 : vcs_;
    std::uint32_t best = kNone;
    for (std::uint32_t v = lo; v < hi; ++v) {
      if (c.credits[v] >= p.flits && (best == kNone || c.credits[v] > c.credits[best])) best = v;
    }
    return best;
  }

  void grant(std::uint32_t ch, Cycle t) {
    Channel& c = channels_[ch];
    if (c.busy || c.requests.empty()) return;
    const std::size_t n = c.requests.size();
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t idx = (c.rr + k) % n;
      const std::uint32_t id = c.requests[idx];
      Vc& v = vcs_of_[id];
      Packet& p = packets_[v.packets.front()];
      const std::uint32_t down = pick_vc(c, p);
      if (down == kNone) continue;
      if (std::getenv("EQUIV_DEBUG")) {
        std::string rq;
        for (auto r : c.requests) rq += " " + std::to_string(r);
        fprintf(stderr, "t=%lld grant ch %u to vc %u pkt %u (msg %u, %u flits) down %u; requests [%s] rr %zu\n",
                (long long)t, ch, id, v.packets.front(), p.message, p.flits, down, rq.c_str(), c.rr);
      }
      c.requests.erase(c.requests.begin() + static_cast<std::ptrdiff_t>(idx));
      c.rr = c.requests.empty() ? 0 : idx % c.requests.size();
      v.requesting = false;
      v.sending = true;
      c.busy = true;
      c.src_vc = id;
      c.packet = v.packets.front();
      c.sent = 0;
      c.next_start = t;
      if (!c.ejection) {
        c.credits[down] -= p.flits;
        c.dst_vc = ch * vcs_ + down;
      }
      if (c.link) {
        p.vc_class = (c.dim == p.dim ? p.vc_class : 0) | (c.dateline ? 1u : 0u);
        p.dim = c.dim;
      }
      return;
    }
    ++credit_stalls_;
  }

  void send_flit(std::uint32_t ch, Cycle t) {
    Channel& c = channels_[ch];
    if (!c.busy || c.sent == packets_[c.packet].flits || t < c.next_start) return;
    Vc& v = vcs_of_[c.src_vc];
    if (v.flits.empty() || v.flits.front().arrived + v.pipe > t) {
      ++flit_waits_;
      return;
    }
    const Flit f = v.flits.front();
    EXPECT_EQ(f.packet, c.packet);
    EXPECT_EQ(f.index, c.sent);
    v.flits.pop_front();
    if (!c.ejection) arrivals_[t + c.flit_cycles + c.latency].push_back({c.dst_vc, f.packet, f.index});
    c.next_start = t + c.flit_cycles;
    if (++c.sent == packets_[c.packet].flits) tails_[t + c.flit_cycles].push_back(ch);
  }

  const topology::Topology& topo_;
  network::PacketOptions opt_;
  std::uint32_t vcs_;
  bool class_split_ = false;
  Cycle pipeline_ = 0, credit_delay_ = 0;
  std::vector<Channel> channels_;
  std::vector<Vc> vcs_of_;  // channel c's VCs at c * vcs_ + v, then one NI queue per NPU
  std::vector<Packet> packets_;
  std::vector<std::vector<std::uint32_t>> paths_;  // per message: injection, links..., ejection
  std::vector<std::uint32_t> packets_left_;        // per message: not yet ejected
  std::map<Cycle, std::vector<Arrival>> arrivals_;
  std::map<Cycle, std::vector<CreditReturn>> credits_due_;
  std::map<Cycle, std::vector<std::uint32_t>> tails_;
  std::uint64_t credit_stalls_ = 0, flit_waits_ = 0;
};

// ------------------------------------------------------------------------------------------------
// PacketBackend driven directly: each send is an event at its cycle, and the callbacks record.
class Driver final : public core::EventHandler, public network::DeliveryHandler {
 public:
  Driver(core::Simulation& sim, network::Backend& net, const std::vector<Send>& sends)
      : sim_(sim), net_(net), sends_(sends) {
    times.injected.assign(sends.size(), -1);
    times.delivered.assign(sends.size(), -1);
  }
  void on_event(std::uint64_t m) override {
    const Send& s = sends_[m];
    net_.send(s.src, s.dst, core::Bytes{s.bytes}, *this, m);
  }
  void on_injected(std::uint64_t m) override {
    EXPECT_EQ(times.injected[m], -1) << "message " << m << " injected twice";
    times.injected[m] = sim_.now().ps;
  }
  void on_delivered(std::uint64_t m) override {
    EXPECT_EQ(times.delivered[m], -1) << "message " << m << " delivered twice";
    times.delivered[m] = sim_.now().ps;
  }
  Times times;

 private:
  core::Simulation& sim_;
  network::Backend& net_;
  const std::vector<Send>& sends_;
};

Times run_packet(const topology::Topology& topo, const network::PacketOptions& opt,
                 const std::vector<Send>& sends) {
  core::Simulation sim;
  network::BackendOptions options;
  options.packet = opt;
  network::PacketBackend net(sim, topo, options);
  Driver driver(sim, net, sends);
  for (std::uint32_t m = 0; m < sends.size(); ++m) {
    sim.schedule_at(core::Time::from_ps(sends[m].at * kCyclePs), driver, m);
  }
  sim.run();
  EXPECT_EQ(net.describe_blocked(), "");
  return driver.times;
}

// Runs both and expects equal times; returns the packet backend's.
Times expect_equivalent(const topology::Topology& topo, const network::PacketOptions& opt,
                        const std::vector<Send>& sends, FlitReference* ref_out = nullptr) {
  FlitReference local(topo, opt);
  FlitReference& ref = ref_out != nullptr ? *ref_out : local;
  const Times want = ref.run(sends);
  const Times got = run_packet(topo, opt, sends);
  for (std::size_t m = 0; m < sends.size(); ++m) {
    EXPECT_NE(want.delivered[m], -1) << "reference never delivered message " << m;
    EXPECT_EQ(got.injected[m], want.injected[m]) << "injected, message " << m;
    EXPECT_EQ(got.delivered[m], want.delivered[m]) << "delivered, message " << m;
  }
  return got;
}

// NPUs 0 - 1 - 2 joined by links both ways (routers are the NPUs' own).
topology::Topology line3(core::Time lat) {
  return topology::Topology::graph("line3", 3, 3,
                                   {{0, 1, kBw, lat, 0},
                                    {1, 0, kBw, lat, 0},
                                    {1, 2, kBw, lat, 0},
                                    {2, 1, kBw, lat, 0}});
}

// 64 B payload in 16 B flits: 5-flit packets (4 with message-based flow control, after the first).
network::PacketOptions small_options() {
  network::PacketOptions o;
  o.flit_bytes = 16;
  o.packet_payload_bytes = 64;
  o.vcs = 2;
  o.vc_buffer_flits = 20;
  o.router_period = core::Time::from_ns(1);
  o.router_pipeline_cycles = 1;
  o.credit_delay_cycles = 1;
  return o;
}

constexpr std::int64_t ns(std::int64_t v) { return v * kCyclePs; }

// Case 1. One 192 B message 0 -> 2: 3 packets of 5 flits, nothing else in the network.
// By hand (ns; flit time 1, link latency 2, pipeline 1, credit delay 1; credits never short):
//   packet 0: injection 0..5 (head in router 0 at 1); link 0->1 granted at 1+1 = 2, tail at
//     max(2+5, 5+1+1) = 7, head in router 1 at 2+1+2 = 5; link 1->2 granted at 6, tail at
//     max(11, 9+2) = 11, head in router 2 at 9; ejection granted at 10, tail at 15.
//   packet 1: injection 5..10 (head at 6); link 0->1 free at 7: 7..12; head in router 1 at 10,
//     link 1->2 at 11..16; head in router 2 at 14, ejection at 15..20.
//   packet 2: injection 10..15, so injected = 15; link 0->1 12..17, link 1->2 16..21, ejection
//     20..25, so delivered = 25 = first packet's 15 + 2 more packets of 5 flits each.
TEST(PacketEquivalence, OneMessageOnALineMatchesHandAndFlitByFlit) {
  const auto topo = line3(core::Time::from_ns(2));
  const Times t = expect_equivalent(topo, small_options(), {{0, 2, 192, 0}});
  EXPECT_EQ(t.injected[0], ns(15));
  EXPECT_EQ(t.delivered[0], ns(25));
}

// Case 2. 0 -> 2 and 1 -> 2 share link 1->2: round-robin between router 1's input from link
// 0->1 and its injection input.
TEST(PacketEquivalence, TwoSourcesSharingALinkRoundRobin) {
  const auto topo = line3(core::Time::from_ns(2));
  const auto opt = small_options();
  const std::vector<Send> sends{{0, 2, 256, 0}, {1, 2, 256, 0}};
  const Times t = expect_equivalent(topo, opt, sends);
  // Contention happened: each message is later than alone.
  const Times alone0 = expect_equivalent(topo, opt, {sends[0]});
  const Times alone1 = expect_equivalent(topo, opt, {sends[1]});
  EXPECT_GT(t.delivered[0], alone0.delivered[0]);
  EXPECT_GT(t.delivered[1], alone1.delivered[0]);
  // Staggered starts, so that requests arrive while the link is busy in various phases.
  for (Cycle d = 0; d < 12; ++d) {
    SCOPED_TRACE("second message sent at " + std::to_string(d));
    expect_equivalent(topo, opt, {{0, 2, 256, 0}, {1, 2, 192, d}, {1, 2, 64, d + 3}});
  }
}

// Case 3. Message-based flow control: only the first packet has a head flit (5, 4, 4 flits).
TEST(PacketEquivalence, MessageBasedFlowControl) {
  const auto topo = line3(core::Time::from_ns(2));
  auto opt = small_options();
  opt.message_based_flow_control = true;
  const Times t = expect_equivalent(topo, opt, {{0, 2, 192, 0}});
  // As case 1 minus the two later head flits: packets of 5, 4, 4 flits leave the NI at 5, 9, 13;
  // the last one's ejection ends 13 + 10 (its pipeline through 3 routers and 2 links) = 23.
  EXPECT_EQ(t.injected[0], ns(13));
  EXPECT_EQ(t.delivered[0], ns(23));
  expect_equivalent(topo, opt, {{0, 2, 192, 0}, {1, 2, 100, 2}, {2, 0, 130, 1}});
}

// Case 4. Back-pressure: VCs just above one packet (6 flits for 5-flit packets), and NPUs 0 and 2
// both sending to NPU 1, so its ejection channel runs at half the rate each stream needs and the
// VCs of links 0->1 and 2->1, then the injection VCs of routers 0 and 2, fill up.
TEST(PacketEquivalence, BackPressureFromSharedEjection) {
  const auto topo = line3(core::Time::from_ns(2));
  for (std::uint32_t vcs : {1u, 2u}) {
    SCOPED_TRACE("vcs " + std::to_string(vcs));
    auto opt = small_options();
    opt.vcs = vcs;
    opt.vc_buffer_flits = 6;
    FlitReference ref(topo, opt);
    const Times t = expect_equivalent(topo, opt, {{0, 1, 320, 0}, {2, 1, 320, 0}}, &ref);
    EXPECT_GT(ref.credit_stalls(), 0u) << "no back-pressure: the case does not test it";
    // 2 x 5 packets x 5 flits through one ejection channel: at least 50 ns.
    EXPECT_GE(std::max(t.delivered[0], t.delivered[1]), ns(50));
  }
  // The same with a credit round trip longer than a packet (latency 4): credits, not the
  // ejection, limit each stream.
  const auto slow = line3(core::Time::from_ns(4));
  auto opt = small_options();
  opt.vcs = 1;
  opt.vc_buffer_flits = 6;
  opt.credit_delay_cycles = 3;
  FlitReference ref(slow, opt);
  expect_equivalent(slow, opt, {{0, 1, 320, 0}, {2, 1, 320, 0}, {0, 2, 200, 1}}, &ref);
  EXPECT_GT(ref.credit_stalls(), 0u);
}

// A slower NI (2 ns a flit on injection and ejection, 1 ns on links): a fast link between slow
// channels, so flits reach a router spaced out and the output waits for them.
TEST(PacketEquivalence, SlowerNetworkInterfaces) {
  const auto topo = line3(core::Time::from_ns(2));
  auto opt = small_options();
  opt.ni_bandwidth = core::Bandwidth{8e9};
  FlitReference ref(topo, opt);
  expect_equivalent(topo, opt, {{0, 2, 192, 0}, {1, 2, 128, 3}, {2, 0, 64, 0}}, &ref);
  EXPECT_GT(ref.flit_waits(), 0u) << "no output waited for a flit: the case does not test it";
}

// A bidirectional ring of 4 with dateline VC classes (2 VCs: one per class), messages crossing
// the wrap-around link, small buffers.
TEST(PacketEquivalence, RingWithDatelineClasses) {
  const auto topo = topology::ring(4, kBw, core::Time::from_ns(1), true);
  auto opt = small_options();
  opt.vc_buffer_flits = 6;
  expect_equivalent(topo, opt,
                    {{3, 1, 256, 0}, {0, 2, 256, 0}, {2, 0, 192, 1}, {1, 3, 128, 2}, {3, 0, 64, 0}});
}

// Random small traffic on a line, a ring and a switch: every message's times agree.
TEST(PacketEquivalence, RandomSmallCases) {
  const std::vector<topology::Topology> topos{
      line3(core::Time::from_ns(1)), topology::ring(4, kBw, core::Time::from_ns(2), true),
      topology::switch_star(3, kBw, core::Time::from_ns(1))};
  std::mt19937 rng(7);
  auto pick = [&](std::uint32_t n) { return std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng); };
  for (std::uint32_t trial = 0; trial < 60; ++trial) {
    const topology::Topology& topo = topos[trial % topos.size()];
    auto opt = small_options();
    opt.vcs = 2;
    opt.vc_buffer_flits = 5 + pick(6);
    opt.router_pipeline_cycles = pick(3);
    opt.credit_delay_cycles = pick(3);
    opt.message_based_flow_control = pick(2) == 1;
    std::vector<Send> sends;
    const std::uint32_t n = topo.num_npus();
    for (std::uint32_t k = 0, count = 2 + pick(4); k < count; ++k) {
      const topology::NodeId src = pick(n);
      const topology::NodeId dst = (src + 1 + pick(n - 1)) % n;
      sends.push_back({src, dst, 1 + pick(300), static_cast<Cycle>(pick(20))});
    }
    std::string what = "trial " + std::to_string(trial) + " on " + topo.name() + ": buffer " +
                       std::to_string(opt.vc_buffer_flits) + ", pipeline " +
                       std::to_string(opt.router_pipeline_cycles) + ", credit delay " +
                       std::to_string(opt.credit_delay_cycles) +
                       (opt.message_based_flow_control ? ", message-based" : "") + "; sends";
    for (const Send& s : sends) {
      what += " " + std::to_string(s.src) + "->" + std::to_string(s.dst) + " " +
              std::to_string(s.bytes) + " B at " + std::to_string(s.at);
    }
    SCOPED_TRACE(what);
    if (std::getenv("EQUIV_TRIAL") && std::to_string(trial) != std::getenv("EQUIV_TRIAL")) continue;
    expect_equivalent(topo, opt, sends);
  }
}

}  // namespace
}  // namespace collsim
