#pragma once
// Shared by the two flit-by-flit equivalence tests (network/packet_equivalence_test.cpp: virtual
// cut-through; network/wormhole_equivalence_test.cpp: wormhole): the cycle, the traffic and result types,
// the Driver that runs PacketBackend on a list of sends, and the small topologies and options.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
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

namespace collsim::testing {

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

// Per message, in the order of the sends: when its last flit had left the source NI (injected)
// and when its last flit had been ejected (delivered), in ps; -1: never.
struct Times {
  std::vector<std::int64_t> injected;
  std::vector<std::int64_t> delivered;
  bool operator==(const Times&) const = default;
};

inline Cycle to_cycles(core::Time t, const char* what) {
  EXPECT_EQ(t.ps % kCyclePs, 0) << what << " (" << t.ps << " ps) is not a whole number of cycles";
  return t.ps / kCyclePs;
}

// PacketBackend driven directly: each send is an event at its cycle; the callbacks record.
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

inline topology::Link link(topology::NodeId a, topology::NodeId b, core::Time lat,
                           core::Bandwidth bw = kBw) {
  return topology::Link{a, b, bw, lat, 0};
}

// NPUs 0 - 1 - 2 joined by links both ways; each NPU's router is its own node. Channels: links
// 0->1 (0), 1->0 (1), 1->2 (2), 2->1 (3); injection 4, 5, 6; ejection 7, 8, 9.
inline topology::Topology line3(core::Time lat) {
  return topology::Topology::graph(
      "line3", 3, 3, {link(0, 1, lat), link(1, 0, lat), link(1, 2, lat), link(2, 1, lat)});
}

// 64 B payload in 16 B flits: 5-flit packets (4 flits after the first with message-based flow
// control); 1 ns pipeline and credit delay.
inline network::PacketOptions small_packet_options() {
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

// The channels both references simulate, indexed as packet.cpp indexes them: every directed
// topology link (id = link id), then per NPU an injection channel (NI -> router) and an ejection
// channel (router -> NI), then with NI queues a feed (NPU -> injection queue) and a drain
// (ejection queue -> NPU) per NPU. NI channels have no latency and the NI bandwidth (unset: the
// NPU's fastest link), except that the side of a queue facing the router runs at the link rate.
struct ChannelSpec {
  Cycle flit_cycles = 1;
  Cycle latency = 0;
  bool sink = false;              // delivers: the ejection channel, or the drain after a queue
  std::uint32_t queue_depth = 0;  // > 0: ends in an NI queue of this many flits (VC 0 only)
  bool link = false;
  bool dateline = false;  // a ring's wrap-around link: packets switch to the upper VC class
  std::uint32_t dim = kNone;
};
struct ChannelLayout {
  std::vector<ChannelSpec> channels;
  bool class_split = false;  // a ring dimension: VCs split into two dateline classes
  std::uint32_t feed = kNone, drain = kNone;  // first feed / drain channel, if any

  // The channels a message from src to dst takes: [feed], injection, route, ejection, [drain].
  std::vector<std::uint32_t> path(const topology::Topology& topo, topology::NodeId src,
                                  topology::NodeId dst) const {
    const auto injection = static_cast<std::uint32_t>(topo.links().size());
    const std::uint32_t ejection = injection + topo.num_npus();
    std::vector<std::uint32_t> p;
    if (feed != kNone) p.push_back(feed + src);
    p.push_back(injection + src);
    for (topology::LinkId l : topo.route(src, dst)) p.push_back(l);
    p.push_back(ejection + dst);
    if (drain != kNone) p.push_back(drain + dst);
    return p;
  }
};

// A reference's channels, each starting from its spec (Channel derives from ChannelSpec).
template <class Channel>
std::vector<Channel> make_channels(const ChannelLayout& layout) {
  std::vector<Channel> out;
  for (const ChannelSpec& spec : layout.channels) {
    Channel c;
    static_cast<ChannelSpec&>(c) = spec;
    out.push_back(std::move(c));
  }
  return out;
}

// The entries of a time-keyed schedule due at t, removed from it.
template <typename T>
std::vector<T> take(std::map<Cycle, std::vector<T>>& due, Cycle t) {
  std::vector<T> now;
  if (auto it = due.find(t); it != due.end()) {
    now = std::move(it->second);
    due.erase(it);
  }
  return now;
}

inline ChannelLayout channel_layout(const topology::Topology& topo,
                                    const network::PacketOptions& opt,
                                    bool ignore_datelines = false) {
  ChannelLayout out;
  const core::Bytes flit{opt.flit_bytes};
  for (const auto& d : topo.dimensions()) {
    out.class_split = out.class_split ||
                      (d.spec.kind == topology::DimKind::Ring && d.spec.size >= 3) ||
                      (d.spec.kind == topology::DimKind::UniRing && d.spec.size >= 2);
  }
  out.class_split = out.class_split && !ignore_datelines;
  const auto& links = topo.links();
  for (const topology::Link& l : links) {
    ChannelSpec c;
    c.flit_cycles = to_cycles(core::transfer_time(flit, l.bandwidth), "link flit time");
    c.latency = to_cycles(l.latency, "link latency");
    c.dim = l.dim;
    c.link = true;
    if (out.class_split && topo.is_npu(l.src) && topo.is_npu(l.dst)) {
      const auto& spec = topo.dimensions()[l.dim].spec;
      if (spec.kind == topology::DimKind::Ring || spec.kind == topology::DimKind::UniRing) {
        const std::int64_t a = topo.coords(l.src)[l.dim], b = topo.coords(l.dst)[l.dim];
        c.dateline = std::abs(a - b) > 1 || (spec.size == 2 && a > b);
      }
    }
    out.channels.push_back(c);
  }
  const bool injq = opt.injection_queue_flits.has_value();
  const bool ejq = opt.ejection_queue_flits.has_value();
  for (int stage = 0; stage < 4; ++stage) {  // injection, ejection, feed, drain
    if ((stage == 2 && !injq) || (stage == 3 && !ejq)) continue;
    if (stage == 2) out.feed = static_cast<std::uint32_t>(out.channels.size());
    if (stage == 3) out.drain = static_cast<std::uint32_t>(out.channels.size());
    for (topology::NodeId npu = 0; npu < topo.num_npus(); ++npu) {
      double link_bw = 0;
      for (topology::LinkId l : topo.out_links(npu)) {
        link_bw = std::max(link_bw, links[l].bandwidth.bytes_per_s);
      }
      const bool router_side = (stage == 0 && injq) || (stage == 1 && ejq);
      const double bw = router_side || !opt.ni_bandwidth ? link_bw : opt.ni_bandwidth->bytes_per_s;
      ChannelSpec c;
      c.flit_cycles = to_cycles(core::transfer_time(flit, core::Bandwidth{bw}), "NI flit time");
      c.sink = (stage == 1 && !ejq) || stage == 3;
      c.queue_depth = stage == 2 ? *opt.injection_queue_flits
                                 : (stage == 1 && ejq ? *opt.ejection_queue_flits : 0);
      out.channels.push_back(c);
    }
  }
  return out;
}

// PacketBackend on `sends` (each handed over at its cycle): its times, and what it reports as
// blocked when the queue drained ("" if nothing).
struct PacketTimes {
  Times times;
  std::string blocked;
};
inline PacketTimes drive_packet_backend(const topology::Topology& topo,
                                        const network::PacketOptions& opt,
                                        const std::vector<Send>& sends) {
  core::Simulation sim;
  network::BackendOptions options;
  options.packet = opt;
  // The flit-level references implement collsim's allocation before issue 37, which the backend
  // keeps as options; the textbook allocator (the default) is checked by the properties of
  // tests/network/packet_router_test.cpp.
  options.packet.credit_return = network::CreditReturn::PerPacket;
  options.packet.vc_select = network::VcSelect::MostFree;
  options.packet.switch_allocator = network::SwitchAllocator::OutputOrder;
  network::PacketBackend net(sim, topo, options);
  Driver driver(sim, net, sends);
  for (std::uint32_t m = 0; m < sends.size(); ++m) {
    sim.schedule_at(core::Time::from_ps(sends[m].at * kCyclePs), driver, m);
  }
  sim.run();
  return {driver.times, net.describe_blocked()};
}

// The small topologies of the random sweeps: a line, rings both ways, a switch, a mesh, a torus,
// and a line with mixed link rates and latencies.
inline std::vector<topology::Topology> sweep_topologies() {
  const core::Bandwidth half{8e9};
  const auto nanos = [](std::int64_t v) { return core::Time::from_ns(v); };
  const auto mixed = topology::Topology::graph(
      "line4-mixed", 4, 4,
      {link(0, 1, nanos(1)), link(1, 0, nanos(1), half), link(1, 2, nanos(0), half),
       link(2, 1, nanos(2)), link(2, 3, nanos(1)), link(3, 2, nanos(1), half)});
  return {line3(nanos(1)),
          topology::ring(4, kBw, nanos(2), true),
          topology::ring(3, kBw, nanos(1), false),
          topology::switch_star(3, kBw, nanos(1)),
          topology::mesh({2, 2}, kBw, nanos(1)),
          topology::torus({3, 2}, kBw, nanos(0)),
          mixed};
}

// One random case of a sweep: 2-6 messages of 1-400 B sent in the first 25 cycles, with random
// packet size, VCs (even on rings), pipeline and credit delays, message-based flow control, NI
// bandwidth and NI queues. Buffers and queues hold at least a packet when `whole_packets` (virtual
// cut-through), else 1-8 flits (wormhole).
struct RandomCase {
  const topology::Topology* topo = nullptr;
  network::PacketOptions opt;
  std::vector<Send> sends;

  std::string describe(std::uint32_t trial) const {
    std::string what =
        "trial " + std::to_string(trial) + " on " + topo->name() + ": payload " +
        std::to_string(opt.packet_payload_bytes) + ", vcs " + std::to_string(opt.vcs) +
        ", buffer " + std::to_string(opt.vc_buffer_flits) + ", pipeline " +
        std::to_string(opt.router_pipeline_cycles) + ", credit delay " +
        std::to_string(opt.credit_delay_cycles) +
        (opt.ni_bandwidth ? ", NI " + core::to_string(*opt.ni_bandwidth) : "") +
        (opt.injection_queue_flits
             ? ", injection queue " + std::to_string(*opt.injection_queue_flits)
             : "") +
        (opt.ejection_queue_flits ? ", ejection queue " + std::to_string(*opt.ejection_queue_flits)
                                  : "") +
        (opt.message_based_flow_control ? ", message-based" : "") + "; sends";
    for (const Send& s : sends) {
      what += " " + std::to_string(s.src) + "->" + std::to_string(s.dst) + " " +
              std::to_string(s.bytes) + " B at " + std::to_string(s.at);
    }
    return what;
  }
};

inline RandomCase random_case(std::mt19937& rng, const std::vector<topology::Topology>& topos,
                              network::PacketOptions opt, bool whole_packets) {
  const auto pick = [&](std::uint32_t n) {
    return std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng);
  };
  RandomCase c;
  c.topo = &topos[pick(static_cast<std::uint32_t>(topos.size()))];
  bool rings = false;
  for (const auto& d : c.topo->dimensions()) {
    rings = rings || d.spec.kind == topology::DimKind::Ring ||
            d.spec.kind == topology::DimKind::UniRing;
  }
  opt.packet_payload_bytes = 32 + 32 * pick(3);
  const std::uint32_t packet_flits = opt.packet_payload_bytes / opt.flit_bytes + 1;
  const std::uint32_t least = whole_packets ? packet_flits : 1;
  opt.vcs = rings ? 2 + 2 * pick(2) : 1 + pick(3);
  opt.vc_buffer_flits = least + pick(whole_packets ? 6 : 8);
  opt.router_pipeline_cycles = pick(3);
  opt.credit_delay_cycles = pick(3);
  opt.message_based_flow_control = pick(2) == 1;
  if (pick(3) == 0) opt.ni_bandwidth = core::Bandwidth{pick(2) == 0 ? 8e9 : 4e9};
  if (pick(4) == 0) opt.injection_queue_flits = least + pick(8);
  if (pick(4) == 0) opt.ejection_queue_flits = least + pick(8);
  c.opt = opt;
  const std::uint32_t n = c.topo->num_npus();
  for (std::uint32_t k = 0, count = 2 + pick(5); k < count; ++k) {
    const topology::NodeId src = pick(n);
    const topology::NodeId dst = (src + 1 + pick(n - 1)) % n;
    c.sends.push_back({src, dst, 1 + pick(400), static_cast<Cycle>(pick(25))});
  }
  return c;
}

}  // namespace collsim::testing
