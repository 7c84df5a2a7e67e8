#include "network/packet.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "network/backend.hpp"

namespace collsim::network {
namespace {

constexpr std::uint32_t kNoChannel = UINT32_MAX;
constexpr std::uint32_t kNoVc = UINT32_MAX;

// Without overflow for any a (a message may be up to 2^64 - 1 bytes).
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

}  // namespace

PacketBackend::PacketBackend(core::Simulation& sim, const topology::Topology& topo,
                             const BackendOptions& options)
    : Backend(topo),
      sim_(sim),
      topo_(topo),
      opt_(options.packet),
      multipath_(topo, options.multipath, options.ecmp_seed, "packet") {
  const auto fail = [](const std::string& key, const std::string& why) {
    throw core::InputError(fmt::format("packet backend option {}: {}", key, why));
  };
  if (options.multipath != Multipath::None && topology::has_flat_switch_links(topo)) {
    fail("multipath", fmt::format("{} has links between switches of one layer (its routes turn "
                                  "round there): spread over every shortest path they can wait "
                                  "on each other in a cycle of full buffers and deadlock; use "
                                  "the flow backend",
                                  topo.name()));
  }
  if (options.multipath == Multipath::SprayPacket && opt_.message_based_flow_control) {
    fail("multipath", "spray-packet cannot go with message_based_flow_control: a message's "
                      "headless packets must follow its head");
  }
  if (opt_.flit_bytes == 0) fail("flit_bytes", "must be >= 1");
  if (opt_.packet_payload_bytes == 0) fail("packet_payload", "must be >= 1 byte");
  if (opt_.vcs == 0) fail("vcs", "must be >= 1");
  if (opt_.nis_per_npu == 0) fail("nis_per_npu", "must be >= 1");
  if (opt_.router_period.ps <= 0) fail("router_clock", "must be > 0");
  if (opt_.strict_schedule && !opt_.schedule_ni) fail("strict_schedule", "needs schedule_ni");
  if (opt_.estimate_lockstep && !opt_.strict_schedule) {
    fail("estimate_lockstep", "needs strict_schedule");
  }
  const std::uint64_t packet_flits = 1 + ceil_div(opt_.packet_payload_bytes, opt_.flit_bytes);
  wormhole_ = opt_.switching == Switching::Wormhole;
  // Worms hold their VCs: wormhole's packets, and message-based flow control's messages (a head
  // flit leads the whole message, so its sub-packets must follow it into the same VCs).
  worms_ = wormhole_ || opt_.message_based_flow_control;
  if (opt_.vc_buffer_flits == 0) fail("vc_buffer_flits", "must be >= 1");
  if (!wormhole_ && opt_.vc_buffer_flits < packet_flits) {
    fail("vc_buffer_flits", fmt::format("must hold a whole packet ({} flits: 1 head + {} B / {} B "
                                        "flits) for virtual cut-through, got {}",
                                        packet_flits, opt_.packet_payload_bytes, opt_.flit_bytes,
                                        opt_.vc_buffer_flits));
  }
  for (const auto& [key, depth] : {std::pair{"injection_queue_flits", opt_.injection_queue_flits},
                                   std::pair{"ejection_queue_flits", opt_.ejection_queue_flits}}) {
    if (depth && *depth == 0) fail(key, "must be >= 1");
    if (depth && !wormhole_ && *depth < packet_flits) {
      fail(key, fmt::format("must hold a whole packet ({} flits) for virtual cut-through, got {}",
                            packet_flits, *depth));
    }
  }
  const NiPolicy ni_policy = options.ni_policy.value_or(NiPolicy::Fifo);
  if (ni_policy == NiPolicy::AllAtOnce) {
    fail("ni_policy", "all-at-once needs the flow backend's fluid NI; the packet NI sends one "
                      "packet at a time (fifo or round-robin)");
  }
  ni_round_robin_ = ni_policy == NiPolicy::RoundRobin;
  if (ni_round_robin_ && opt_.schedule_ni) {
    fail("ni_policy", "round-robin cannot go with schedule_ni, whose NI sends one message at a "
                      "time by its schedule");
  }
  if (ni_round_robin_ && opt_.message_based_flow_control) {
    fail("ni_policy", "round-robin cannot go with message_based_flow_control: a message's "
                      "headless packets must follow its head");
  }
  vcs_ = opt_.vcs;
  per_flit_credits_ = opt_.credit_return == CreditReturn::PerFlit;
  input_first_ = opt_.switch_allocator == SwitchAllocator::InputFirst;
  islip_ = opt_.switch_allocator == SwitchAllocator::ISlip;
  pipeline_ = opt_.router_period * opt_.router_pipeline_cycles;
  credit_delay_ = opt_.router_period * opt_.credit_delay_cycles;
  for (const auto& d : topo.dimensions()) {
    const std::uint32_t from = topology::traits(d.spec.kind).dependency_cycle_from;
    datelines_ = datelines_ || (from != 0 && d.spec.size >= from);
  }
  if (datelines_ && (vcs_ < 2 || vcs_ % 2 != 0)) {
    fail("vcs", fmt::format("must be even and >= 2 on {}: half the VCs are the dateline class "
                            "that keeps ring routing deadlock-free, got {}",
                            topo.name(), vcs_));
  }
  if (!datelines_ && topo.vc_classes() > 1) {
    classes_ = topo.vc_classes();
    if (vcs_ < classes_) {
      fail("vcs", fmt::format("must be >= {} on {}: its routes need {} virtual-channel classes "
                              "(one more per global link crossed) to be deadlock-free, got {}",
                              classes_, topo.name(), classes_, vcs_));
    }
    for (std::uint32_t k = 0; k <= classes_; ++k) class_lo_.push_back(k * vcs_ / classes_);
    for (std::uint32_t v = 0; v < vcs_; ++v) {
      std::uint32_t k = 0;
      while (class_lo_[k + 1] <= v) ++k;
      vc_class_of_.push_back(k);
    }
  }

  const auto& links = topo.links();
  const std::uint32_t n = topo.num_npus(), nis = opt_.nis_per_npu;
  const auto flit = core::Bytes{opt_.flit_bytes};
  for (topology::LinkId l = 0; l < links.size(); ++l) {
    Channel c;
    c.from = links[l].src;
    c.to = links[l].dst;
    c.flit_time = core::transfer_time(flit, links[l].bandwidth);
    c.latency = links[l].latency;
    c.dim = links[l].dim;
    c.link = static_cast<std::int32_t>(l);
    c.raises = classes_ != 0 && topo.raises_vc_class(l);
    if (datelines_ && topo.is_npu(c.from) && topo.is_npu(c.to) && !topo.dimensions().empty()) {
      const auto& spec = topo.dimensions()[c.dim].spec;
      if (topology::traits(spec.kind).wraps) {
        const auto a = topo.coords(c.from)[c.dim], b = topo.coords(c.to)[c.dim];
        c.dateline = (a > b ? a - b : b - a) > 1 || (spec.size == 2 && a > b);
      }
    }
    channels_.push_back(std::move(c));
  }
  // NI channels, in blocks of n * nis: injection, ejection, then the NI queue stages if any
  // (feed: NPU -> injection queue; drain: ejection queue -> NPU).
  const bool injq = opt_.injection_queue_flits.has_value();
  const bool ejq = opt_.ejection_queue_flits.has_value();
  enum Stage { kInjection, kEjection, kFeed, kDrain };
  double fastest_link = 1;  // bytes/s; only a topology without links keeps this
  for (const auto& l : links) fastest_link = std::max(fastest_link, l.bandwidth.bytes_per_s);
  for (Stage stage : {kInjection, kEjection, kFeed, kDrain}) {
    if ((stage == kFeed && !injq) || (stage == kDrain && !ejq)) continue;
    if (stage == kFeed) feed_base_ = static_cast<std::uint32_t>(channels_.size());
    if (stage == kDrain) drain_base_ = static_cast<std::uint32_t>(channels_.size());
    for (topology::NodeId npu = 0; npu < n; ++npu) {
      double link_bw = 0;
      for (topology::LinkId l : topo.out_links(npu)) {
        link_bw = std::max(link_bw, links[l].bandwidth.bytes_per_s);
      }
      // An NPU with no outgoing link (a general graph) still ejects: at the fastest link rate.
      if (link_bw <= 0) link_bw = fastest_link;
      const double npu_bw = opt_.ni_bandwidth ? opt_.ni_bandwidth->bytes_per_s : link_bw;
      // With a queue stage, the NI's channel to or from the router runs at the router's speed.
      const bool router_side = (stage == kInjection && injq) || (stage == kEjection && ejq);
      for (std::uint32_t i = 0; i < nis; ++i) {
        Channel c;
        c.from = c.to = npu;
        c.flit_time = core::transfer_time(flit, core::Bandwidth{router_side ? link_bw : npu_bw});
        c.injection = stage == kInjection || stage == kFeed;
        c.ejection = stage == kEjection || stage == kDrain;
        c.sink = (stage == kEjection && !ejq) || stage == kDrain;
        c.into_ni = stage == kFeed || (stage == kEjection && ejq);
        c.dim = UINT32_MAX;
        channels_.push_back(std::move(c));
      }
    }
  }
  for (Channel& c : channels_) {
    if (c.sink) continue;
    if (worms_) c.held.assign(vcs_, 0);
    if (c.into_ni) {
      // An NI queue: one FIFO (VC 0) of the configured depth.
      c.credits.assign(vcs_, 0);
      c.credits[0] = c.injection ? *opt_.injection_queue_flits : *opt_.ejection_queue_flits;
    } else {
      c.credits.assign(vcs_, opt_.vc_buffer_flits);
    }
  }
  class_rr_.assign(channels_.size() * classes_, 0);
  ivcs_.resize(channels_.size() * vcs_ + std::size_t{n} * nis);
  for (std::uint32_t ch = 0; ch < channels_.size(); ++ch) {
    for (std::uint32_t v = 0; v < vcs_; ++v) ivcs_[ch * vcs_ + v].channel = ch;
  }
  ni_queue_base_ = static_cast<std::uint32_t>(channels_.size() * vcs_);
  for (std::size_t q = ni_queue_base_; q < ivcs_.size(); ++q) ivcs_[q].channel = kNoChannel;
  nis_.resize(std::size_t{n} * nis);
  next_ni_.assign(n, 0);
  if (opt_.schedule_ni) {
    pending_.resize(n);
    next_dst_ni_.assign(n, 0);
  }
  stats_.resize(links.size());
}

std::uint32_t PacketBackend::ni_channel(topology::NodeId npu, std::uint32_t ni,
                                        bool ejection) const {
  const std::uint32_t per = topo_.num_npus() * opt_.nis_per_npu;
  return static_cast<std::uint32_t>(topo_.links().size()) + (ejection ? per : 0) +
         npu * opt_.nis_per_npu + ni;
}

std::string PacketBackend::channel_name(std::uint32_t ch) const {
  if (ch == kNoChannel) return "NI queue";
  const Channel& c = channels_[ch];
  if (c.link >= 0) return fmt::format("link {}->{}", c.from, c.to);
  const char* stage = c.into_ni ? (c.injection ? "feed" : "ejection-to-queue")
                      : c.sink && drain_base_ != kNoChannel ? "drain"
                      : c.injection                         ? "injection"
                                                            : "ejection";
  return fmt::format("NPU {} NI {} {}", c.from,
                     (ch - topo_.links().size()) % opt_.nis_per_npu, stage);
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
  const std::uint32_t m = messages_.acquire();
  Message& msg = messages_[m];
  msg.handler = &handler;
  msg.tag = tag;
  msg.sent = sim_.now();
  msg.src = src;
  msg.dst = dst;
  msg.priority_key = attrs.priority == 0 ? UINT32_MAX : attrs.priority;
  msg.route_path = attrs.path;
  if (multipath_.active()) msg.first_path = multipath_.message_path(src, dst, attrs);
  msg.step = attrs.priority;
  msg.step_state = UINT32_MAX;
  for (std::uint32_t i = 0; i < steps_.size() && attrs.priority != 0; ++i) {
    if (steps_[i].flow == attrs.flow) msg.step_state = i;
  }
  msg.bytes_left = bytes.count;
  msg.packets_made = 0;
  msg.undelivered =
      wormhole_ ? flits_for(bytes.count)
                : std::max<std::uint64_t>(1, ceil_div(bytes.count, opt_.packet_payload_bytes));
  msg.flits_left_in_packet = 0;
  const std::uint32_t nis = opt_.nis_per_npu;
  if (!opt_.schedule_ni) {
    const std::uint32_t ni =
        attrs.ni == MessageAttributes::kAnyNi ? next_ni_[src]++ % nis : attrs.ni % nis;
    route_via(m, ni, ni);
    const std::uint32_t q = src * nis + ni;
    nis_[q].messages.push_back(m);
    if (ivcs_[ni_queue_base_ + q].packets.empty()) next_ni_packet(q);
    return;
  }
  // Behind every waiting message of an earlier or equal step.
  auto& wait = pending_[src];
  auto at = wait.end();
  while (at != wait.begin() && messages_[*(at - 1)].priority_key > msg.priority_key) --at;
  wait.insert(at, m);
  for (std::uint32_t i = 0; i < nis && !wait.empty(); ++i) {
    const std::uint32_t q = src * nis + i;
    if (nis_[q].messages.empty() && ivcs_[ni_queue_base_ + q].packets.empty()) next_ni_packet(q);
  }
}

// Message m leaves through NI src_ni of its source and arrives at NI dst_ni of its destination.
void PacketBackend::route_via(std::uint32_t m, std::uint32_t src_ni, std::uint32_t dst_ni) {
  Message& msg = messages_[m];
  const std::uint32_t nis = opt_.nis_per_npu;
  msg.path.clear();
  msg.num_paths = 1;
  msg.cur_off = 0;
  if (feed_base_ != kNoChannel) msg.path.push_back(feed_base_ + msg.src * nis + src_ni);
  msg.path.push_back(ni_channel(msg.src, src_ni, false));
  // Channel ids of topology links are their link ids.
  const std::uint32_t step = msg.priority_key == UINT32_MAX ? 0 : msg.priority_key;
  bool spray = false;
  if (!multipath_.active()) {
    route(topo_, msg.src, msg.dst, step, msg.route_path, msg.path);
  } else if (!pinned_route(msg.src, msg.dst, step, msg.path)) {
    multipath_.append(msg.src, msg.dst, msg.first_path, msg.path);
    spray = multipath_.rule() == Multipath::SprayPacket;
  }
  msg.path.push_back(ni_channel(msg.dst, dst_ni, true));
  if (drain_base_ != kNoChannel) msg.path.push_back(drain_base_ + msg.dst * nis + dst_ni);
  if (spray) spray_paths(m, src_ni, dst_ni);
}

// spray-packet: the message's paths after its first (which route_via built), as many as it has
// packets, at most kMaxSprayPaths; the equal-cost paths all have the same number of channels.
void PacketBackend::spray_paths(std::uint32_t m, std::uint32_t src_ni, std::uint32_t dst_ni) {
  Message& msg = messages_[m];
  msg.path_len = static_cast<std::uint32_t>(msg.path.size());
  // No packet is cut yet: bytes_left is the message's size.
  const std::uint64_t packets =
      std::max<std::uint64_t>(1, ceil_div(msg.bytes_left, opt_.packet_payload_bytes));
  const std::uint64_t p = multipath_.paths(msg.src, msg.dst);
  const std::uint64_t n = std::min<std::uint64_t>({p, packets, kMaxSprayPaths});
  if (n <= 1) return;
  const std::uint32_t nis = opt_.nis_per_npu;
  const std::size_t links = msg.path_len - 2 - (feed_base_ != kNoChannel ? 1 : 0) -
                            (drain_base_ != kNoChannel ? 1 : 0);
  for (std::uint64_t i = 1; i < n; ++i) {
    if (feed_base_ != kNoChannel) msg.path.push_back(feed_base_ + msg.src * nis + src_ni);
    msg.path.push_back(ni_channel(msg.src, src_ni, false));
    const std::size_t before = msg.path.size();
    multipath_.append(msg.src, msg.dst, msg.first_path + (n == p ? i : i * (p / n)), msg.path);
    if (msg.path.size() - before != links) {
      // Paths of different lengths (not on a shortest-path graph): every packet takes the first.
      msg.path.resize(msg.path_len);
      return;
    }
    msg.path.push_back(ni_channel(msg.dst, dst_ni, true));
    if (drain_base_ != kNoChannel) msg.path.push_back(drain_base_ + msg.dst * nis + dst_ni);
  }
  msg.num_paths = static_cast<std::uint32_t>(n);
}

// schedule_ni: idle NI q takes its NPU's earliest waiting message, if any.
bool PacketBackend::pull_pending(std::uint32_t q) {
  const std::uint32_t nis = opt_.nis_per_npu;
  auto& wait = pending_[q / nis];
  for (auto it = wait.begin(); it != wait.end(); ++it) {
    if (!eligible(*it)) continue;  // strict_schedule: a later step's message waits
    const std::uint32_t m = *it;
    wait.erase(it);
    route_via(m, q % nis, next_dst_ni_[messages_[m].dst]++ % nis);
    nis_[q].messages.push_back(m);
    return true;
  }
  return false;
}

bool PacketBackend::eligible(std::uint32_t m) const {
  const Message& msg = messages_[m];
  if (msg.step_state == UINT32_MAX) return true;
  return steps_[msg.step_state].cur[msg.src] == msg.step;
}

bool PacketBackend::wants_step_plan() const { return opt_.schedule_ni && opt_.strict_schedule; }

void PacketBackend::set_step_plan(std::uint32_t flow, StepPlan plan) {
  if (!wants_step_plan()) return;
  const std::uint32_t n = topo_.num_npus();
  std::uint32_t st = 0;
  while (st < steps_.size() && steps_[st].flow != flow) ++st;
  if (st == steps_.size()) steps_.emplace_back();
  StepState& s = steps_[st];
  s.flow = flow;
  s.plan = std::move(plan);
  s.plan.sends.resize(n);
  s.cur.assign(n, 0);
  s.left.assign(n, 0);
  // The authors' estimate of a step: m 256 B messages (sub-messages) per flow, 17 flits each
  // (16 with message-based flow control, one head flit per flow), ~58 messages of buffering.
  const std::uint64_t m = ceil_div(s.plan.flow_bytes, opt_.packet_payload_bytes);
  const std::uint64_t per = opt_.message_based_flow_control ? 16 : 17;
  const std::uint64_t cycles = m <= 58 ? m : per * m - 58 * 16;
  s.estimate = opt_.router_period * static_cast<std::int64_t>(cycles);
  for (topology::NodeId npu = 0; npu < n; ++npu) advance_step(st, npu, false);
}

void PacketBackend::advance_step(std::uint32_t st, topology::NodeId npu, bool after_sends) {
  StepState& s = steps_[st];
  const std::vector<std::uint32_t>& row = s.plan.sends[npu];
  for (;;) {
    std::uint32_t& cur = s.cur[npu];
    if (cur == UINT32_MAX) return;
    if (++cur >= row.size()) {
      cur = UINT32_MAX;
      return;
    }
    if (row[cur] > 0) {
      s.left[npu] = row[cur];
      fill_nis(npu);
      return;
    }
    if (opt_.estimate_lockstep) {
      const std::uint64_t event = std::uint64_t{st} * topo_.num_npus() + npu;
      sim_.schedule_in(s.estimate * (after_sends ? 2 : 1), *this, ev(kStep, event));
      return;
    }
  }
}

void PacketBackend::fill_nis(topology::NodeId npu) {
  const std::uint32_t nis = opt_.nis_per_npu;
  for (std::uint32_t i = 0; i < nis && !pending_[npu].empty(); ++i) {
    const std::uint32_t q = npu * nis + i;
    if (nis_[q].messages.empty() && ivcs_[ni_queue_base_ + q].packets.empty()) next_ni_packet(q);
  }
}

// Cuts the NI's next packet from its front message (the NI queue holds a message's packets from
// the instant it is sent; making them one at a time gives the same order and timing).
void PacketBackend::next_ni_packet(std::uint32_t q) {
  NiQueue& ni = nis_[q];
  if (ni.messages.empty() && !(opt_.schedule_ni && pull_pending(q))) return;
  const std::uint32_t m = ni.messages.front();
  Message& msg = messages_[m];
  const std::uint32_t id = packets_.acquire();
  Packet& p = packets_[id];
  const bool mbfc = opt_.message_based_flow_control;
  bool packet_start = true;
  if (!wormhole_ || msg.flits_left_in_packet == 0) {
    const std::uint64_t payload =
        std::min<std::uint64_t>(msg.bytes_left, opt_.packet_payload_bytes);
    msg.bytes_left -= payload;
    const bool head_flit = !mbfc || msg.packets_made == 0;
    ++msg.packets_made;
    if (msg.num_paths > 1) msg.cur_off = (msg.packets_made - 1) % msg.num_paths * msg.path_len;
    const auto flits =
        static_cast<std::uint32_t>(ceil_div(payload, opt_.flit_bytes)) + (head_flit ? 1 : 0);
    head_flits_ += head_flit ? 1 : 0;
    total_flits_ += flits;
    msg.flits_left_in_packet = flits;
  } else {
    packet_start = false;
  }
  // Virtual cut-through moves the whole packet; wormhole one flit at a time. A worm is a packet,
  // or with message-based flow control the whole message (one head flit leads it).
  p.flits = wormhole_ ? 1 : msg.flits_left_in_packet;
  msg.flits_left_in_packet -= p.flits;
  const bool packet_end = msg.flits_left_in_packet == 0;
  p.worm_head = packet_start && (!mbfc || msg.packets_made == 1);
  p.worm_tail = packet_end && (!mbfc || msg.bytes_left == 0);
  p.message = m;
  p.hop = msg.cur_off;  // spray-packet: the start of its path in msg.path (else 0)
  p.ivc = ni_queue_base_ + q;
  p.vc_class = 0;
  p.dim = UINT32_MAX;
  p.head_at = p.tail_at = msg.sent;
  p.last = packet_end && msg.bytes_left == 0;
  if (p.last) {
    ni.messages.pop_front();
  } else if (ni_round_robin_ && packet_end && ni.messages.size() > 1) {
    // Round-robin: the next packet comes from the next queued message.
    ni.messages.pop_front();
    ni.messages.push_back(m);
  }
  ivcs_[p.ivc].packets.push_back(id);
  make_ready(p.ivc);
}

// Both run once or twice per packet hop: inline (defined before their uses in this file).
inline core::Time PacketBackend::pipe_of(const InputVc& in) const {
  // Routers take the pipeline delay; NI queues none.
  return in.channel == kNoChannel || channels_[in.channel].into_ni ? core::Time{0} : pipeline_;
}

inline core::Time PacketBackend::port_busy_until(const InputVc& in) const {
  return in.channel == kNoChannel ? in.busy_until : channels_[in.channel].port_busy_until;
}


void PacketBackend::make_ready(std::uint32_t ivc) {
  InputVc& in = ivcs_[ivc];
  if (in.packets.empty() || in.requesting) return;
  const Packet& p = packets_[in.packets.front()];
  const core::Time ready = std::max(p.head_at + pipe_of(in), port_busy_until(in));
  if (ready > sim_.now()) {
    sim_.schedule_at(ready, *this, ev(kReady, ivc));
    return;
  }
  in.requesting = true;
  if (in.channel != kNoChannel) ++channels_[in.channel].port_requests;
  const std::uint32_t ch = messages_[p.message].path[p.hop];
  if (observer_) {
    observer_->on_packet_event({.kind = PacketEvent::Kind::Request,
                                .at = sim_.now(),
                                .packet = in.packets.front(),
                                .message = p.message,
                                .channel = ch,
                                .in_channel = in.channel,
                                .in_vc = in.channel == kNoChannel ? 0 : ivc % vcs_,
                                .out_vc = kNoVc,
                                .flits = p.flits,
                                .until = core::Time{0}});
  }
  channels_[ch].arriving.push_back(ivc);
  request_alloc(ch);
}

void PacketBackend::request_alloc(std::uint32_t ch) {
  Channel& c = channels_[ch];
  if (c.alloc_due) return;
  c.alloc_due = true;
  alloc_due_.push_back(ch);
  if (pass_scheduled_) return;
  pass_scheduled_ = true;
  // Zero delay: runs after every event already queued for this instant.
  sim_.schedule_in(core::Time{0}, *this, ev(kAllocPass, 0));
}

std::uint32_t PacketBackend::CreditBack::arrived_partly(core::Time now) const {
  // Flits j with last - (flits - j) step <= now: j <= flits - ceil((last - now) / step).
  const std::int64_t late = (last - now).ps, st = step.ps;
  const auto behind = static_cast<std::uint64_t>((late + st - 1) / st);
  return behind >= flits ? 0 : flits - static_cast<std::uint32_t>(behind);
}

// Separable allocation, once per instant after the instant's changes: the output channels with
// something new allocate in channel order, each round-robin over its requests; an input port
// granted by one output is busy for the others (a maximal matching, as iSLIP converges to).
// Input-first (the default): an input port offers one of its VCs, its round-robin choice among
// those whose request can go now, and outputs consider only offered VCs; a port whose choice
// lost to another port's is asked again in a further pass of the same instant (another iSLIP
// iteration), when its choice has moved on to a VC whose output is still free.
void PacketBackend::allocation_pass() {
  if (islip_) {
    islip_pass();  // packet_islip.cpp
    return;
  }
  pass_scheduled_ = false;
  ++pass_id_;
  alloc_now_.swap(alloc_due_);
  std::sort(alloc_now_.begin(), alloc_now_.end());
  for (std::uint32_t ch : alloc_now_) {
    Channel& c = channels_[ch];
    c.alloc_due = false;
    std::sort(c.arriving.begin(), c.arriving.end());
    c.requests.insert(c.requests.end(), c.arriving.begin(), c.arriving.end());
    c.arriving.clear();
    try_grant(ch);
  }
  alloc_now_.clear();
  const core::Time now = sim_.now();
  for (std::uint32_t port : chose_) {
    const Channel& pc = channels_[port];
    if (pc.port_busy_until > now || pc.choice == kNoVc) continue;
    const InputVc& chosen = ivcs_[pc.choice];
    if (!chosen.requesting) continue;
    const Packet& cp = packets_[chosen.packets.front()];
    if (channels_[messages_[cp.message].path[cp.hop]].busy_until <= now) continue;
    // Its choice lost: its other VCs may go to outputs that are still free.
    for (std::uint32_t v = 0; v < vcs_; ++v) {
      const InputVc& in = ivcs_[port * vcs_ + v];
      if (!in.requesting) continue;
      const Packet& p = packets_[in.packets.front()];
      const std::uint32_t t = messages_[p.message].path[p.hop];
      if (channels_[t].busy_until <= now) request_alloc(t);
    }
  }
  chose_.clear();
}

std::uint32_t PacketBackend::port_choice(std::uint32_t port, std::uint32_t allocating) {
  Channel& pc = channels_[port];
  if (pc.choice_pass == pass_id_) return pc.choice;
  pc.choice_pass = pass_id_;
  pc.choice = kNoVc;
  chose_.push_back(port);
  const core::Time now = sim_.now();
  std::uint32_t best_key = UINT32_MAX, target = kNoChannel;
  for (std::uint32_t k = 0; k < vcs_; ++k) {
    const std::uint32_t v = pc.port_rr + k < vcs_ ? pc.port_rr + k : pc.port_rr + k - vcs_;
    const std::uint32_t ivc = port * vcs_ + v;
    const InputVc& in = ivcs_[ivc];
    if (!in.requesting) continue;
    const Packet& p = packets_[in.packets.front()];
    const std::uint32_t t = messages_[p.message].path[p.hop];
    if (channels_[t].busy_until > now) continue;
    apply_credits(t);
    if (pick_vc(channels_[t], p, in) == kNoVc) continue;
    // schedule_ni: the earliest step first (round-robin among equals), as the outputs do.
    const std::uint32_t key = messages_[p.message].priority_key;
    if (pc.choice != kNoVc && key >= best_key) continue;
    pc.choice = ivc;
    best_key = key;
    target = t;
    if (!opt_.schedule_ni) break;
  }
  // Its output allocates in this instant (again, if it already has).
  if (target != kNoChannel && target != allocating && !channels_[target].alloc_due) {
    request_alloc(target);
  }
  return pc.choice;
}

std::uint32_t PacketBackend::pick_vc(const Channel& c, const Packet& p, const InputVc& in) const {
  if (c.sink) return 0;
  // Virtual cut-through needs room for the whole packet; wormhole room for one flit, in the VC
  // the worm's head took (body flits) or in an idle VC (a head).
  const std::uint32_t need = p.flits;
  const auto room = [&](std::uint32_t v) {
    if (c.credits[v] >= need) return true;
    if (c.returns_pending == 0) return false;  // nothing coming back to count
    const auto ch = static_cast<std::uint32_t>(&c - channels_.data());
    return c.credits[v] + partial_credits(ch, v) >= need;
  };
  if (!p.worm_head) return room(in.out_vc) ? in.out_vc : kNoVc;
  const auto usable = [&](std::uint32_t v) { return room(v) && (!worms_ || !c.held[v]); };
  if (c.into_ni) return usable(0) ? 0 : kNoVc;
  // Dateline classes: a new dimension starts in class 0; the wrap-around link and everything
  // after it in that dimension use class 1.
  // Topology VC classes: one up on each marked link.
  std::uint32_t lo = 0, hi = vcs_, start = c.vc_rr[0];
  if (datelines_) {
    const std::uint32_t cls = c.dateline ? 1 : c.dim == p.dim ? p.vc_class : 0;
    lo = cls * (vcs_ / 2);
    hi = lo + vcs_ / 2;
    start = c.vc_rr[cls];
  } else if (classes_ != 0) {
    const std::uint32_t cls = std::min(p.vc_class + (c.raises ? 1u : 0u), classes_ - 1);
    lo = class_lo_[cls];
    hi = class_lo_[cls + 1];
    start = class_rr_[static_cast<std::size_t>(&c - channels_.data()) * classes_ + cls];
  }
  if (opt_.vc_select == VcSelect::RoundRobin) {
    // The first usable VC at or after the class's round-robin pointer.
    const std::uint32_t n = hi - lo;
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::uint32_t v = start + k < n ? lo + start + k : lo + start + k - n;
      if (usable(v)) return v;
    }
    return kNoVc;
  }
  // The VC with the most free space (ties: the lowest): packets spread over the VCs instead of
  // queueing behind each other in one, as a VC allocator that prefers idle VCs does.
  std::uint32_t best = kNoVc;
  for (std::uint32_t v = lo; v < hi; ++v) {
    if (usable(v) && (best == kNoVc || c.credits[v] > c.credits[best])) best = v;
  }
  return best;
}

void PacketBackend::schedule_free(std::uint32_t ch) {
  Channel& c = channels_[ch];
  if (c.free_scheduled) return;
  c.free_scheduled = true;
  sim_.schedule_at(c.busy_until, *this, ev(kFree, ch));
}

void PacketBackend::schedule_wake(std::uint32_t ch, core::Time at) {
  Channel& c = channels_[ch];
  if (c.wake_at <= at) return;
  c.wake_at = at;
  sim_.schedule_at(at, *this, ev(kWake, ch));
}

// Credits of returns wholly back by now, for every VC (no division: a comparison per return);
// those of a return still coming back flit by flit are counted by partial_credits and taken at a
// grant (take_partial), so a VC with room to spare costs nothing more.
void PacketBackend::apply_credits(std::uint32_t ch) {
  Channel& c = channels_[ch];
  if (c.sink || c.returns_pending == 0) return;  // nothing coming back: skip the VC loop
  const core::Time now = sim_.now();
  for (std::uint32_t v = 0; v < vcs_; ++v) {
    auto& back = ivcs_[ch * vcs_ + v].returning;
    while (!back.empty() && now >= back.front().last) {
      const CreditBack& r = back.front();
      c.credits[v] += r.flits - r.given;
      if (observer_) report_credit(ch, v, r.last, r.flits - r.given);
      back.pop_front();
      --c.returns_pending;
    }
  }
}

std::uint32_t PacketBackend::partial_credits(std::uint32_t ch, std::uint32_t v) const {
  const auto& back = ivcs_[ch * vcs_ + v].returning;
  if (back.empty()) return 0;
  const CreditBack& r = back.front();  // only the front one can be partly back
  return r.arrived(sim_.now()) - r.given;
}

void PacketBackend::take_partial(std::uint32_t ch, std::uint32_t v) {
  const std::uint32_t got = partial_credits(ch, v);
  if (got == 0) return;
  CreditBack& r = ivcs_[ch * vcs_ + v].returning.front();
  r.given += got;
  channels_[ch].credits[v] += got;
  if (observer_) report_credit(ch, v, sim_.now(), got);
  if (r.given == r.flits) {
    ivcs_[ch * vcs_ + v].returning.pop_front();
    --channels_[ch].returns_pending;
  }
}

void PacketBackend::report_credit(std::uint32_t ch, std::uint32_t v, core::Time at,
                                  std::uint32_t flits) {
  observer_->on_packet_event({.kind = PacketEvent::Kind::Credit,
                              .at = at,
                              .packet = 0,
                              .message = 0,
                              .channel = ch,
                              .in_channel = kNoChannel,
                              .in_vc = 0,
                              .out_vc = v,
                              .flits = flits,
                              .until = core::Time{0}});
}

core::Time PacketBackend::credit_wake(std::uint32_t ch) const {
  const Channel& c = channels_[ch];
  if (c.sink) return core::Time::max();  // no credits: it waits for ports, not space
  const core::Time now = sim_.now();
  core::Time wake = core::Time::max();
  for (std::uint32_t v = 0; v < vcs_; ++v) {
    const auto& back = ivcs_[ch * vcs_ + v].returning;
    // Space back by now, applied or not.
    std::uint32_t have = c.credits[v];
    for (const CreditBack& r : back) {
      const std::uint32_t got = r.arrived(now);
      have += got - r.given;
      if (got < r.flits) break;
    }
    // The next credit count at which one more waiting packet would fit in v (none: v is held
    // back by something other than its space).
    std::uint32_t need = UINT32_MAX;
    for (std::uint32_t r : c.requests) {
      const std::uint32_t f = packets_[ivcs_[r].packets.front()].flits;
      if (f > have) need = std::min(need, f);
    }
    if (need == UINT32_MAX) continue;
    // When the credits still to come make up the rest: strictly after now.
    std::uint32_t missing = need - have;
    for (const CreditBack& r : back) {
      const std::uint32_t got = r.arrived(now);
      const std::uint32_t left = r.flits - got;
      if (left >= missing) {
        wake = std::min(wake, r.time_of(got + missing));
        break;
      }
      missing -= left;
    }
  }
  return wake;
}

// Whether output channel `ch` can grant now: it has requests and is free (else it is woken when
// it frees); its returned credits are applied. Shared by both switch allocators.
bool PacketBackend::ready_to_grant(std::uint32_t ch) {
  Channel& c = channels_[ch];
  c.blocked = false;
  if (c.requests.empty()) return false;
  if (c.busy_until > sim_.now()) {
    schedule_free(ch);
    return false;
  }
  apply_credits(ch);
  return true;
}

void PacketBackend::try_grant(std::uint32_t ch) {
  Channel& c = channels_[ch];
  const core::Time now = sim_.now();
  if (!ready_to_grant(ch)) return;
  const std::size_t n = c.requests.size();
  // Round-robin over the requests that can go (their port is free and a downstream VC has room);
  // schedule_ni: the earliest step among them, round-robin among equals.
  std::size_t idx = n;
  std::uint32_t vc = kNoVc, best_key = UINT32_MAX, best_dist = UINT32_MAX;
  const auto num_ports = static_cast<std::uint32_t>(channels_.size() + nis_.size());
  for (std::size_t k = 0, i = c.rr < n ? c.rr : 0; k < n; ++k, i = i + 1 == n ? 0 : i + 1) {
    const InputVc& cand = ivcs_[c.requests[i]];
    if (cand.channel != kNoChannel) {
      Channel& port = channels_[cand.channel];
      if (port.port_busy_until > now) {
        // Its port is sending another VC's packet: ask again when that tail has left.
        if (!port.port_wake_scheduled) {
          port.port_wake_scheduled = true;
          sim_.schedule_at(port.port_busy_until, *this, ev(kPortFree, cand.channel));
        }
        continue;
      }
      // Input-first: the port offers one VC this instant (a port with one request offers it).
      if (input_first_ && port.port_requests > 1 &&
          port_choice(cand.channel, ch) != c.requests[i]) {
        continue;
      }
    }
    const Packet& cp = packets_[cand.packets.front()];
    const std::uint32_t v = pick_vc(c, cp, cand);
    if (v == kNoVc) continue;
    const std::uint32_t key = opt_.schedule_ni ? messages_[cp.message].priority_key : 0;
    if (input_first_ && n > 1) {
      // A round-robin arbiter over the input ports (each offers one VC): the first after the
      // port granted last (schedule_ni: the earliest step first).
      const std::uint32_t from = port_id(c.requests[i]);
      const std::uint32_t dist =
          from > c.last_grant ? from - c.last_grant : from + num_ports - c.last_grant;
      if (idx == n || key < best_key || (key == best_key && dist < best_dist)) {
        idx = i;
        vc = v;
        best_key = key;
        best_dist = dist;
      }
      if (dist == 1 && !opt_.schedule_ni) break;  // the port right after the last: first in line
      continue;
    }
    if (idx == n || key < best_key) {
      idx = i;
      vc = v;
      best_key = key;
    }
    if (!opt_.schedule_ni) break;
  }
  if (idx != n) {
    grant(ch, idx, vc);
    return;
  }
  // Nobody fits downstream: try again when the earliest credit comes back (or, if none is on its
  // way, when one is sent back).
  c.blocked = true;
  const core::Time wake = credit_wake(ch);
  if (wake != core::Time::max()) schedule_wake(ch, wake);
}

// Grants channel ch to its request at index idx, into downstream VC vc (ignored for a sink): the
// packet (wormhole: flit) leaves its input VC, its credits start back, and it joins vc's FIFO.
void PacketBackend::grant(std::uint32_t ch, std::size_t idx, std::uint32_t vc) {
  Channel& c = channels_[ch];
  const core::Time now = sim_.now();
  const std::uint32_t ivc = c.requests[idx];
  InputVc& in = ivcs_[ivc];
  const std::uint32_t pid = in.packets.front();
  Packet& p = packets_[pid];
  // Grant: round-robin resumes after this requester.
  c.requests.erase(c.requests.begin() + static_cast<std::ptrdiff_t>(idx));
  c.rr = idx < c.requests.size() ? static_cast<std::uint32_t>(idx) : 0;
  c.last_grant = port_id(ivc);
  const core::Time in_pipe = pipe_of(in);
  const core::Time finish =
      std::max(now + c.flit_time * p.flits, p.tail_at + in_pipe + c.flit_time);
  c.busy_until = finish;
  if (!c.requests.empty()) schedule_free(ch);  // nobody waiting: no event needed
  // The packet leaves its input VC: the VC is busy until the tail has gone, and the space goes
  // back to the channel that filled it a latency + credit delay after that.
  in.requesting = false;
  if (in.channel != kNoChannel) --channels_[in.channel].port_requests;
  in.packets.pop_front();
  in.busy_until = finish;
  if (in.channel != kNoChannel) {
    const std::uint32_t up = in.channel;
    channels_[up].port_busy_until = finish;
    const std::uint32_t next = ivc - up * vcs_ + 1;  // no division per grant
    channels_[up].port_rr = next == vcs_ ? 0 : next;
    // Its other VCs that were waiting (an output may have passed them over while the port
    // offered this one) ask again when this tail has left.
    if (channels_[up].port_requests > 0 && !channels_[up].port_wake_scheduled) {
      for (std::uint32_t v = 0; v < vcs_; ++v) {
        if (up * vcs_ + v == ivc || !ivcs_[up * vcs_ + v].requesting) continue;
        channels_[up].port_wake_scheduled = true;
        sim_.schedule_at(finish, *this, ev(kPortFree, up));
        break;
      }
    }
    // Each flit's credit leaves as the flit leaves the VC (at the output's flit rate, the tail
    // at `finish`; per packet: all at the tail) and crosses the upstream channel back.
    const core::Time back = finish + channels_[up].latency + credit_delay_;
    const core::Time step = per_flit_credits_ ? c.flit_time : core::Time{0};
    in.returning.push_back({back, step, p.flits, 0});
    ++channels_[up].returns_pending;
    if (channels_[up].blocked) schedule_wake(up, credit_wake(up));
  } else if (p.last) {
    sim_.schedule_at(finish, *this, ev(kInjected, p.message));
  }
  if (observer_) {
    observer_->on_packet_event({.kind = PacketEvent::Kind::Grant,
                                .at = now,
                                .packet = pid,
                                .message = p.message,
                                .channel = ch,
                                .in_channel = in.channel,
                                .in_vc = in.channel == kNoChannel ? 0 : ivc % vcs_,
                                .out_vc = c.sink ? kNoVc : vc,
                                .flits = p.flits,
                                .until = finish});
  }
  if (c.link >= 0) {
    LinkStats& s = stats_[static_cast<std::size_t>(c.link)];
    s.bytes += std::uint64_t{p.flits} * opt_.flit_bytes;
    s.busy += c.flit_time * p.flits;
    if (link_observer_) {
      link_observer_->on_link_busy(static_cast<topology::LinkId>(c.link),
                                   finish - c.flit_time * p.flits, finish);
    }
    flit_hops_ += p.flits;
    if (classes_ != 0) {
      p.vc_class = std::min(p.vc_class + (c.raises ? 1u : 0u), classes_ - 1);
    } else {
      p.vc_class = (c.dim == p.dim ? p.vc_class : 0) | (c.dateline ? 1u : 0u);
    }
    p.dim = c.dim;
  }
  if (c.sink) {
    // The packet has left the network once its tail is out.
    const std::uint32_t m = p.message;
    packets_.release(pid);
    // The NIs' links to their routers (topology.hpp ni_latency) come on top of the route.
    if (--messages_[m].undelivered == 0) {
      sim_.schedule_at(finish + topo_.ni_latency(), *this, ev(kDeliver, m));
    }
  } else {
    take_partial(ch, vc);
    c.credits[vc] -= p.flits;
    if (!c.into_ni) {
      // The class's round-robin pointer moves past the VC granted.
      if (classes_ != 0) {
        const std::uint32_t cls = vc_class_of_[vc], lo = class_lo_[cls];
        const std::uint32_t next = vc - lo + 1;
        class_rr_[std::size_t{ch} * classes_ + cls] = next == class_lo_[cls + 1] - lo ? 0 : next;
      } else {
        const std::uint32_t n = datelines_ ? vcs_ / 2 : vcs_, cls = vc >= n ? 1 : 0;
        const std::uint32_t next = vc - cls * n + 1;
        c.vc_rr[cls] = next == n ? 0 : next;
      }
    }
    if (worms_) {
      // A worm holds its downstream VC from its head's grant until its tail's.
      if (p.worm_head) in.out_vc = vc;
      c.held[vc] = p.worm_tail ? 0 : 1;
    }
    if (!c.into_ni) {
      max_occupancy_ = std::max(max_occupancy_, opt_.vc_buffer_flits - c.credits[vc]);
    }
    // The packet joins the downstream VC's FIFO now, with the times its head and tail get
    // there: one channel fills the VC, so grant order is arrival order. It competes a pipeline
    // delay after its head arrives (make_ready schedules that, when it is the front).
    ++p.hop;
    p.head_at = now + c.flit_time + c.latency;
    p.tail_at = finish + c.latency;
    p.ivc = ch * vcs_ + vc;
    InputVc& down = ivcs_[p.ivc];
    down.packets.push_back(pid);
    if (down.packets.size() == 1) make_ready(p.ivc);
  }
  if (in.channel == kNoChannel) {
    next_ni_packet(ivc - ni_queue_base_);
  } else {
    make_ready(ivc);
  }
}

void PacketBackend::on_event(std::uint64_t event) {
  const auto kind = static_cast<Kind>(event & 7u);
  const auto arg = static_cast<std::uint32_t>(event >> 3);
  switch (kind) {
    case kReady:
      make_ready(arg);
      break;
    case kFree:
      channels_[arg].free_scheduled = false;
      request_alloc(arg);
      break;
    case kWake: {
      Channel& c = channels_[arg];
      if (c.wake_at <= sim_.now()) c.wake_at = core::Time::max();
      request_alloc(arg);
      break;
    }
    case kAllocPass:
      allocation_pass();
      break;
    case kPortFree: {
      // The port's tail has left: its other VCs' requests may be granted now.
      channels_[arg].port_wake_scheduled = false;
      for (std::uint32_t v = 0; v < vcs_; ++v) {
        const InputVc& in = ivcs_[arg * vcs_ + v];
        if (!in.requesting) continue;
        const Packet& p = packets_[in.packets.front()];
        request_alloc(messages_[p.message].path[p.hop]);
      }
      break;
    }
    case kInjected: {
      const Message& msg = messages_[arg];
      const std::uint32_t st = msg.step_state, step = msg.step;
      const topology::NodeId src = msg.src;
      msg.handler->on_injected(msg.tag);
      // strict_schedule: the step is over at this NPU once all its messages are out.
      if (st != UINT32_MAX && steps_[st].cur[src] == step && --steps_[st].left[src] == 0) {
        advance_step(st, src, true);
      }
      break;
    }
    case kStep: {
      const std::uint32_t n = topo_.num_npus();
      advance_step(static_cast<std::uint32_t>(arg / n), static_cast<topology::NodeId>(arg % n),
                   false);
      break;
    }
    case kDeliver: {
      Message& msg = messages_[arg];
      latencies_ns_.push_back((sim_.now() - msg.sent).ns());
      DeliveryHandler* h = msg.handler;
      const std::uint64_t tag = msg.tag;
      messages_.release(arg);
      h->on_delivered(tag);
      break;
    }
  }
}

std::vector<std::pair<std::string, double>> PacketBackend::summary() const {
  std::vector<double> lat = latencies_ns_;
  std::sort(lat.begin(), lat.end());
  auto pct = [&](double q) {
    return lat.empty() ? 0.0
                       : lat[static_cast<std::size_t>(q * static_cast<double>(lat.size() - 1))];
  };
  return {{"head_flit_overhead", total_flits_ ? double(head_flits_) / double(total_flits_) : 0.0},
          {"flits", double(total_flits_)},
          {"flit_hops", double(flit_hops_)},
          {"max_vc_occupancy_flits", double(max_occupancy_)},
          {"message_latency_p50_ns", pct(0.5)},
          {"message_latency_p99_ns", pct(0.99)},
          {"message_latency_max_ns", lat.empty() ? 0.0 : lat.back()}};
}

std::string PacketBackend::describe_blocked() const {
  std::string s;
  int listed = 0;
  for (std::uint32_t ch = 0; ch < channels_.size() && listed < 4; ++ch) {
    const Channel& c = channels_[ch];
    if (c.requests.empty()) continue;
    std::string credits;
    for (std::uint32_t v = 0; v < c.credits.size(); ++v) {
      credits += fmt::format("{}{}", v ? "/" : "", c.credits[v]);
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

// The packet backend's parameters (params.hpp), in the order of its report label; defaults in
// PacketOptions (backend.hpp), MultiTree Table III.
namespace {

constexpr std::string_view kModels = "packets, flits and virtual channels";
constexpr std::string_view kTable3 = "MultiTree Table III";
constexpr std::uint64_t kMax32 = UINT32_MAX;
// In the order of Switching, CreditReturn, VcSelect and SwitchAllocator.
constexpr std::string_view kSwitching[] = {"virtual-cut-through", "wormhole"};
constexpr std::string_view kCreditReturn[] = {"per-flit", "per-packet"};
constexpr std::string_view kVcSelect[] = {"round-robin", "most-free"};
constexpr std::string_view kSwitchAllocator[] = {"input-first", "output-order", "islip"};

std::vector<BackendParam> packet_params() {
  return {
      ni_policy_param(),
      multipath_param(),
      ecmp_seed_param(),
      {.spec = {.key = "message_based_flow_control",
                .type = ParamType::Bool,
                .description = "one head flit per message instead of per packet",
                .source = "MultiTree Sec. IV-B"},
       .label = "mbfc",
       .models = kModels,
       .set = [](BackendOptions& o,
                 const ParamValue& v) { o.packet.message_based_flow_control = std::get<bool>(v); },
       .get = [](const BackendOptions& o) -> std::optional<ParamValue> {
         return o.packet.message_based_flow_control;
       }},
      {.spec = {.key = "packet_payload",
                .type = ParamType::Bytes,
                .min = 1,
                .max = kMax32,
                .description = "payload per packet (each packet adds a head flit)",
                .source = kTable3},
       .label = "payload",
       .models = kModels,
       .set = [](BackendOptions& o,
                 const ParamValue& v) { o.packet.packet_payload_bytes = as_u32(v); },
       .get = [](const BackendOptions& o) { return bytes_value(o.packet.packet_payload_bytes); }},
      {.spec = {.key = "flit_size",
                .type = ParamType::Bytes,
                .min = 1,
                .max = kMax32,
                .description = "flit (channel width)",
                .source = kTable3},
       .label = "flit",
       .models = kModels,
       .set = [](BackendOptions& o, const ParamValue& v) { o.packet.flit_bytes = as_u32(v); },
       .get = [](const BackendOptions& o) { return bytes_value(o.packet.flit_bytes); }},
      {.spec = {.key = "vcs",
                .type = ParamType::Count,
                .unit = "VCs",
                .min = 1,
                .max = kMax32,
                .description =
                    "virtual channels per input port (even on tori and rings: half are the "
                    "dateline class; on a dragonfly at least one per VC class: 2, Valiant 3)",
                .source = kTable3},
       .label = "vcs",
       .models = kModels,
       .set = [](BackendOptions& o, const ParamValue& v) { o.packet.vcs = as_u32(v); },
       .get = [](const BackendOptions& o) { return count_value(o.packet.vcs); }},
      {.spec = {.key = "vc_buffer_flits",
                .type = ParamType::Count,
                .unit = "flits",
                .min = 1,
                .max = kMax32,
                .description = "buffer depth of each VC (virtual cut-through: at least one packet)",
                .source = kTable3},
       .label = "buffer",
       .models = kModels,
       .set = [](BackendOptions& o, const ParamValue& v) { o.packet.vc_buffer_flits = as_u32(v); },
       .get = [](const BackendOptions& o) { return count_value(o.packet.vc_buffer_flits); }},
      {.spec = {.key = "router_pipeline_cycles",
                .type = ParamType::Count,
                .unit = "cycles",
                .min = 0,
                .max = kMax32,
                .description = "per-hop router delay from head arrival to departure, at 1 GHz",
                .source = "BookSim router pipeline; MultiTree Table III (1 GHz)"},
       .label = "pipeline",
       .models = kModels,
       .set = [](BackendOptions& o,
                 const ParamValue& v) { o.packet.router_pipeline_cycles = as_u32(v); },
       .get = [](const BackendOptions& o) { return count_value(o.packet.router_pipeline_cycles); }},
      {.spec = {.key = "credit_delay_cycles",
                .type = ParamType::Count,
                .unit = "cycles",
                .min = 0,
                .max = kMax32,
                .description = "added to the link latency for returning credits, at 1 GHz",
                .source = "BookSim credit_delay"},
       .label = "credit",
       .models = kModels,
       .set = [](BackendOptions& o,
                 const ParamValue& v) { o.packet.credit_delay_cycles = as_u32(v); },
       .get = [](const BackendOptions& o) { return count_value(o.packet.credit_delay_cycles); }},
      {.spec = {.key = "nis_per_npu",
                .type = ParamType::Count,
                .unit = "NIs",
                .min = 1,
                .max = kMax32,
                .description = "network interfaces (injection/ejection ports) per NPU",
                .source = "MultiTree Sec. V-A (1 or 4 NIs)"},
       .label = "nis",
       .models = kModels,
       .set = [](BackendOptions& o, const ParamValue& v) { o.packet.nis_per_npu = as_u32(v); },
       .get = [](const BackendOptions& o) { return count_value(o.packet.nis_per_npu); }},
      {.spec = {.key = "schedule_ni",
                .type = ParamType::Bool,
                .description =
                    "MultiTree's NI: one message per NI at a time, the earliest time step "
                    "first; destination NIs round-robin; routers grant the earliest step",
                .source = "MultiTree Sec. IV-A"},
       .label = "sched",
       .models = kModels,
       .set = [](BackendOptions& o,
                 const ParamValue& v) { o.packet.schedule_ni = std::get<bool>(v); },
       .get = [](const BackendOptions& o) -> std::optional<ParamValue> {
         return o.packet.schedule_ni;
       }},
      {.spec = {.key = "strict_schedule",
                .type = ParamType::Bool,
                .description =
                    "with schedule_ni: an NPU sends its time steps in order, the next one once "
                    "all of the current step's messages are out of its NIs",
                .source = "MultiTree Sec. IV-A; the authors' simulator's --strict-schedule"},
       .label = "strict",
       .models = kModels,
       .set = [](BackendOptions& o,
                 const ParamValue& v) { o.packet.strict_schedule = std::get<bool>(v); },
       .get = [](const BackendOptions& o) -> std::optional<ParamValue> {
         return o.packet.strict_schedule;
       }},
      {.spec = {.key = "estimate_lockstep",
                .type = ParamType::Bool,
                .description =
                    "with strict_schedule: a time step in which an NPU sends nothing lasts an "
                    "estimated step time (twice that right after a step with sends)",
                .source = "MultiTree Sec. IV-A footnote 4; the authors' --estimate-lockstep"},
       .label = "lockstep",
       .models = kModels,
       .set = [](BackendOptions& o,
                 const ParamValue& v) { o.packet.estimate_lockstep = std::get<bool>(v); },
       .get = [](const BackendOptions& o) -> std::optional<ParamValue> {
         return o.packet.estimate_lockstep;
       }},
      {.spec = {.key = "ni_bandwidth",
                .type = ParamType::Bandwidth,
                .unset = "the NPU's fastest link",
                .description =
                    "each NI's injection/ejection bandwidth; with NI queues, the NPU-to-queue "
                    "bandwidth",
                .source = "MultiTree Sec. V-A"},
       .label = "ni",
       .models = kModels,
       .set = [](BackendOptions& o,
                 const ParamValue& v) { o.packet.ni_bandwidth = std::get<core::Bandwidth>(v); },
       .get = [](const BackendOptions& o) { return bandwidth_value(o.packet.ni_bandwidth); }},
      {.spec = {.key = "switching",
                .type = ParamType::Choice,
                .choices = kSwitching,
                .description =
                    "virtual-cut-through (a packet moves when it fits whole downstream) or "
                    "wormhole (flit by flit; buffers may be smaller than a packet; slower)",
                .source = "MultiTree Sec. V-A and Table III; Dally & Towles ch. 13"},
       .label = "",
       .models = kModels,
       .set =
           [](BackendOptions& o, const ParamValue& v) {
             o.packet.switching = static_cast<Switching>(std::get<ChoiceIndex>(v).index);
           },
       .get = [](const BackendOptions& o) -> std::optional<ParamValue> {
         return ChoiceIndex{static_cast<std::uint32_t>(o.packet.switching)};
       }},
      {.spec = {.key = "credit_return",
                .type = ParamType::Choice,
                .choices = kCreditReturn,
                .description =
                    "per-flit (a credit as each flit leaves the VC) or per-packet (all at the "
                    "tail, collsim before issue 37)",
                .source = "Dally & Towles ch. 13.3 (credit-based flow control); BookSim"},
       .label = "credits",
       .models = kModels,
       .set =
           [](BackendOptions& o, const ParamValue& v) {
             o.packet.credit_return = static_cast<CreditReturn>(std::get<ChoiceIndex>(v).index);
           },
       .get = [](const BackendOptions& o) -> std::optional<ParamValue> {
         return ChoiceIndex{static_cast<std::uint32_t>(o.packet.credit_return)};
       }},
      {.spec = {.key = "vc_select",
                .type = ParamType::Choice,
                .choices = kVcSelect,
                .description =
                    "which free downstream VC of its class a packet gets: round-robin (the VC "
                    "allocator's arbiter) or most-free (collsim before issue 37)",
                .source = "Dally & Towles ch. 19 (VC allocation); BookSim"},
       .label = "vcsel",
       .models = kModels,
       .set =
           [](BackendOptions& o, const ParamValue& v) {
             o.packet.vc_select = static_cast<VcSelect>(std::get<ChoiceIndex>(v).index);
           },
       .get = [](const BackendOptions& o) -> std::optional<ParamValue> {
         return ChoiceIndex{static_cast<std::uint32_t>(o.packet.vc_select)};
       }},
      {.spec = {.key = "switch_allocator",
                .type = ParamType::Choice,
                .choices = kSwitchAllocator,
                .description =
                    "input-first (each input port offers one VC, round-robin, then each output "
                    "picks round-robin among the ports), output-order (outputs in channel "
                    "order, collsim before issue 37) or islip (iSLIP with one iteration, "
                    "BookSim's islip: outputs grant, ports accept, pointers move on acceptance "
                    "only; per flit with switching wormhole)",
                .source = "Dally & Towles ch. 19 (separable allocators); BookSim "
                          "separable_input_first and islip; McKeown, IEEE/ACM ToN 1999"},
       .label = "sa",
       .models = kModels,
       .set =
           [](BackendOptions& o, const ParamValue& v) {
             o.packet.switch_allocator =
                 static_cast<SwitchAllocator>(std::get<ChoiceIndex>(v).index);
           },
       .get = [](const BackendOptions& o) -> std::optional<ParamValue> {
         return ChoiceIndex{static_cast<std::uint32_t>(o.packet.switch_allocator)};
       }},
      {.spec = {.key = "injection_queue_flits",
                .type = ParamType::Count,
                .unit = "flits",
                .min = 1,
                .max = kMax32,
                .unset = "no queue stage",
                .description =
                    "depth of each NI's injection queue (virtual cut-through: at least one "
                    "packet)",
                .source = "MultiTree Sec. V-A (80-flit injection queue)"},
       .label = "injq",
       .models = kModels,
       .set = [](BackendOptions& o,
                 const ParamValue& v) { o.packet.injection_queue_flits = as_u32(v); },
       .get = [](const BackendOptions& o) { return count_value(o.packet.injection_queue_flits); }},
      {.spec = {.key = "ejection_queue_flits",
                .type = ParamType::Count,
                .unit = "flits",
                .min = 1,
                .max = kMax32,
                .unset = "no queue stage",
                .description =
                    "depth of each NI's ejection queue (virtual cut-through: at least one "
                    "packet)",
                .source = "MultiTree Sec. V-A"},
       .label = "ejq",
       .models = kModels,
       .set = [](BackendOptions& o,
                 const ParamValue& v) { o.packet.ejection_queue_flits = as_u32(v); },
       .get = [](const BackendOptions& o) { return count_value(o.packet.ejection_queue_flits); }},
  };
}

// Events are per packet per hop (virtual cut-through) or per flit per hop (wormhole): a message
// of b bytes is ceil(b / payload) packets, each with a head flit.
std::uint64_t packet_work(const BackendOptions& options, std::uint64_t messages,
                          std::uint64_t bytes) {
  const PacketOptions& o = options.packet;
  const std::uint64_t packets = messages + bytes / o.packet_payload_bytes;
  if (o.switching != Switching::Wormhole) return packets;
  const std::uint64_t flits = bytes / o.flit_bytes + messages;
  return packets > UINT64_MAX - flits ? UINT64_MAX : packets + flits;
}

// The backend's own memory (BackendInfo::state_bytes): every channel (links, and the NIs'
// injection, ejection and queue stages) has `vcs` input VCs downstream, each an InputVc whose two
// deques allocate their first block when made, and per-VC credit counters; and the packets the
// buffers can hold at once (depth / packet size per VC), at most the run's packets. Measured:
// ~1.3 KB per VC (the per-VC constant below), ~100 B per buffered packet with its queue slots.
std::uint64_t packet_state_bytes(const BackendOptions& options, const topology::Topology& topo,
                                 std::uint64_t work) {
  constexpr double kBytesPerVc = 1400, kBytesPerPacket = 100, kBytesPerChannel = 400;
  const PacketOptions& o = options.packet;
  const double npus = topo.num_npus(), nis = o.nis_per_npu;
  const double stages = 2.0 + (o.injection_queue_flits ? 1 : 0) + (o.ejection_queue_flits ? 1 : 0);
  const double channels = static_cast<double>(topo.links().size()) + npus * nis * stages;
  const double vcs = channels * o.vcs + npus * nis;
  const double packet_flits =
      1.0 + std::ceil(static_cast<double>(o.packet_payload_bytes) / o.flit_bytes);
  const double per_vc = std::max(1.0, std::floor(o.vc_buffer_flits / packet_flits));
  const double held = std::min(static_cast<double>(work), vcs * per_vc + npus * nis);
  const double bytes = channels * kBytesPerChannel + vcs * kBytesPerVc + held * kBytesPerPacket;
  return bytes >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(bytes);
}

}  // namespace

BackendInfo packet_info() {
  return {.name = "packet",
          .description =
              "packets of flits through input-buffered routers: virtual channels, credits, "
              "virtual cut-through or wormhole switching, separable round-robin allocation, "
              "dateline VCs on tori, a VC class per global hop on dragonflies, NIs with optional injection/ejection queues; message-based "
              "flow control option (BookSim-like, MultiTree Table III defaults)",
          .params = packet_params(),
          .make = [](core::Simulation& sim, const topology::Topology& topo,
                     const BackendOptions& opt) -> std::unique_ptr<Backend> {
            return std::make_unique<PacketBackend>(sim, topo, opt);
          },
          .work = &packet_work,
          .work_unit =
              [](const BackendOptions& o) {
                return o.packet.switching == Switching::Wormhole ? "flits" : "packets";
              },
          .state_bytes = &packet_state_bytes};
}

}  // namespace collsim::network
