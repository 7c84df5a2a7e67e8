// The packet backend (network/packet.hpp): its options checked, its channels and VCs built, and
// messages routed and handed to the NIs. The units that move them are in packet_router.cpp
// (pipeline), packet_allocators.cpp (switch allocators), packet_vc_select.cpp, packet_credits.cpp
// and packet_ni.cpp; its parameters in packet_params.cpp.
#include "network/packet.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "network/packet_allocator.hpp"
#include "network/packet_fabric.hpp"

namespace collsim::network {
namespace {

using packet::kNoChannel;

// Without overflow for any a (a message may be up to 2^64 - 1 bytes).
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

[[noreturn]] void fail(const std::string& key, const std::string& why) {
  throw core::InputError(fmt::format("packet backend option {}: {}", key, why));
}

// Torus rings with a dependency cycle need dateline VC classes.
bool has_datelines(const topology::Topology& topo) {
  for (const auto& d : topo.dimensions()) {
    const std::uint32_t from = topology::traits(d.spec.kind).dependency_cycle_from;
    if (from != 0 && d.spec.size >= from) return true;
  }
  return false;
}

// The option checks that need no channels.
void check_options(const topology::Topology& topo, const BackendOptions& options) {
  const PacketOptions& opt = options.packet;
  if (opt.flit_bytes == 0) fail("flit_bytes", "must be >= 1");
  if (opt.packet_payload_bytes == 0) fail("packet_payload", "must be >= 1 byte");
  if (opt.vcs == 0) fail("vcs", "must be >= 1");
  if (opt.nis_per_npu == 0) fail("nis_per_npu", "must be >= 1");
  if (opt.router_period.ps <= 0) fail("router_clock", "must be > 0");
  if (opt.strict_schedule && !opt.schedule_ni) fail("strict_schedule", "needs schedule_ni");
  if (opt.estimate_lockstep && !opt.strict_schedule) {
    fail("estimate_lockstep", "needs strict_schedule");
  }
  const std::uint64_t packet_flits = 1 + ceil_div(opt.packet_payload_bytes, opt.flit_bytes);
  const bool wormhole = opt.switching == Switching::Wormhole;
  if (opt.vc_buffer_flits == 0) fail("vc_buffer_flits", "must be >= 1");
  if (!wormhole && opt.vc_buffer_flits < packet_flits) {
    fail("vc_buffer_flits",
         fmt::format("must hold a whole packet ({} flits: 1 head + {} B / {} B "
                     "flits) for virtual cut-through, got {}",
                     packet_flits, opt.packet_payload_bytes, opt.flit_bytes, opt.vc_buffer_flits));
  }
  for (const auto& [key, depth] : {std::pair{"injection_queue_flits", opt.injection_queue_flits},
                                   std::pair{"ejection_queue_flits", opt.ejection_queue_flits}}) {
    if (depth && *depth == 0) fail(key, "must be >= 1");
    if (depth && !wormhole && *depth < packet_flits) {
      fail(key, fmt::format("must hold a whole packet ({} flits) for virtual cut-through, got {}",
                            packet_flits, *depth));
    }
  }
  const NiPolicy ni_policy = options.ni_policy.value_or(NiPolicy::Fifo);
  if (ni_policy == NiPolicy::AllAtOnce) {
    fail("ni_policy",
         "all-at-once needs the flow backend's fluid NI; the packet NI sends one "
         "packet at a time (fifo or round-robin)");
  }
  if (ni_policy == NiPolicy::RoundRobin && opt.schedule_ni) {
    fail("ni_policy",
         "round-robin cannot go with schedule_ni, whose NI sends one message at a "
         "time by its schedule");
  }
  if (ni_policy == NiPolicy::RoundRobin && opt.message_based_flow_control) {
    fail("ni_policy",
         "round-robin cannot go with message_based_flow_control: a message's "
         "headless packets must follow its head");
  }
  if (static_cast<std::size_t>(opt.switch_allocator) >= packet::switch_allocators().size()) {
    fail("switch_allocator", "no such allocator");
  }
  const std::uint32_t vcs = opt.vcs;
  if (has_datelines(topo) && (vcs < 2 || vcs % 2 != 0)) {
    fail("vcs", fmt::format("must be even and >= 2 on {}: half the VCs are the dateline class "
                            "that keeps ring routing deadlock-free, got {}",
                            topo.name(), vcs));
  }
  if (!has_datelines(topo) && topo.vc_classes() > 1 && vcs < topo.vc_classes()) {
    fail("vcs", fmt::format("must be >= {} on {}: its routes need {} virtual-channel classes "
                            "(one more per global link crossed) to be deadlock-free, got {}",
                            topo.vc_classes(), topo.name(), topo.vc_classes(), vcs));
  }
}

}  // namespace

namespace packet {

Fabric::Fabric(core::Simulation& s, const topology::Topology& t, const BackendOptions& options,
               std::function<void(std::uint32_t, std::uint32_t, std::uint32_t)> route,
               LinkObserver* const& links_observer)
    : sim(s),
      topo(t),
      opt(options.packet),
      route_via(std::move(route)),
      link_observer(links_observer) {
  wormhole = opt.switching == Switching::Wormhole;
  // Worms hold their VCs: wormhole's packets, and message-based flow control's messages (a head
  // flit leads the whole message, so its sub-packets must follow it into the same VCs).
  worms = wormhole || opt.message_based_flow_control;
  ni_round_robin = options.ni_policy.value_or(NiPolicy::Fifo) == NiPolicy::RoundRobin;
  vcs = opt.vcs;
  per_flit_credits = opt.credit_return == CreditReturn::PerFlit;
  allocator = switch_allocators()[static_cast<std::size_t>(opt.switch_allocator)].make();
  pipeline = opt.router_period * opt.router_pipeline_cycles;
  credit_delay = opt.router_period * opt.credit_delay_cycles;
  const bool datelines = has_datelines(topo);
  const std::uint32_t num_classes = datelines ? 0 : topo.vc_classes();

  const auto& links = topo.links();
  const std::uint32_t n = topo.num_npus(), per_npu = opt.nis_per_npu;
  const auto flit = core::Bytes{opt.flit_bytes};
  for (topology::LinkId l = 0; l < links.size(); ++l) {
    Channel c;
    c.from = links[l].src;
    c.to = links[l].dst;
    c.flit_time = core::transfer_time(flit, links[l].bandwidth);
    c.latency = links[l].latency;
    c.dim = links[l].dim;
    c.link = static_cast<std::int32_t>(l);
    c.raises = num_classes > 1 && topo.raises_vc_class(l);
    if (datelines && topo.is_npu(c.from) && topo.is_npu(c.to) && !topo.dimensions().empty()) {
      const auto& spec = topo.dimensions()[c.dim].spec;
      if (topology::traits(spec.kind).wraps) {
        const auto a = topo.coords(c.from)[c.dim], b = topo.coords(c.to)[c.dim];
        c.dateline = (a > b ? a - b : b - a) > 1 || (spec.size == 2 && a > b);
      }
    }
    channels.push_back(std::move(c));
  }
  // NI channels, in blocks of n * per_npu: injection, ejection, then the NI queue stages if any
  // (feed: NPU -> injection queue; drain: ejection queue -> NPU).
  const bool injq = opt.injection_queue_flits.has_value();
  const bool ejq = opt.ejection_queue_flits.has_value();
  enum Stage { kInjection, kEjection, kFeed, kDrain };
  double fastest_link = 1;  // bytes/s; only a topology without links keeps this
  for (const auto& l : links) fastest_link = std::max(fastest_link, l.bandwidth.bytes_per_s);
  for (Stage stage : {kInjection, kEjection, kFeed, kDrain}) {
    if ((stage == kFeed && !injq) || (stage == kDrain && !ejq)) continue;
    if (stage == kFeed) feed_base = static_cast<std::uint32_t>(channels.size());
    if (stage == kDrain) drain_base = static_cast<std::uint32_t>(channels.size());
    for (topology::NodeId npu = 0; npu < n; ++npu) {
      double link_bw = 0;
      for (topology::LinkId l : topo.out_links(npu)) {
        link_bw = std::max(link_bw, links[l].bandwidth.bytes_per_s);
      }
      // An NPU with no outgoing link (a general graph) still ejects: at the fastest link rate.
      if (link_bw <= 0) link_bw = fastest_link;
      const double npu_bw = opt.ni_bandwidth ? opt.ni_bandwidth->bytes_per_s : link_bw;
      // With a queue stage, the NI's channel to or from the router runs at the router's speed.
      const bool router_side = (stage == kInjection && injq) || (stage == kEjection && ejq);
      for (std::uint32_t i = 0; i < per_npu; ++i) {
        Channel c;
        c.from = c.to = npu;
        c.flit_time = core::transfer_time(flit, core::Bandwidth{router_side ? link_bw : npu_bw});
        c.injection = stage == kInjection || stage == kFeed;
        c.ejection = stage == kEjection || stage == kDrain;
        c.sink = (stage == kEjection && !ejq) || stage == kDrain;
        c.into_ni = stage == kFeed || (stage == kEjection && ejq);
        c.dim = UINT32_MAX;
        channels.push_back(std::move(c));
      }
    }
  }
  const auto num_channels = static_cast<std::uint32_t>(channels.size());
  classes = VcClasses(vcs, datelines, num_classes, num_channels);
  ivcs.resize(std::size_t{num_channels} * vcs + std::size_t{n} * per_npu);
  for (std::uint32_t ch = 0; ch < num_channels; ++ch) {
    const Channel& c = channels[ch];
    for (std::uint32_t v = 0; v < vcs; ++v) {
      InputVc& in = ivcs[std::size_t{ch} * vcs + v];
      in.channel = ch;
      if (c.sink) continue;
      if (c.into_ni) {
        // An NI queue: one FIFO (VC 0) of the configured depth.
        in.credits = v != 0        ? 0
                     : c.injection ? *opt.injection_queue_flits
                                   : *opt.ejection_queue_flits;
      } else {
        in.credits = opt.vc_buffer_flits;
      }
    }
  }
  ni_queue_base = num_channels * vcs;
  for (std::size_t q = ni_queue_base; q < ivcs.size(); ++q) ivcs[q].channel = kNoChannel;
  nis.resize(std::size_t{n} * per_npu);
  next_ni.assign(n, 0);
  if (opt.schedule_ni) {
    pending.resize(n);
    next_dst_ni.assign(n, 0);
  }
  stats.resize(links.size());
}

Fabric::~Fabric() = default;

}  // namespace packet

PacketBackend::PacketBackend(core::Simulation& sim, const topology::Topology& topo,
                             const BackendOptions& options)
    : Backend(topo),
      topo_(topo),
      opt_(options.packet),
      multipath_(topo, options.multipath, options.ecmp_seed, "packet") {
  if (options.multipath != Multipath::None && topology::has_flat_switch_links(topo)) {
    fail("multipath", fmt::format("{} has links between switches of one layer (its routes turn "
                                  "round there): spread over every shortest path they can wait "
                                  "on each other in a cycle of full buffers and deadlock; use "
                                  "the flow backend",
                                  topo.name()));
  }
  if (options.multipath == Multipath::SprayPacket && opt_.message_based_flow_control) {
    fail("multipath",
         "spray-packet cannot go with message_based_flow_control: a message's "
         "headless packets must follow its head");
  }
  check_options(topo, options);
  fabric_ = std::make_unique<packet::Fabric>(
      sim, topo, options,
      [this](std::uint32_t m, std::uint32_t src_ni, std::uint32_t dst_ni) {
        route_via(m, src_ni, dst_ni);
      },
      link_observer_);
}

PacketBackend::~PacketBackend() = default;

const std::vector<LinkStats>& PacketBackend::link_stats() const { return fabric_->stats; }

void PacketBackend::set_packet_observer(PacketObserver* o) { fabric_->observer = o; }

std::string PacketBackend::channel_name(std::uint32_t ch) const {
  if (ch == kNoChannel) return "NI queue";
  const packet::Channel& c = fabric_->channels[ch];
  if (c.link >= 0) return fmt::format("link {}->{}", c.from, c.to);
  const char* stage = c.into_ni ? (c.injection ? "feed" : "ejection-to-queue")
                      : c.sink && fabric_->drain_base != kNoChannel ? "drain"
                      : c.injection                                 ? "injection"
                                                                    : "ejection";
  return fmt::format("NPU {} NI {} {}", c.from, (ch - topo_.links().size()) % opt_.nis_per_npu,
                     stage);
}

std::uint64_t PacketBackend::flits_for(std::uint64_t bytes) const {
  const std::uint64_t packets =
      std::max<std::uint64_t>(1, ceil_div(bytes, opt_.packet_payload_bytes));
  const std::uint64_t heads = opt_.message_based_flow_control ? 1 : packets;
  // Full packets, then the last one's remainder (closed form: a message may hold 10^17 packets).
  const std::uint64_t payload = opt_.packet_payload_bytes;
  const std::uint64_t payload_flits = bytes / payload * ceil_div(payload, opt_.flit_bytes) +
                                      ceil_div(bytes % payload, opt_.flit_bytes);
  return heads + payload_flits;
}

void PacketBackend::transmit(topology::NodeId src, topology::NodeId dst, core::Bytes bytes,
                             const MessageAttributes& attrs, DeliveryHandler& handler,
                             std::uint64_t tag) {
  packet::Fabric& f = *fabric_;
  const std::uint32_t m = f.messages.acquire();
  packet::Message& msg = f.messages[m];
  msg.handler = &handler;
  msg.tag = tag;
  msg.sent = f.sim.now();
  msg.src = src;
  msg.dst = dst;
  msg.priority_key = attrs.priority == 0 ? UINT32_MAX : attrs.priority;
  msg.route_path = attrs.path;
  if (multipath_.active()) msg.first_path = multipath_.message_path(src, dst, attrs);
  msg.step = attrs.priority;
  msg.step_state = UINT32_MAX;
  for (std::uint32_t i = 0; i < f.steps.size() && attrs.priority != 0; ++i) {
    if (f.steps[i].flow == attrs.flow) msg.step_state = i;
  }
  msg.bytes_left = bytes.count;
  msg.packets_made = 0;
  msg.undelivered =
      f.wormhole ? flits_for(bytes.count)
                 : std::max<std::uint64_t>(1, ceil_div(bytes.count, opt_.packet_payload_bytes));
  msg.flits_left_in_packet = 0;
  f.enqueue(m, attrs.ni);
}

// Message m leaves through NI src_ni of its source and arrives at NI dst_ni of its destination.
void PacketBackend::route_via(std::uint32_t m, std::uint32_t src_ni, std::uint32_t dst_ni) {
  packet::Fabric& f = *fabric_;
  packet::Message& msg = f.messages[m];
  const std::uint32_t nis = opt_.nis_per_npu;
  msg.path.clear();
  msg.num_paths = 1;
  msg.cur_off = 0;
  if (f.feed_base != kNoChannel) msg.path.push_back(f.feed_base + msg.src * nis + src_ni);
  msg.path.push_back(f.ni_channel(msg.src, src_ni, false));
  // Channel ids of topology links are their link ids.
  const std::uint32_t step = msg.priority_key == UINT32_MAX ? 0 : msg.priority_key;
  bool spray = false;
  if (!multipath_.active()) {
    route(topo_, msg.src, msg.dst, step, msg.route_path, msg.path);
  } else if (!pinned_route(msg.src, msg.dst, step, msg.path)) {
    multipath_.append(msg.src, msg.dst, msg.first_path, msg.path);
    spray = multipath_.rule() == Multipath::SprayPacket;
  }
  msg.path.push_back(f.ni_channel(msg.dst, dst_ni, true));
  if (f.drain_base != kNoChannel) msg.path.push_back(f.drain_base + msg.dst * nis + dst_ni);
  if (spray) spray_paths(m, src_ni, dst_ni);
}

// spray-packet: the message's paths after its first (which route_via built), as many as it has
// packets, at most kMaxSprayPaths; the equal-cost paths all have the same number of channels.
void PacketBackend::spray_paths(std::uint32_t m, std::uint32_t src_ni, std::uint32_t dst_ni) {
  packet::Fabric& f = *fabric_;
  packet::Message& msg = f.messages[m];
  msg.path_len = static_cast<std::uint32_t>(msg.path.size());
  // No packet is cut yet: bytes_left is the message's size.
  const std::uint64_t packets =
      std::max<std::uint64_t>(1, ceil_div(msg.bytes_left, opt_.packet_payload_bytes));
  const std::uint64_t p = multipath_.paths(msg.src, msg.dst);
  const std::uint64_t n = std::min<std::uint64_t>({p, packets, kMaxSprayPaths});
  if (n <= 1) return;
  const std::uint32_t nis = opt_.nis_per_npu;
  const std::size_t links =
      msg.path_len - 2 - (f.feed_base != kNoChannel ? 1 : 0) - (f.drain_base != kNoChannel ? 1 : 0);
  for (std::uint64_t i = 1; i < n; ++i) {
    if (f.feed_base != kNoChannel) msg.path.push_back(f.feed_base + msg.src * nis + src_ni);
    msg.path.push_back(f.ni_channel(msg.src, src_ni, false));
    const std::size_t before = msg.path.size();
    multipath_.append(msg.src, msg.dst, msg.first_path + (n == p ? i : i * (p / n)), msg.path);
    if (msg.path.size() - before != links) {
      // Paths of different lengths (not on a shortest-path graph): every packet takes the first.
      msg.path.resize(msg.path_len);
      return;
    }
    msg.path.push_back(f.ni_channel(msg.dst, dst_ni, true));
    if (f.drain_base != kNoChannel) msg.path.push_back(f.drain_base + msg.dst * nis + dst_ni);
  }
  msg.num_paths = static_cast<std::uint32_t>(n);
}

bool PacketBackend::wants_step_plan() const { return opt_.schedule_ni && opt_.strict_schedule; }

void PacketBackend::set_step_plan(std::uint32_t flow, StepPlan plan) {
  if (!wants_step_plan()) return;
  fabric_->set_step_plan(flow, std::move(plan));
}

std::vector<std::pair<std::string, double>> PacketBackend::summary() const {
  const packet::Fabric& f = *fabric_;
  std::vector<double> lat = f.latencies_ns;
  std::sort(lat.begin(), lat.end());
  auto pct = [&](double q) {
    return lat.empty() ? 0.0
                       : lat[static_cast<std::size_t>(q * static_cast<double>(lat.size() - 1))];
  };
  return {
      {"head_flit_overhead", f.total_flits ? double(f.head_flits) / double(f.total_flits) : 0.0},
      {"flits", double(f.total_flits)},
      {"flit_hops", double(f.flit_hops)},
      {"max_vc_occupancy_flits", double(f.max_occupancy)},
      {"message_latency_p50_ns", pct(0.5)},
      {"message_latency_p99_ns", pct(0.99)},
      {"message_latency_max_ns", lat.empty() ? 0.0 : lat.back()}};
}

std::string PacketBackend::describe_blocked() const {
  const packet::Fabric& f = *fabric_;
  std::string s;
  int listed = 0;
  for (std::uint32_t ch = 0; ch < f.channels.size() && listed < 4; ++ch) {
    const packet::Channel& c = f.channels[ch];
    if (c.requests.empty()) continue;
    std::string credits;
    for (std::uint32_t v = 0; v < f.vcs && !c.sink; ++v) {
      credits += fmt::format("{}{}", v ? "/" : "", f.ivcs[std::size_t{ch} * f.vcs + v].credits);
    }
    s += fmt::format("{}channel {}->{}{}: {} packet(s) waiting, downstream VC credits {}",
                     listed ? "; " : "", c.from, c.to,
                     c.injection  ? " (NI, injection)"
                     : c.ejection ? " (NI, ejection)"
                                  : "",
                     c.requests.size(), credits.empty() ? "sink" : credits);
    ++listed;
  }
  return s;
}

}  // namespace collsim::network
