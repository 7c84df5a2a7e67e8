// Wormhole switching in the packet backend (PacketOptions::switching = Switching::Wormhole),
// checked against WormholeReference (below): a separate, cycle-stepped simulation that moves
// every flit on its own and allocates every channel per flit. Both follow the same rules (listed
// at WormholeReference); the tests compare, per message, the picosecond at which its last flit
// left the source (on_injected) and the one at which its last flit was delivered (on_delivered).
// Every flit time, link latency, router pipeline and credit delay is a whole number of 1 ns
// cycles (a 16 B flit takes 1 ns at 16 GB/s).
//
// tests/network/packet_equivalence_test.cpp does the same for virtual cut-through (FlitReference); this
// file mirrors its channel layout, NI model, dateline classes and harness.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "core/units.hpp"
#include "flit_harness.hpp"
#include "network/backend.hpp"
#include "network/packet.hpp"
#include "topology/builders.hpp"
#include "topology/topology.hpp"

namespace collsim {
namespace {

using namespace collsim::testing;  // NOLINT: the shared harness

// ------------------------------------------------------------------------------------------------
// The flit-by-flit wormhole reference.
//
// Channels, indexed as in packet.cpp: each directed topology link (channel id = link id), then
// per NPU an injection channel (NI -> its router), then per NPU an ejection channel (router ->
// NI), then with an injection queue a feed channel per NPU (NPU -> injection queue), then with an
// ejection queue a drain channel per NPU (ejection queue -> NPU). A message's path: [feed],
// injection, the topology route, ejection, [drain]. NI channels have latency 0 and the NI
// bandwidth (unset: the NPU's fastest outgoing link), except the injection (ejection) channel,
// which runs at the NPU's fastest link rate when an injection (ejection) queue exists.
// A channel ends in an input port of `vcs` VCs of vc_buffer_flits flits each (router pipeline
// delay), except: the sink (the ejection channel without an ejection queue, else the drain)
// delivers; the feed, and with an ejection queue the ejection channel, end in an NI queue: one
// FIFO (VC 0) of injection_queue_flits / ejection_queue_flits flits with no pipeline delay. Each
// NPU's source queue is unbounded, holds all of a message's flits from the cycle it is sent and
// has no pipeline delay. The channel's sender keeps one credit counter per downstream VC.
//
// A message is cut into packets of packet_payload_bytes, each 1 head flit + ceil(payload /
// flit_bytes) flits; a worm is one packet, or with message_based_flow_control the whole message
// (only its first packet has a head flit). The worm's first flit is its head, its last its tail.
//
// Each cycle t, in this order:
//  1. new messages' flits join their source queue;
//  2. credits due at t arrive at their channel's counters;
//  3. flits due at t enter their downstream VC (arrival time t);
//  4. channels and input ports whose flit ends at t are free (implicit: busy until t);
//  5. requests: a VC (router VC, NI queue or source queue) that is not requesting, whose front
//     flit has been in it for the pipeline delay and whose input port is not transmitting,
//     appends a request to the channel that flit takes next. Same-cycle requests are appended in
//     VC index order (channel c's VCs at c * vcs + v, then the NPUs' source queues). A request
//     keeps its place while its port is busy;
//  6. switch allocation, per flit: free channels in channel order; each scans its requests
//     round-robin from its pointer and grants the first whose input port is not transmitting
//     (nor granted this cycle) and whose flit can go: a head needs an idle downstream VC (not
//     held by a worm) of its class with >= 1 credit, the one with the most credits (ties: the
//     lowest); a body or tail flit needs >= 1 credit in the VC its worm's head took on this
//     channel; a sink needs nothing. The grant removes the request (the pointer stays at the
//     request that followed it), takes a credit, makes a head's worm hold the VC and a tail
//     release it (a one-flit worm never holds it); the channel and the input port are busy for
//     the channel's flit time. The flit arrives downstream at t + flit time + latency; the credit
//     for the VC it left reaches the upstream channel at t + flit time + that channel's latency +
//     credit delay (none for a source queue); at a sink it is delivered at t + flit time. A
//     message is injected when its last flit's flit time on its first channel ends.
// Dateline classes, as packet.cpp: on a topology with a ring dimension (Ring >= 3, UniRing >= 2)
// a worm entering a new dimension is in class 0 (the lower half of the VCs); the ring's
// wrap-around link and every later link of that dimension use class 1 (the upper half). Classes
// apply to router VCs only.
//
// Checks while it runs (gtest failures): no VC holds more flits than its capacity, no credit
// counter goes negative or above the VC's capacity, a VC receives a worm's flits in order and a
// worm's flits one after another, a body flit's VC is held by its worm, each worm's flits reach
// the sink in order; at the end every flit is delivered, every VC is empty and idle and every
// credit is back. No flit granted for kDeadlockCycles while flits remain, or more than
// kMaxCycles, ends the run with error() set.
class WormholeReference {
 public:
  // ignore_datelines: every worm may take any VC (tests only: the deadlock the classes prevent).
  WormholeReference(const topology::Topology& topo, const network::PacketOptions& opt,
                    bool ignore_datelines = false)
      : topo_(topo), opt_(opt), vcs_(opt.vcs) {
    pipeline_ = to_cycles(opt.router_period * opt.router_pipeline_cycles, "router pipeline");
    credit_delay_ = to_cycles(opt.router_period * opt.credit_delay_cycles, "credit delay");
    layout_ = channel_layout(topo, opt, ignore_datelines);
    class_split_ = layout_.class_split;
    channels_ = make_channels<Channel>(layout_);
    const std::uint32_t n = topo.num_npus();
    for (Channel& c : channels_) {
      if (c.sink) continue;
      c.capacity = c.queue_depth ? c.queue_depth : opt.vc_buffer_flits;
      // An NI queue is VC 0 only: the other VCs get no credits and are never chosen.
      c.credits.assign(vcs_, c.queue_depth ? 0 : c.capacity);
      c.credits[0] = c.capacity;
      c.holder.assign(vcs_, kNone);
    }
    const auto nch = static_cast<std::uint32_t>(channels_.size());
    vcs_of_.resize(std::size_t{nch} * vcs_ + n);
    for (std::uint32_t ch = 0; ch < nch; ++ch) {
      for (std::uint32_t v = 0; v < vcs_; ++v) {
        Vc& vc = vcs_of_[ch * vcs_ + v];
        vc.upstream = ch;
        vc.port = ch;  // the VCs at the end of one channel share its input port
        vc.pipe = channels_[ch].queue_depth ? 0 : pipeline_;
      }
    }
    for (std::uint32_t q = 0; q < n; ++q) vcs_of_[std::size_t{nch} * vcs_ + q].port = nch + q;
    port_busy_until_.assign(std::size_t{nch} + n, 0);
  }

  Times run(const std::vector<Send>& sends) {
    Times out{std::vector<std::int64_t>(sends.size(), -1),
              std::vector<std::int64_t>(sends.size(), -1)};
    messages_.assign(sends.size(), Message{});
    std::map<Cycle, std::vector<std::uint32_t>> starting;
    for (std::uint32_t m = 0; m < sends.size(); ++m) starting[sends[m].at].push_back(m);
    std::size_t done = 0;
    Cycle last_move = 0;
    for (Cycle t = 0;; ++t) {
      if (done == sends.size() && arrivals_.empty() && credits_due_.empty()) break;
      if (t > kMaxCycles) {
        error_ = "reference: traffic still in the network after " + std::to_string(kMaxCycles) +
                 " cycles; " + describe_waiting();
        return out;
      }
      if (in_network_ > 0 && t - last_move > kDeadlockCycles) {
        error_ = "reference: deadlock, no flit moved in cycles " + std::to_string(last_move + 1) +
                 ".." + std::to_string(t - 1) + " with " + std::to_string(in_network_) +
                 " flit(s) in the network; " + describe_waiting();
        return out;
      }
      // 1. New messages.
      for (std::uint32_t m : take(starting, t)) {
        enqueue(sends[m], m, t);
        last_move = t;
      }
      // 2. Credits.
      for (const CreditReturn& r : take(credits_due_, t)) {
        Channel& c = channels_[r.channel];
        ++c.credits[r.vc];
        EXPECT_LE(c.credits[r.vc], c.capacity) << "credit overflow, channel " << r.channel;
      }
      // 3. Flits entering a VC.
      for (const Arrival& a : take(arrivals_, t)) arrive(a, t);
      // 4. Channels and ports free: busy_until <= t.
      // 5. Requests, in VC index order.
      for (std::uint32_t id = 0; id < vcs_of_.size(); ++id) {
        Vc& v = vcs_of_[id];
        if (v.flits.empty() || v.requesting || port_busy_until_[v.port] > t) continue;
        const Flit& f = v.flits.front();
        if (f.arrived + v.pipe > t) continue;
        v.requesting = true;
        channels_[path_of(f)[f.hop]].requests.push_back(id);
      }
      // 6. Switch allocation (grant = send).
      for (std::uint32_t ch = 0; ch < channels_.size(); ++ch) {
        if (grant(ch, t, out, done)) last_move = t;
      }
    }
    check_empty();
    return out;
  }

  // Empty unless the run deadlocked or ran out of cycles.
  const std::string& error() const { return error_; }
  // Allocations in which a free channel had requests with free input ports but could grant none
  // (no idle VC or no credit downstream).
  std::uint64_t credit_stalls() const { return credit_stalls_; }
  // Grants of a flit of one worm on a channel whose previous flit was a non-tail flit of
  // another: flit-level interleaving of worms.
  std::uint64_t interleavings() const { return interleavings_; }
  // Heads granted into a dateline-class (upper-half) VC.
  std::uint64_t class1_heads() const { return class1_heads_; }
  // Most flits ever in one router VC.
  std::size_t max_occupancy() const { return max_occupancy_; }

 private:
  static constexpr Cycle kMaxCycles = 1'000'000;
  static constexpr Cycle kDeadlockCycles = 10'000;

  struct CreditReturn {
    std::uint32_t channel = 0, vc = 0;
  };
  struct Channel : ChannelSpec {
    std::uint32_t capacity = 0;           // flits per downstream VC
    std::vector<std::uint32_t> credits;   // per downstream VC
    std::vector<std::uint32_t> holder;    // per downstream VC: the worm holding it, or kNone
    std::vector<std::uint32_t> requests;  // input VCs, in the order they started requesting
    std::size_t rr = 0;
    Cycle busy_until = 0;
    std::uint32_t last_worm = kNone;  // the worm of the last flit granted, and whether it was
    bool last_was_tail = true;        // that worm's tail
  };
  struct Flit {
    std::uint32_t worm = 0;
    std::uint32_t index = 0;  // 0: the worm's head
    std::uint32_t hop = 0;    // index in the message's path of the next channel
    Cycle arrived = 0;
  };
  struct Vc {
    std::uint32_t upstream = kNone;  // the channel that fills it; kNone: a source queue
    std::uint32_t port = 0;
    Cycle pipe = 0;
    std::deque<Flit> flits;
    bool requesting = false;
    std::uint32_t last_worm = kNone, last_index = 0;  // the last flit that entered it
  };
  struct Worm {
    std::uint32_t message = 0;
    std::uint32_t flits = 0;
    bool last = false;  // the message's last worm
    std::uint32_t vc_class = 0;
    std::uint32_t dim = kNone;        // dimension of the last topology link its head crossed
    std::vector<std::uint32_t> held;  // per hop: the downstream VC its head took
    std::uint32_t delivered = 0;      // flits out of the sink
  };
  struct Message {
    std::vector<std::uint32_t> path;
    std::uint64_t flits_left = 0;  // not yet delivered
  };
  struct Arrival {
    std::uint32_t vc = 0;
    Flit flit;
  };

  const std::vector<std::uint32_t>& path_of(const Flit& f) const {
    return messages_[worms_[f.worm].message].path;
  }
  bool is_router_vc(const Vc& v) const {
    return v.upstream != kNone && channels_[v.upstream].queue_depth == 0;
  }

  void enqueue(const Send& s, std::uint32_t m, Cycle t) {
    Message& msg = messages_[m];
    msg.path = layout_.path(topo_, s.src, s.dst);
    // Packets: 1 head flit (only the first with message-based flow control) + payload flits.
    std::vector<std::uint32_t> packet_flits;
    std::uint64_t left = s.bytes;
    do {
      const std::uint64_t payload = std::min<std::uint64_t>(left, opt_.packet_payload_bytes);
      left -= payload;
      const bool head = packet_flits.empty() || !opt_.message_based_flow_control;
      packet_flits.push_back(
          static_cast<std::uint32_t>((payload + opt_.flit_bytes - 1) / opt_.flit_bytes) +
          (head ? 1 : 0));
    } while (left > 0);
    std::vector<std::uint32_t> worm_flits = packet_flits;
    if (opt_.message_based_flow_control) {
      std::uint32_t total = 0;
      for (std::uint32_t f : packet_flits) total += f;
      worm_flits = {total};
    }
    Vc& queue = vcs_of_[channels_.size() * vcs_ + s.src];
    for (std::size_t k = 0; k < worm_flits.size(); ++k) {
      Worm w;
      w.message = m;
      w.flits = worm_flits[k];
      w.last = k + 1 == worm_flits.size();
      w.held.assign(msg.path.size(), kNone);
      const auto wid = static_cast<std::uint32_t>(worms_.size());
      worms_.push_back(std::move(w));
      for (std::uint32_t i = 0; i < worm_flits[k]; ++i) queue.flits.push_back(Flit{wid, i, 0, t});
      msg.flits_left += worm_flits[k];
      in_network_ += worm_flits[k];
    }
  }

  void arrive(const Arrival& a, Cycle t) {
    Vc& v = vcs_of_[a.vc];
    const Flit& f = a.flit;
    const Channel& up = channels_[v.upstream];
    if (f.index == 0) {
      EXPECT_TRUE(v.last_worm == kNone || v.last_index + 1 == worms_[v.last_worm].flits)
          << "worm " << f.worm << " enters VC " << a.vc << " before worm " << v.last_worm
          << " has all arrived";
    } else {
      EXPECT_TRUE(v.last_worm == f.worm && v.last_index + 1 == f.index)
          << "flit " << f.index << " of worm " << f.worm << " enters VC " << a.vc
          << " out of order";
    }
    v.last_worm = f.worm;
    v.last_index = f.index;
    v.flits.push_back(Flit{f.worm, f.index, f.hop, t});
    EXPECT_LE(v.flits.size(), up.capacity) << "VC " << a.vc << " overflows";
    if (is_router_vc(v)) max_occupancy_ = std::max(max_occupancy_, v.flits.size());
  }

  // The downstream VC a head may take on channel c: idle, >= 1 credit, in its class; the most
  // credits, ties to the lowest. kNone if none.
  std::uint32_t pick_vc(const Channel& c, const Worm& w) const {
    if (c.queue_depth) return c.holder[0] == kNone && c.credits[0] >= 1 ? 0 : kNone;
    std::uint32_t cls = c.dim == w.dim ? w.vc_class : 0;
    if (c.dateline) cls = 1;
    const std::uint32_t lo = class_split_ ? cls * (vcs_ / 2) : 0;
    const std::uint32_t hi = class_split_ ? lo + vcs_ / 2 : vcs_;
    std::uint32_t best = kNone;
    for (std::uint32_t v = lo; v < hi; ++v) {
      if (c.holder[v] != kNone || c.credits[v] == 0) continue;
      if (best == kNone || c.credits[v] > c.credits[best]) best = v;
    }
    return best;
  }

  // Switch allocation of channel ch at cycle t; true if it granted a flit.
  bool grant(std::uint32_t ch, Cycle t, Times& out, std::size_t& done) {
    Channel& c = channels_[ch];
    if (c.busy_until > t || c.requests.empty()) return false;
    const std::size_t n = c.requests.size();
    bool port_free = false;
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t idx = (c.rr + k) % n;
      const std::uint32_t id = c.requests[idx];
      Vc& v = vcs_of_[id];
      if (port_busy_until_[v.port] > t) continue;  // transmitting, or granted this cycle
      port_free = true;
      const Flit f = v.flits.front();
      Worm& w = worms_[f.worm];
      const bool head = f.index == 0, tail = f.index + 1 == w.flits;
      std::uint32_t down = 0;
      if (!c.sink) {
        if (head) {
          down = pick_vc(c, w);
          if (down == kNone) continue;
        } else {
          down = w.held[f.hop];
          EXPECT_NE(down, kNone) << "body flit of worm " << f.worm << " without a VC";
          if (down == kNone) continue;
          EXPECT_EQ(c.holder[down], f.worm) << "worm " << f.worm << " lost its VC";
          if (c.credits[down] == 0) continue;
        }
      }
      // Grant.
      c.requests.erase(c.requests.begin() + static_cast<std::ptrdiff_t>(idx));
      c.rr = c.requests.empty() ? 0 : idx % c.requests.size();
      if (c.last_worm != kNone && c.last_worm != f.worm && !c.last_was_tail) ++interleavings_;
      c.last_worm = f.worm;
      c.last_was_tail = tail;
      const Cycle end = t + c.flit_cycles;
      c.busy_until = end;
      port_busy_until_[v.port] = end;
      v.flits.pop_front();
      v.requesting = false;
      if (v.upstream != kNone) {
        const Cycle due = end + channels_[v.upstream].latency + credit_delay_;
        credits_due_[due].push_back(CreditReturn{v.upstream, id % vcs_});
      }
      const std::vector<std::uint32_t>& path = messages_[w.message].path;
      EXPECT_EQ(path[f.hop], ch);
      if (f.hop == 0 && w.last && tail) out.injected[w.message] = end * kCyclePs;
      if (c.sink) {
        EXPECT_EQ(f.hop + 1, path.size());
        EXPECT_EQ(w.delivered, f.index) << "worm " << f.worm << " delivered out of order";
        ++w.delivered;
        --in_network_;
        if (--messages_[w.message].flits_left == 0) {
          out.delivered[w.message] = end * kCyclePs;
          ++done;
        }
        return true;
      }
      EXPECT_GE(c.credits[down], 1u);
      --c.credits[down];
      if (head) {
        w.held[f.hop] = down;
        if (c.link) {
          w.vc_class = (c.dim == w.dim ? w.vc_class : 0) | (c.dateline ? 1u : 0u);
          w.dim = c.dim;
        }
        if (class_split_ && c.queue_depth == 0 && down >= vcs_ / 2) ++class1_heads_;
        if (!tail) c.holder[down] = f.worm;
      } else if (tail) {
        c.holder[down] = kNone;
      }
      arrivals_[end + c.latency].push_back(
          Arrival{ch * vcs_ + down, Flit{f.worm, f.index, f.hop + 1, 0}});
      return true;
    }
    if (port_free) ++credit_stalls_;
    return false;
  }

  std::string describe_waiting() const {
    std::string s;
    int listed = 0;
    for (std::uint32_t ch = 0; ch < channels_.size() && listed < 6; ++ch) {
      const Channel& c = channels_[ch];
      if (c.requests.empty()) continue;
      s += (listed++ ? "; channel " : "channel ") + std::to_string(ch) + ":";
      for (std::uint32_t id : c.requests) {
        const Flit& f = vcs_of_[id].flits.front();
        s += " vc " + std::to_string(id) + " (worm " + std::to_string(f.worm) + " flit " +
             std::to_string(f.index) + ")";
      }
      std::string held, credits;
      for (std::uint32_t v = 0; v < c.credits.size(); ++v) {
        held += (v ? "/" : "") +
                (c.holder[v] == kNone ? std::string("-") : std::to_string(c.holder[v]));
        credits += (v ? "/" : "") + std::to_string(c.credits[v]);
      }
      if (!c.sink) s += ", VCs held by " + held + ", credits " + credits;
    }
    return s.empty() ? "no requests" : s;
  }

  void check_empty() const {
    EXPECT_EQ(in_network_, 0u);
    for (std::size_t id = 0; id < vcs_of_.size(); ++id) {
      EXPECT_TRUE(vcs_of_[id].flits.empty()) << "VC " << id << " not empty at the end";
    }
    for (std::uint32_t ch = 0; ch < channels_.size(); ++ch) {
      const Channel& c = channels_[ch];
      EXPECT_TRUE(c.requests.empty()) << "channel " << ch << " has requests at the end";
      if (c.sink) continue;
      for (std::uint32_t v = 0; v < vcs_; ++v) {
        EXPECT_EQ(c.credits[v], v == 0 || !c.queue_depth ? c.capacity : 0u)
            << "channel " << ch << " VC " << v << ": credits not all back";
        EXPECT_EQ(c.holder[v], kNone) << "channel " << ch << " VC " << v << " still held";
      }
    }
  }

  const topology::Topology& topo_;
  network::PacketOptions opt_;
  std::uint32_t vcs_;
  bool class_split_ = false;
  Cycle pipeline_ = 0, credit_delay_ = 0;
  std::vector<Channel> channels_;
  std::vector<Vc> vcs_of_;  // channel c's VCs at c * vcs_ + v, then one source queue per NPU
  std::vector<Cycle> port_busy_until_;  // per input port: channels, then source queues
  std::vector<Worm> worms_;
  std::vector<Message> messages_;
  ChannelLayout layout_;
  std::map<Cycle, std::vector<Arrival>> arrivals_;
  std::map<Cycle, std::vector<CreditReturn>> credits_due_;
  std::uint64_t in_network_ = 0;
  std::string error_;
  std::uint64_t credit_stalls_ = 0, interleavings_ = 0, class1_heads_ = 0;
  std::size_t max_occupancy_ = 0;
};

// The backend's times, and what went wrong (empty if nothing): it threw (e.g. it does not accept
// buffers smaller than a packet), it stalled, or it never delivered a message.
struct PacketRun {
  Times times;
  std::string error;
};

PacketRun run_packet(const topology::Topology& topo, const network::PacketOptions& opt,
                     const std::vector<Send>& sends) {
  PacketRun r;
  r.times.injected.assign(sends.size(), -1);
  r.times.delivered.assign(sends.size(), -1);
  try {
    const PacketTimes run = drive_packet_backend(topo, opt, sends);
    r.times = run.times;
    if (!run.blocked.empty()) r.error = "packet backend blocked: " + run.blocked;
    for (std::size_t m = 0; m < sends.size(); ++m) {
      if (r.times.delivered[m] == -1) {
        r.error += (r.error.empty() ? "" : "; ") + std::string("packet backend never delivered ") +
                   "message " + std::to_string(m);
      }
    }
  } catch (const std::exception& e) {
    r.error = std::string("packet backend threw: ") + e.what();
  }
  return r;
}

struct Both {
  Times packet, reference;
  std::string packet_error, reference_error;
  std::uint64_t credit_stalls = 0, interleavings = 0, class1_heads = 0;
  std::size_t max_occupancy = 0;
};

// Runs the reference and the backend, both with wormhole switching.
Both run_both(const topology::Topology& topo, network::PacketOptions opt,
              const std::vector<Send>& sends) {
  opt.switching = network::Switching::Wormhole;
  WormholeReference ref(topo, opt);
  Both b;
  b.reference = ref.run(sends);
  b.reference_error = ref.error();
  for (std::size_t m = 0; m < sends.size() && b.reference_error.empty(); ++m) {
    if (b.reference.delivered[m] == -1 || b.reference.injected[m] == -1) {
      b.reference_error = "reference never delivered message " + std::to_string(m);
    }
  }
  b.credit_stalls = ref.credit_stalls();
  b.interleavings = ref.interleavings();
  b.class1_heads = ref.class1_heads();
  b.max_occupancy = ref.max_occupancy();
  const PacketRun p = run_packet(topo, opt, sends);
  b.packet = p.times;
  b.packet_error = p.error;
  return b;
}

// Runs both and expects every time to agree exactly.
Both expect_equivalent(const topology::Topology& topo, const network::PacketOptions& opt,
                       const std::vector<Send>& sends) {
  const Both b = run_both(topo, opt, sends);
  EXPECT_EQ(b.reference_error, "");
  EXPECT_EQ(b.packet_error, "");
  for (std::size_t m = 0; m < sends.size(); ++m) {
    EXPECT_EQ(b.packet.injected[m], b.reference.injected[m]) << "injected, message " << m;
    EXPECT_EQ(b.packet.delivered[m], b.reference.delivered[m]) << "delivered, message " << m;
  }
  return b;
}

// small_options() with wormhole switching.
network::PacketOptions small_options() {
  network::PacketOptions o = testing::small_packet_options();
  o.switching = network::Switching::Wormhole;
  return o;
}

// Case 1. One message 0 -> 2 over line3 (latency 2, pipeline 1, credit delay 1, 20-flit VCs: no
// credit is ever short), nothing else in the network. Every channel takes 1 ns a flit.
// By hand, 64 B (one 5-flit worm), flit k = 0..4 (ns):
//   injection: the source queue has all flits at 0; flit k is granted at k (its port is busy for
//     one flit time, so the next flit requests and is granted a cycle later): injected = 4 + 1 = 5.
//   router 0: flit k arrives at k + 1, may request at k + 2 (pipeline 1): link 0->1 grants it at
//     k + 2; it arrives in router 1 at k + 2 + 1 + 2 = k + 5.
//   router 1: link 1->2 at k + 6, arrives in router 2 at k + 9; ejection at k + 10, out at k + 11:
//     delivered = 4 + 11 = 15, the virtual cut-through time too (no contention, big buffers).
// 192 B: 3 worms of 5 flits, 15 flits in a row, the same per-flit times: flit 14 leaves the NI at
//   15 and is delivered at 25, as network/packet_equivalence_test.cpp's case 1 under virtual cut-through.
// 192 B with message-based flow control: one 13-flit worm (5 + 4 + 4): injected 13, delivered 23.
TEST(WormholeEquivalence, OneMessageOnALineMatchesHand) {
  const auto topo = line3(core::Time::from_ns(2));
  struct Case {
    std::uint64_t bytes;
    bool mbfc;
    std::int64_t injected, delivered;
  };
  for (const Case& k :
       {Case{64, false, 5, 15}, Case{192, false, 15, 25}, Case{192, true, 13, 23}}) {
    SCOPED_TRACE(std::to_string(k.bytes) + " B" + (k.mbfc ? ", message-based" : ""));
    auto opt = small_options();
    opt.message_based_flow_control = k.mbfc;
    const Both b = expect_equivalent(topo, opt, {{0, 2, k.bytes, 0}});
    EXPECT_EQ(b.reference.injected[0], ns(k.injected));
    EXPECT_EQ(b.reference.delivered[0], ns(k.delivered));
    EXPECT_EQ(b.packet.injected[0], ns(k.injected));
    EXPECT_EQ(b.packet.delivered[0], ns(k.delivered));
    EXPECT_EQ(b.credit_stalls, 0u);
  }
}

// Case 2. VCs of 2 flits, smaller than the 5-flit packet (legal in wormhole only): the worm
// stretches over three routers and moves as credits come back. Same line and message (64 B,
// 0 -> 2). Credit round trips: a flit leaving router 0's injection VC at g frees a credit for
// the injection channel at g + 1 (flit) + 0 (latency) + 1 (credit delay) = g + 2; leaving router
// 1's (router 2's) VC at g, for link 0->1 (1->2) at g + 1 + 2 + 1 = g + 4. Flit k's grant times on
// injection I, link 0->1 L, link 1->2 M, ejection E are each the latest of: the flit ready
// (upstream grant + 1 + latency + pipeline 1), the previous flit's grant + 1 (input port busy),
// and, for k >= 2, the credit of flit k - 2:
//   I_k = max(k, I_{k-1} + 1, L_{k-2} + 2)     L_k = max(I_k + 2, L_{k-1} + 1, M_{k-2} + 4)
//   M_k = max(L_k + 4, M_{k-1} + 1, E_{k-2} + 4)   E_k = max(M_k + 4, E_{k-1} + 1)
//   k:  0   1   2   3   4
//   I:  0   1   4   5  12
//   L:  2   3  10  11  18
//   M:  6   7  14  15  22
//   E: 10  11  18  19  26
// Flits go in pairs 8 ns apart, the credit loop of a 2-flit VC behind a 2 ns link: a flit leaves
// router 2 at E, its credit is back at link 1->2 at E + 4, the flit then sent is ready in router 2
// 4 ns later. Injected = I_4 + 1 = 13 (5 with big buffers), delivered = E_4 + 1 = 27 (15).
TEST(WormholeEquivalence, BufferSmallerThanAPacketStallsOnCredits) {
  const auto topo = line3(core::Time::from_ns(2));
  for (std::uint32_t vcs : {1u, 2u}) {
    SCOPED_TRACE("vcs " + std::to_string(vcs));
    auto opt = small_options();
    opt.vcs = vcs;
    opt.vc_buffer_flits = 2;
    const Both b = expect_equivalent(topo, opt, {{0, 2, 64, 0}});
    EXPECT_EQ(b.reference.injected[0], ns(13));
    EXPECT_EQ(b.reference.delivered[0], ns(27));
    EXPECT_EQ(b.packet.injected[0], ns(13));
    EXPECT_EQ(b.packet.delivered[0], ns(27));
    EXPECT_GT(b.credit_stalls, 0u);
    EXPECT_EQ(b.max_occupancy, 2u);
  }
  // One-flit VCs, several worms, messages both ways and message-based flow control.
  for (std::uint32_t depth : {1u, 2u, 3u}) {
    SCOPED_TRACE("buffer " + std::to_string(depth));
    auto opt = small_options();
    opt.vc_buffer_flits = depth;
    expect_equivalent(topo, opt, {{0, 2, 192, 0}, {1, 2, 100, 2}, {2, 0, 130, 1}});
    opt.message_based_flow_control = true;
    expect_equivalent(topo, opt, {{0, 2, 192, 0}, {1, 2, 100, 2}, {2, 0, 130, 1}});
  }
}

// Case 3. Two worms into one link: A = 0 -> 2 (64 B at 0) and B = 1 -> 2 (64 B at 4) share link
// 1->2. Alone, A's flit k requests link 1->2 at k + 6 (case 1) and so does B's: B leaves NPU 1
// at 4 + k, is in router 1 at 5 + k and ready at 6 + k. At 6 both heads request; same-cycle
// requests join in VC order, link 0->1's VC (0) before NPU 1's injection VC (10): A's head goes
// first and takes router 2's VC 0.
//  * 2 VCs: at 7 the list is [B head, A flit 1]: B's head takes the idle VC 1, and from then on
//    the two worms alternate flit by flit (each request rejoins behind the other's): A's flits
//    cross at 6, 8, 10, 12, 14, B's at 7, 9, ..., 15. Router 2 has one flit ready each ns from
//    10 (grant + 1 + 2 + pipeline 1) and ejects it at once: A's last at 18, B's at 19.
//    A: injected 5, delivered 19; B: injected 9, delivered 20.
//  * 1 VC: A holds router 2's only VC until its tail crosses (6..10); B's head waits, then takes
//    it at 11 (15 credits left): B's flits cross at 11..15. A: delivered 15 (as alone);
//    B: delivered 15 + 4 + 1 = 20. (Virtual cut-through gives these times too.)
TEST(WormholeEquivalence, TwoWormsInterleaveFlitByFlitInDifferentVcs) {
  const auto topo = line3(core::Time::from_ns(2));
  const std::vector<Send> sends{{0, 2, 64, 0}, {1, 2, 64, 4}};
  {
    const Both b = expect_equivalent(topo, small_options(), sends);
    const Times hand{{ns(5), ns(9)}, {ns(19), ns(20)}};
    EXPECT_EQ(b.reference, hand);
    EXPECT_EQ(b.packet, hand);
    // A and B alternate on link 1->2 and on the ejection: 8 switches from a worm that has not
    // finished to the other on each (the 9th follows A's tail).
    EXPECT_EQ(b.interleavings, 16u);
  }
  {
    auto opt = small_options();
    opt.vcs = 1;
    const Both b = expect_equivalent(topo, opt, sends);
    const Times hand{{ns(5), ns(9)}, {ns(15), ns(20)}};
    EXPECT_EQ(b.reference, hand);
    EXPECT_EQ(b.packet, hand);
    EXPECT_EQ(b.interleavings, 0u);
  }
  // B at other offsets, bigger messages, a third worm queued behind B, small buffers.
  for (std::uint32_t depth : {2u, 20u}) {
    for (Cycle d : {0, 1, 2, 3, 5, 6, 7, 9, 11}) {
      SCOPED_TRACE("buffer " + std::to_string(depth) + ", B sent at " + std::to_string(d));
      auto opt = small_options();
      opt.vc_buffer_flits = depth;
      expect_equivalent(topo, opt, {{0, 2, 256, 0}, {1, 2, 192, d}, {1, 2, 64, d + 3}});
    }
  }
}

// A one-flit worm (a 0 B message: just its head flit) is its own tail: it never holds the VC it
// takes. Alone, 0 -> 2 on line3 (case 1's flit 0): injected 1, delivered 11. With one 1-flit VC
// per port, a held VC would never be released and the messages behind it would never move.
TEST(WormholeEquivalence, OneFlitWormsNeverHoldTheirVc) {
  const auto topo = line3(core::Time::from_ns(2));
  {
    const Both b = expect_equivalent(topo, small_options(), {{0, 2, 0, 0}});
    const Times hand{{ns(1)}, {ns(11)}};
    EXPECT_EQ(b.reference, hand);
    EXPECT_EQ(b.packet, hand);
  }
  for (bool mbfc : {false, true}) {
    SCOPED_TRACE(mbfc ? "message-based" : "per packet");
    auto opt = small_options();
    opt.vcs = 1;
    opt.vc_buffer_flits = 1;
    opt.message_based_flow_control = mbfc;
    expect_equivalent(topo, opt,
                      {{0, 2, 0, 0}, {0, 2, 64, 0}, {1, 2, 0, 3}, {1, 2, 100, 3}, {2, 0, 0, 1}});
  }
}

// Case 4. A bidirectional ring of 4 with dateline classes (2 VCs: one per class) and small
// buffers: messages crossing the wrap-around link (3 -> 0 and 0 -> 3) use VC 1 there and after.
TEST(WormholeEquivalence, RingWithDatelineClasses) {
  const auto topo = topology::ring(4, kBw, core::Time::from_ns(1), true);
  for (std::uint32_t depth : {1u, 2u, 6u}) {
    SCOPED_TRACE("buffer " + std::to_string(depth));
    auto opt = small_options();
    opt.vc_buffer_flits = depth;
    const Both b = expect_equivalent(
        topo, opt, {{3, 1, 256, 0}, {0, 2, 256, 0}, {2, 0, 192, 1}, {1, 3, 128, 2}, {3, 0, 64, 0}});
    EXPECT_GT(b.class1_heads, 0u) << "no worm crossed a dateline";
  }
}

// Every NPU of a unidirectional ring of 4 sends 3 hops around it, 1-flit VCs: each worm holds a
// VC of one link and waits for the next link's, held by the next worm. With dateline classes
// (VC 1 from the wrap-around link on) this cannot close into a cycle; with one class the
// reference must report the deadlock instead of looping.
TEST(WormholeEquivalence, DatelineClassesPreventTheRingDeadlock) {
  const auto topo = topology::ring(4, kBw, core::Time::from_ns(1), false);
  auto opt = small_options();
  opt.vcs = 2;
  opt.vc_buffer_flits = 1;
  std::vector<Send> sends;
  for (topology::NodeId s = 0; s < 4; ++s) {
    for (int k = 0; k < 2; ++k) sends.push_back({s, (s + 3) % 4, 256, 0});
  }
  {
    WormholeReference ref(topo, opt, /*ignore_datelines=*/true);
    ref.run(sends);
    EXPECT_NE(ref.error().find("deadlock"), std::string::npos) << ref.error();
  }
  const Both b = expect_equivalent(topo, opt, sends);
  EXPECT_GT(b.class1_heads, 0u);
}

// Random small traffic on small topologies (heterogeneous link and NI rates included) with random
// options, buffers from 1 flit (smaller than a packet) up. Every run must agree exactly.
TEST(WormholeEquivalence, RandomSmallCases) {
  const std::vector<topology::Topology> topos = sweep_topologies();
  std::mt19937 rng(11);
  constexpr std::uint32_t kTrials = 1000;
  constexpr std::uint32_t kShown = 10;  // differing runs reported in full
  std::uint32_t equal = 0, differ = 0, small_buffers = 0, interleaved = 0, stalled = 0;
  std::uint32_t dateline = 0;
  for (std::uint32_t trial = 0; trial < kTrials; ++trial) {
    const RandomCase c = random_case(rng, topos, small_options(), false);
    const network::PacketOptions& opt = c.opt;
    const std::uint32_t packet_flits = opt.packet_payload_bytes / opt.flit_bytes + 1;
    const Both b = run_both(*c.topo, opt, c.sends);
    const bool small = opt.vc_buffer_flits < packet_flits ||
                       (opt.injection_queue_flits && *opt.injection_queue_flits < packet_flits) ||
                       (opt.ejection_queue_flits && *opt.ejection_queue_flits < packet_flits);
    small_buffers += small ? 1 : 0;
    interleaved += b.interleavings > 0 ? 1 : 0;
    stalled += b.credit_stalls > 0 ? 1 : 0;
    dateline += b.class1_heads > 0 ? 1 : 0;
    const bool same =
        b.reference_error.empty() && b.packet_error.empty() && b.packet == b.reference;
    ++(same ? equal : differ);
    if (same || differ > kShown) continue;
    SCOPED_TRACE(c.describe(trial));
    EXPECT_EQ(b.reference_error, "");
    EXPECT_EQ(b.packet_error, "");
    EXPECT_EQ(b.packet.injected, b.reference.injected);
    EXPECT_EQ(b.packet.delivered, b.reference.delivered);
  }
  EXPECT_EQ(differ, 0u) << "runs that differ (the first " << kShown << " are shown above)";
  // The sweep exercises what wormhole adds: sub-packet buffers, interleaving, credit stalls.
  EXPECT_GE(small_buffers, kTrials / 4);
  EXPECT_GE(interleaved, kTrials / 10);
  EXPECT_GE(stalled, kTrials / 4);
  EXPECT_GE(dateline, kTrials / 20);
  RecordProperty("equal", static_cast<int>(equal));
  RecordProperty("differ", static_cast<int>(differ));
  std::printf(
      "[ sweep    ] %u wormhole runs: %u equal, %u not (%u with buffers smaller than a packet, "
      "%u with flit interleaving, %u with credit stalls, %u crossing a dateline)\n",
      kTrials, equal, differ, small_buffers, interleaved, stalled, dateline);
}

}  // namespace
}  // namespace collsim
