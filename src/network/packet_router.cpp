// The packet backend's router pipeline (network/packet.hpp has the model): a packet at the front
// of its input VC becomes ready a pipeline delay after its head arrived (and once its input port
// is free), requests its next channel, competes in the allocation pass of its instant and, once
// granted, crosses the channel into the downstream VC it was given.
//
// Speed: a grant fixes when the packet's tail leaves its VC, so the VC's next packet, the
// message's delivery and the credit return are computed then, not stepped. One timed event (the
// packet becoming ready) and a share of one zero-delay allocation pass per packet per channel.
#include <algorithm>

#include "network/packet_allocator.hpp"
#include "network/packet_fabric.hpp"

namespace collsim::network::packet {

inline core::Time Fabric::pipe_of(const InputVc& in) const {
  // Routers take the pipeline delay; NI queues none.
  return in.channel == kNoChannel || channels[in.channel].into_ni ? core::Time{0} : pipeline;
}

void Fabric::make_ready(std::uint32_t ivc) {
  InputVc& in = ivcs[ivc];
  if (in.packets.empty() || in.requesting) return;
  const Packet& p = packets[in.packets.head];
  core::Time ready = p.head_at;
  if (in.channel == kNoChannel) {
    ready = std::max(ready, in.busy_until);  // an NI queue: no pipeline
  } else {
    const Channel& port = channels[in.channel];
    ready = std::max(port.into_ni ? ready : ready + pipeline, port.port_busy_until);
  }
  if (ready > sim.now()) {
    set_timer(ready, ev(kReady, ivc));
    return;
  }
  in.requesting = true;
  if (in.channel != kNoChannel) ++channels[in.channel].port_requests;
  const std::uint32_t ch = messages[p.message].path[p.hop];
  in.target = ch;
  if (observer) {
    observer->on_packet_event({.kind = PacketEvent::Kind::Request,
                               .at = sim.now(),
                               .packet = in.packets.head,
                               .message = p.message,
                               .channel = ch,
                               .in_channel = in.channel,
                               .in_vc = in.channel == kNoChannel ? 0 : ivc % vcs,
                               .out_vc = kNoVc,
                               .flits = p.flits,
                               .until = core::Time{0}});
  }
  channels[ch].arriving.push_back(ivc);
  request_alloc(ch);
}

void Fabric::request_alloc(std::uint32_t ch) {
  Channel& c = channels[ch];
  if (c.alloc_due) return;
  c.alloc_due = true;
  alloc_due.push_back(ch);
  if (pass_scheduled) return;
  pass_scheduled = true;
  // Zero delay: runs after every event already queued for this instant.
  sim.schedule_in(core::Time{0}, *this, ev(kAllocPass, 0));
}

void Fabric::run_pass() {
  pass_scheduled = false;
  ++pass_id;
  alloc_now.swap(alloc_due);
  std::sort(alloc_now.begin(), alloc_now.end());
  allocator->allocate(*this);
  alloc_now.clear();
}

void Fabric::merge_arrivals(Channel& c) {
  if (c.arriving.size() == 1) {
    c.requests.push_back(c.arriving.front());
  } else {
    std::sort(c.arriving.begin(), c.arriving.end());
    c.requests.insert(c.requests.end(), c.arriving.begin(), c.arriving.end());
  }
  c.arriving.clear();
}

bool Fabric::ready_to_grant(std::uint32_t ch) {
  Channel& c = channels[ch];
  c.blocked = false;
  if (c.requests.empty()) return false;
  if (c.busy_until > sim.now()) {
    schedule_free(ch);
    return false;
  }
  apply_credits(ch);
  return true;
}

bool Fabric::port_busy(std::uint32_t p) {
  // Its port is sending another VC's packet: ask again when that tail has left.
  Channel& port = channels[p];
  if (!port.port_wake_scheduled) {
    port.port_wake_scheduled = true;
    set_timer(port.port_busy_until, ev(kPortFree, p));
  }
  return false;
}

void Fabric::wait_for_credits(std::uint32_t ch) {
  // Nobody fits downstream: try again when the earliest credit comes back (or, if none is on its
  // way, when one is sent back).
  channels[ch].blocked = true;
  const core::Time wake = credit_wake(ch);
  if (wake != core::Time::max()) schedule_wake(ch, wake);
}

void Fabric::schedule_free(std::uint32_t ch) {
  Channel& c = channels[ch];
  if (c.free_scheduled) return;
  c.free_scheduled = true;
  set_timer(c.busy_until, ev(kFree, ch));
}

void Fabric::schedule_wake(std::uint32_t ch, core::Time at) {
  Channel& c = channels[ch];
  if (c.wake_at <= at) return;
  c.wake_at = at;
  set_timer(at, ev(kWake, ch));
}

// The packet (wormhole: flit) leaves its input VC, its credits start back, and it joins vc's FIFO.
void Fabric::grant(std::uint32_t ch, std::size_t idx, std::uint32_t vc) {
  Channel& c = channels[ch];
  const core::Time now = sim.now();
  const std::uint32_t ivc = c.requests[idx];
  InputVc& in = ivcs[ivc];
  const std::uint32_t pid = in.packets.head;
  Packet& p = packets[pid];
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
  if (in.channel != kNoChannel) --channels[in.channel].port_requests;
  in.packets.pop_front(packets);
  in.busy_until = finish;
  if (in.channel != kNoChannel) {
    const std::uint32_t up = in.channel;
    Channel& upc = channels[up];
    upc.port_busy_until = finish;
    const std::uint32_t next = ivc - up * vcs + 1;  // no division per grant
    upc.port_rr = next == vcs ? 0 : next;
    // Its other VCs that were waiting (an output may have passed them over while the port
    // offered this one) ask again when this tail has left.
    if (upc.port_requests > 0 && !upc.port_wake_scheduled) {
      for (std::uint32_t v = 0; v < vcs; ++v) {
        if (up * vcs + v == ivc || !ivcs[up * vcs + v].requesting) continue;
        upc.port_wake_scheduled = true;
        set_timer(finish, ev(kPortFree, up));
        break;
      }
    }
    // Each flit's credit leaves as the flit leaves the VC (at the output's flit rate, the tail
    // at `finish`; per packet: all at the tail) and crosses the upstream channel back.
    const core::Time back = finish + upc.latency + credit_delay;
    const core::Time step = per_flit_credits ? c.flit_time : core::Time{0};
    const std::uint32_t r = credit_pool.acquire();
    credit_pool[r] = {back, step, p.flits, 0, kNil};
    if (in.returning.empty()) {
      upc.next_return = std::min(upc.next_return, back);
      in.return_at = back;
    }
    in.returning.push_back(credit_pool, r);
    ++upc.returns_pending;
    // Only this VC's wake can have moved (the others' were set when the channel blocked).
    if (upc.blocked) schedule_wake(up, credit_wake(up, ivc - up * vcs));
  } else if (p.last) {
    sim.schedule_at(finish, *this, ev(kInjected, p.message));
  }
  if (observer) {
    observer->on_packet_event({.kind = PacketEvent::Kind::Grant,
                               .at = now,
                               .packet = pid,
                               .message = p.message,
                               .channel = ch,
                               .in_channel = in.channel,
                               .in_vc = in.channel == kNoChannel ? 0 : ivc % vcs,
                               .out_vc = c.sink ? kNoVc : vc,
                               .flits = p.flits,
                               .until = finish});
  }
  if (c.link >= 0) {
    LinkStats& s = stats[static_cast<std::size_t>(c.link)];
    s.bytes += std::uint64_t{p.flits} * opt.flit_bytes;
    s.busy += c.flit_time * p.flits;
    if (link_observer) {
      link_observer->on_link_busy(static_cast<topology::LinkId>(c.link),
                                  finish - c.flit_time * p.flits, finish);
    }
    flit_hops += p.flits;
    p.vc_class = classes.class_after(c.dateline, c.raises, c.dim, p.vc_class, p.dim);
    p.dim = c.dim;
  }
  if (c.sink) {
    // The packet has left the network once its tail is out.
    const std::uint32_t m = p.message;
    packets.release(pid);
    // The NIs' links to their routers (topology.hpp ni_latency) come on top of the route.
    if (--messages[m].undelivered == 0) {
      sim.schedule_at(finish + topo.ni_latency(), *this, ev(kDeliver, m));
    }
  } else {
    if (!ivcs[std::size_t{ch} * vcs + vc].returning.empty()) take_partial(ch, vc);
    InputVc& down = ivcs[ch * vcs + vc];
    down.credits -= p.flits;
    // The class's round-robin pointer moves past the VC granted.
    if (!c.into_ni) classes.granted(ch, vc);
    if (worms) {
      // A worm holds its downstream VC from its head's grant until its tail's.
      if (p.worm_head) in.out_vc = vc;
      down.held = !p.worm_tail;
    }
    if (!c.into_ni) max_occupancy = std::max(max_occupancy, opt.vc_buffer_flits - down.credits);
    // The packet joins the downstream VC's FIFO now, with the times its head and tail get
    // there: one channel fills the VC, so grant order is arrival order. It competes a pipeline
    // delay after its head arrives (make_ready schedules that, when it is the front).
    ++p.hop;
    p.head_at = now + c.flit_time + c.latency;
    p.tail_at = finish + c.latency;
    p.ivc = ch * vcs + vc;
    down.packets.push_back(packets, pid);
    if (down.packets.single()) make_ready(p.ivc);
  }
  if (in.channel == kNoChannel) {
    next_ni_packet(ivc - ni_queue_base);
  } else {
    make_ready(ivc);
  }
}

void Fabric::set_timer(core::Time t, std::uint64_t timer) {
  // Most timers go to a few instants just ahead: look there first.
  TimerSlot& slot = recent_timers[static_cast<std::uint64_t>(t.ps ^ (t.ps >> 12)) % kRecentTimers];
  if (slot.ps == t.ps) {
    timer_buckets[slot.bucket].push_back(timer);
    return;
  }
  const auto [it, fresh] = timer_bucket.try_emplace(t.ps, 0);
  if (fresh) {
    if (free_timer_buckets.empty()) {
      free_timer_buckets.push_back(static_cast<std::uint32_t>(timer_buckets.size()));
      timer_buckets.emplace_back();
    }
    it->second = free_timer_buckets.back();
    free_timer_buckets.pop_back();
    sim.schedule_at(t, *this, ev(kTimers, it->second));
  }
  timer_buckets[it->second].push_back(timer);
  slot = {t.ps, it->second};
}

void Fabric::run_timer(std::uint64_t timer) {
  const auto arg = static_cast<std::uint32_t>(timer >> 4);
  switch (static_cast<Kind>(timer & 15u)) {
    case kReady:
      make_ready(arg);
      break;
    case kFree:
      channels[arg].free_scheduled = false;
      request_alloc(arg);
      break;
    case kWake: {
      Channel& c = channels[arg];
      if (c.wake_at <= sim.now()) c.wake_at = core::Time::max();
      request_alloc(arg);
      break;
    }
    case kPortFree:
      // The port's tail has left: its other VCs' requests may be granted now.
      channels[arg].port_wake_scheduled = false;
      for (std::uint32_t v = 0; v < vcs; ++v) {
        const InputVc& in = ivcs[arg * vcs + v];
        if (in.requesting) request_alloc(target_of(in));
      }
      break;
    default:
      break;
  }
}

void Fabric::on_event(std::uint64_t event) {
  const auto arg = static_cast<std::uint32_t>(event >> 4);
  switch (static_cast<Kind>(event & 15u)) {
    case kTimers: {
      // Timers set from here on are later (each is strictly after the instant it is set in).
      const std::int64_t ps = sim.now().ps;
      timer_bucket.erase(ps);
      TimerSlot& slot = recent_timers[static_cast<std::uint64_t>(ps ^ (ps >> 12)) % kRecentTimers];
      if (slot.ps == ps) slot.ps = -1;
      due_timers.swap(timer_buckets[arg]);
      for (std::uint64_t timer : due_timers) run_timer(timer);
      due_timers.clear();
      due_timers.swap(timer_buckets[arg]);
      free_timer_buckets.push_back(arg);
      break;
    }
    case kAllocPass:
      run_pass();
      break;
    case kInjected:
      on_injected(arg);
      break;
    case kStep: {
      const std::uint32_t n = topo.num_npus();
      advance_step(static_cast<std::uint32_t>(arg / n), static_cast<topology::NodeId>(arg % n),
                   false);
      break;
    }
    case kDeliver: {
      Message& msg = messages[arg];
      latencies_ns.push_back((sim.now() - msg.sent).ns());
      DeliveryHandler* h = msg.handler;
      const std::uint64_t tag = msg.tag;
      messages.release(arg);
      h->on_delivered(tag);
      break;
    }
    default:
      break;
  }
}

}  // namespace collsim::network::packet
