// The packet backend's network interfaces (network/packet.hpp has the model): each NPU's NIs queue
// the messages given to them and cut them into packets one at a time, into the NI queue's input
// VC, from where the injection channel takes them like any router output.
//  * fifo (default; BookSim's source queue): one message after another, each whole before the
//    next. round-robin (ni_policy): one packet of each queued message in turn.
//  * Without schedule_ni a message goes to its NI (MessageAttributes::ni, or round-robin over the
//    NPU's NIs) at once. schedule_ni (MultiTree Sec. IV-A): messages wait at their NPU until one
//    of its NIs is idle (its previous message fully cut into packets), the earliest time step
//    first; the destination NI is round-robin per receiver. strict_schedule: an NPU sends its
//    steps in order, the next once all of the current step's messages are out of its NIs.
#include <algorithm>

#include "network/packet_fabric.hpp"

namespace collsim::network::packet {
namespace {

// Without overflow for any a (a message may be up to 2^64 - 1 bytes).
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

}  // namespace

std::uint32_t Fabric::ni_channel(topology::NodeId npu, std::uint32_t ni, bool ejection) const {
  const std::uint32_t per = topo.num_npus() * opt.nis_per_npu;
  return static_cast<std::uint32_t>(topo.links().size()) + (ejection ? per : 0) +
         npu * opt.nis_per_npu + ni;
}

void Fabric::enqueue(std::uint32_t m, std::uint32_t ni_hint) {
  const std::uint32_t n = opt.nis_per_npu;
  const topology::NodeId src = messages[m].src;
  if (!opt.schedule_ni) {
    const std::uint32_t ni =
        ni_hint == MessageAttributes::kAnyNi ? next_ni[src]++ % n : ni_hint % n;
    route_via(m, ni, ni);
    const std::uint32_t q = src * n + ni;
    nis[q].push_back(m);
    if (ivcs[ni_queue_base + q].packets.empty()) next_ni_packet(q);
    return;
  }
  // Behind every waiting message of an earlier or equal step.
  auto& wait = pending[src];
  auto at = wait.end();
  const std::uint32_t key = messages[m].priority_key;
  while (at != wait.begin() && messages[*(at - 1)].priority_key > key) --at;
  wait.insert(at, m);
  for (std::uint32_t i = 0; i < n && !wait.empty(); ++i) {
    const std::uint32_t q = src * n + i;
    if (nis[q].empty() && ivcs[ni_queue_base + q].packets.empty()) next_ni_packet(q);
  }
}

// schedule_ni: idle NI q takes its NPU's earliest waiting message, if any.
bool Fabric::pull_pending(std::uint32_t q) {
  const std::uint32_t n = opt.nis_per_npu;
  auto& wait = pending[q / n];
  for (auto it = wait.begin(); it != wait.end(); ++it) {
    if (!eligible(*it)) continue;  // strict_schedule: a later step's message waits
    const std::uint32_t m = *it;
    wait.erase(it);
    route_via(m, q % n, next_dst_ni[messages[m].dst]++ % n);
    nis[q].push_back(m);
    return true;
  }
  return false;
}

bool Fabric::eligible(std::uint32_t m) const {
  const Message& msg = messages[m];
  if (msg.step_state == UINT32_MAX) return true;
  return steps[msg.step_state].cur[msg.src] == msg.step;
}

void Fabric::set_step_plan(std::uint32_t flow, StepPlan plan) {
  const std::uint32_t n = topo.num_npus();
  std::uint32_t st = 0;
  while (st < steps.size() && steps[st].flow != flow) ++st;
  if (st == steps.size()) steps.emplace_back();
  StepState& s = steps[st];
  s.flow = flow;
  s.plan = std::move(plan);
  s.plan.sends.resize(n);
  s.cur.assign(n, 0);
  s.left.assign(n, 0);
  // The authors' estimate of a step: m 256 B messages (sub-messages) per flow, 17 flits each
  // (16 with message-based flow control, one head flit per flow), ~58 messages of buffering.
  const std::uint64_t m = ceil_div(s.plan.flow_bytes, opt.packet_payload_bytes);
  const std::uint64_t per = opt.message_based_flow_control ? 16 : 17;
  const std::uint64_t cycles = m <= 58 ? m : per * m - 58 * 16;
  s.estimate = opt.router_period * static_cast<std::int64_t>(cycles);
  for (topology::NodeId npu = 0; npu < n; ++npu) advance_step(st, npu, false);
}

void Fabric::advance_step(std::uint32_t st, topology::NodeId npu, bool after_sends) {
  StepState& s = steps[st];
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
    if (opt.estimate_lockstep) {
      const std::uint64_t event = std::uint64_t{st} * topo.num_npus() + npu;
      sim.schedule_in(s.estimate * (after_sends ? 2 : 1), *this, ev(kStep, event));
      return;
    }
  }
}

void Fabric::fill_nis(topology::NodeId npu) {
  const std::uint32_t n = opt.nis_per_npu;
  for (std::uint32_t i = 0; i < n && !pending[npu].empty(); ++i) {
    const std::uint32_t q = npu * n + i;
    if (nis[q].empty() && ivcs[ni_queue_base + q].packets.empty()) next_ni_packet(q);
  }
}

void Fabric::on_injected(std::uint32_t m) {
  const Message& msg = messages[m];
  const std::uint32_t st = msg.step_state, step = msg.step;
  const topology::NodeId src = msg.src;
  msg.handler->on_injected(msg.tag);
  // strict_schedule: the step is over at this NPU once all its messages are out.
  if (st != UINT32_MAX && steps[st].cur[src] == step && --steps[st].left[src] == 0) {
    advance_step(st, src, true);
  }
}

// Cuts the NI's next packet from its front message (the NI queue holds a message's packets from
// the instant it is sent; making them one at a time gives the same order and timing).
void Fabric::next_ni_packet(std::uint32_t q) {
  std::deque<std::uint32_t>& queue = nis[q];
  if (queue.empty() && !(opt.schedule_ni && pull_pending(q))) return;
  const std::uint32_t m = queue.front();
  Message& msg = messages[m];
  const std::uint32_t id = packets.acquire();
  Packet& p = packets[id];
  const bool mbfc = opt.message_based_flow_control;
  bool packet_start = true;
  if (!wormhole || msg.flits_left_in_packet == 0) {
    const std::uint64_t payload = std::min<std::uint64_t>(msg.bytes_left, opt.packet_payload_bytes);
    msg.bytes_left -= payload;
    const bool head_flit = !mbfc || msg.packets_made == 0;
    ++msg.packets_made;
    if (msg.num_paths > 1) msg.cur_off = (msg.packets_made - 1) % msg.num_paths * msg.path_len;
    const auto flits =
        static_cast<std::uint32_t>(ceil_div(payload, opt.flit_bytes)) + (head_flit ? 1 : 0);
    head_flits += head_flit ? 1 : 0;
    total_flits += flits;
    msg.flits_left_in_packet = flits;
  } else {
    packet_start = false;
  }
  // Virtual cut-through moves the whole packet; wormhole one flit at a time. A worm is a packet,
  // or with message-based flow control the whole message (one head flit leads it).
  p.flits = wormhole ? 1 : msg.flits_left_in_packet;
  msg.flits_left_in_packet -= p.flits;
  const bool packet_end = msg.flits_left_in_packet == 0;
  p.worm_head = packet_start && (!mbfc || msg.packets_made == 1);
  p.worm_tail = packet_end && (!mbfc || msg.bytes_left == 0);
  p.message = m;
  p.hop = msg.cur_off;  // spray-packet: the start of its path in msg.path (else 0)
  p.ivc = ni_queue_base + q;
  p.vc_class = 0;
  p.dim = UINT32_MAX;
  p.head_at = p.tail_at = msg.sent;
  p.last = packet_end && msg.bytes_left == 0;
  if (p.last) {
    queue.pop_front();
  } else if (ni_round_robin && packet_end && queue.size() > 1) {
    // Round-robin: the next packet comes from the next queued message.
    queue.pop_front();
    queue.push_back(m);
  }
  ivcs[p.ivc].packets.push_back(packets, id);
  make_ready(p.ivc);
}

}  // namespace collsim::network::packet
