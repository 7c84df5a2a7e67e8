#pragma once
// The packet backend's state and the router pipeline its units share (internal to
// src/network/packet*.cpp; the model is documented in network/packet.hpp). PacketBackend owns one
// Fabric; the units work on it:
//  * router pipeline (packet_router.cpp): a packet becomes ready a pipeline delay after its head
//    arrived, requests its next channel, is granted by the switch allocator, crosses the channel
//    into a downstream VC; the events and the allocation pass once per instant;
//  * switch allocators (packet_allocator.hpp, one file each): which requests the free outputs
//    grant in a pass;
//  * VC selection (packet_vc_select.hpp): which downstream VC a granted packet gets;
//  * credits (packet_credits.hpp, packet_router.cpp): the downstream space each channel sees;
//  * NI (packet_ni.cpp): messages queued at an NPU's NIs, cut into packets one at a time.
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/engine.hpp"
#include "core/slot_pool.hpp"
#include "network/backend.hpp"
#include "network/packet.hpp"
#include "network/packet_credits.hpp"
#include "network/packet_fifo.hpp"
#include "network/packet_vc_select.hpp"

namespace collsim::network::packet {

constexpr std::uint32_t kNoChannel = UINT32_MAX;

class SwitchAllocatorUnit;

/// A channel: a topology link, or an NI's injection / ejection (or NI queue feed / drain)
/// channel. It ends in an input port of `vcs` VCs (ejection: a sink), whose credits it counts.
struct Channel {
  topology::NodeId from = 0;  // router (or NI) feeding it
  topology::NodeId to = 0;    // router it enters (ejection: the NPU)
  core::Time flit_time;       // per flit
  core::Time latency;
  core::Time busy_until;
  core::Time wake_at = core::Time::max();  // earliest kWake scheduled, if any
  bool ejection = false;                   // NI side, towards the NPU (ejection or drain)
  bool injection = false;                  // NI side, from the NPU (feed or injection)
  bool sink = false;      // delivers: the ejection channel, or the drain after a queue
  bool into_ni = false;   // ends in an NI queue (one FIFO, no router pipeline)
  bool dateline = false;  // a torus ring's wrap-around link
  bool raises = false;    // Topology::raises_vc_class: the packet's VC class goes up here
  bool blocked = false;   // free, with requests, but no downstream VC had room
  bool free_scheduled = false;
  bool alloc_due = false;  // in Fabric::alloc_due for this instant's allocation pass
  bool port_wake_scheduled = false;
  std::uint32_t dim = 0;
  std::int32_t link = -1;               // topology link id, or -1
  std::vector<std::uint32_t> requests;  // input VCs whose head packet wants this channel
  std::vector<std::uint32_t> arriving;  // requests made this instant, not yet in `requests`
  // Output arbiter pointers: output-order's position in `requests`; input-first's and iSLIP's
  // input port granted last.
  std::uint32_t rr = 0;
  std::uint32_t last_grant = UINT32_MAX;
  // The router input port this channel ends in (all its VCs): it sends one packet at a time.
  core::Time port_busy_until;         // the tail of the packet it is sending leaves
  std::uint32_t port_rr = 0;          // its VC pointer: one past the VC it sent last
  std::uint32_t port_requests = 0;    // its VCs with a request (requesting)
  std::uint32_t returns_pending = 0;  // credit returns in flight to this channel (all its VCs)
  // No return of its VCs is wholly back before this (a lower bound on their fronts' `last`).
  core::Time next_return = core::Time::max();
  // Blocked: its waiting packets' smallest and largest sizes in flits (credit_wake).
  std::uint32_t request_flits_lo = 0, request_flits_hi = 0;
  // Scratch of the switch allocator's pass `choice_pass` for this input port: input-first, the
  // input VC it offers; iSLIP, the output it accepts (choice) and its distance from the port's
  // accept pointer (choice_dist).
  std::uint32_t choice = UINT32_MAX;
  std::uint32_t choice_vc = UINT32_MAX;  // input-first: the downstream VC `choice` would get
  std::uint64_t choice_pass = 0;
  std::uint32_t choice_dist = 0;
  // iSLIP: the output channel this input port accepted last (its accept pointer is one past).
  std::uint32_t accept_last = UINT32_MAX;
};

/// An input VC: the VC `v` at the end of channel `ch` (index ch * vcs + v), or an NI queue.
struct InputVc {
  Fifo packets;    // FIFO; the front one competes once the VC is free
  Fifo returning;  // credits for space this VC freed, in time order (Fabric::credit_pool)
  core::Time return_at = core::Time::max();  // the front return's `last` (max: none)
  std::uint32_t channel = 0;  // the channel it is the end of (kNoChannel: an NI queue)
  std::uint32_t credits = 0;  // free flits as its channel's sender sees them (returns applied)
  std::uint32_t out_vc = 0;   // wormhole: the downstream VC the worm at the front holds
  std::uint32_t target = 0;   // requesting: the channel its front packet asks for
  core::Time busy_until;      // the last granted packet's tail leaves the VC
  bool requesting = false;
  bool held = false;  // a worm holds this VC (wormhole, message-based flow control)
};

struct Packet {
  std::uint32_t message = 0;
  std::uint32_t flits = 0;
  // Index in its message's path of the channel it goes to next (0: in the NI queue; with
  // multipath spray-packet its path's start there, Message::path).
  std::uint32_t hop = 0;
  std::uint32_t ivc = 0;  // input VC it is in
  std::uint32_t vc_class = 0;
  std::uint32_t dim = 0;      // dimension of the last topology link crossed
  std::uint32_t next = kNil;  // the next packet in its input VC (Fifo)
  core::Time head_at;         // head arrived at the current input VC
  core::Time tail_at;         // tail arrived at the current input VC
  bool last = false;          // the message's last packet (wormhole: its last flit)
  // A worm is a packet, or with message-based flow control the whole message; under wormhole
  // the unit is one flit of it. The head takes a VC, which the worm holds until its tail.
  bool worm_head = true;
  bool worm_tail = true;
};

struct Message {
  DeliveryHandler* handler = nullptr;
  topology::NodeId src = 0, dst = 0;
  std::uint32_t priority_key = 0;  // schedule_ni: the step, earliest first (0 = none: last)
  std::uint8_t route_path = topology::kAnyPath;  // MessageAttributes::path
  std::uint32_t step = 0;                        // MessageAttributes::priority
  std::uint32_t step_state = UINT32_MAX;         // strict_schedule: its steps entry, if any
  std::uint64_t tag = 0;
  // Channels: injection, links..., ejection; multipath spray-packet: num_paths such paths of
  // path_len channels each, one after another, packet j on path j mod num_paths.
  std::vector<std::uint32_t> path;
  std::uint64_t first_path = 0;  // multipath: the index of its (first) equal-cost path
  std::uint32_t num_paths = 1, path_len = 0, cur_off = 0;
  std::uint64_t bytes_left = 0;  // not yet cut into packets (they wait in the NI)
  std::uint64_t packets_made = 0;
  std::uint32_t flits_left_in_packet = 0;  // of the packet being cut (wormhole: into flits)
  std::uint64_t undelivered = 0;           // packets (wormhole: flits) not yet delivered
  core::Time sent;
};

/// strict_schedule: per collective, each NPU's current step and how many of its messages of
/// that step are not yet out of the NIs (UINT32_MAX: past its last step).
struct StepState {
  std::uint32_t flow = 0;
  StepPlan plan;
  std::vector<std::uint32_t> cur, left;
  core::Time estimate;  // a NoOp step (estimate_lockstep)
};

class Fabric final : public core::EventHandler {
 public:
  // Engine events (kTimers: every timer due at this instant) and timers (the fabric's own timed
  // events, run in the order they were set). An event or timer is (argument << 4) | kind.
  enum Kind : std::uint64_t {
    kReady = 0,      // timer: input VC arg's front packet may be ready
    kFree = 1,       // timer: output arg's channel frees
    kWake = 2,       // timer: credits for output arg's waiting packets are back
    kPortFree = 3,   // timer: input port arg's tail has left
    kInjected = 4,   // message arg's last packet has left its NI
    kDeliver = 5,    // message arg has arrived
    kAllocPass = 6,  // this instant's allocation pass (zero delay)
    kStep = 7,       // strict_schedule: a NoOp step's estimated time is over
    kTimers = 8,     // timer bucket arg is due
  };
  static std::uint64_t ev(Kind k, std::uint64_t a) { return (a << 4) | k; }

  /// route_via(m, src_ni, dst_ni) builds message m's path once its NIs are known (PacketBackend:
  /// the topology's or a pinned route, or a multipath choice).
  Fabric(core::Simulation& sim, const topology::Topology& topo, const BackendOptions& opt,
         std::function<void(std::uint32_t, std::uint32_t, std::uint32_t)> route_via,
         LinkObserver* const& link_observer);
  ~Fabric();

  // --- Router pipeline (packet_router.cpp) ---
  void on_event(std::uint64_t event) override;
  /// The front packet of input VC ivc requests its next channel once it is ready.
  void make_ready(std::uint32_t ivc);
  /// Output ch allocates in this instant's pass (or the next pass of this instant).
  void request_alloc(std::uint32_t ch);
  /// Moves the requests made this instant into ch's list (a switch allocator calls it for each
  /// output it allocates, in channel order, just before allocating it).
  void take_arrivals(std::uint32_t ch) {
    Channel& c = channels[ch];
    c.alloc_due = false;
    if (!c.arriving.empty()) merge_arrivals(c);
  }
  /// Whether output ch can grant now: it has requests and is free (else it is woken when it
  /// frees); its returned credits are applied.
  bool ready_to_grant(std::uint32_t ch);
  /// Whether the input port of `in` is free now; if not, it asks again when it frees.
  bool port_free(const InputVc& in) {
    return in.channel == kNoChannel || channels[in.channel].port_busy_until <= sim.now() ||
           port_busy(in.channel);
  }
  /// Output ch granted nobody: allocate again when credits come back for one of its requests.
  void wait_for_credits(std::uint32_t ch);
  /// Grants output ch to its request at index idx, into downstream VC vc (ignored for a sink).
  void grant(std::uint32_t ch, std::size_t idx, std::uint32_t vc);
  void schedule_wake(std::uint32_t ch, core::Time at);
  /// Runs timer `timer` (ev(kReady ... kPortFree, arg)) at `t` (> now).
  void set_timer(core::Time t, std::uint64_t timer);
  /// The downstream VC the front packet of `in` would get on ch now, or kNoVc.
  std::uint32_t pick_vc(std::uint32_t ch, const Packet& p, const InputVc& in) const;
  /// The channel a requesting input VC's front packet asks for.
  static std::uint32_t target_of(const InputVc& in) { return in.target; }
  const Packet& front(const InputVc& in) const { return packets[in.packets.head]; }
  /// schedule_ni's step of a packet (earliest first; UINT32_MAX: none).
  std::uint32_t priority_of(const Packet& p) const { return messages[p.message].priority_key; }
  /// The input port of input VC ivc: its channel, or (an NI queue) one after all channels.
  std::uint32_t port_id(std::uint32_t ivc) const {
    const std::uint32_t ch = ivcs[ivc].channel;
    return ch != kNoChannel ? ch
                            : static_cast<std::uint32_t>(channels.size()) + ivc - ni_queue_base;
  }
  std::uint32_t num_ports() const {
    return static_cast<std::uint32_t>(channels.size() + nis.size());
  }

  // --- Credits (packet_router.cpp; packet_credits.hpp) ---
  /// Applies the credits of returns wholly back by now, on every VC of ch.
  void apply_credits(std::uint32_t ch);
  /// Blocked channel ch: when enough credits will be back for one of its waiting packets.
  core::Time credit_wake(std::uint32_t ch);
  /// The same for VC v of blocked channel ch alone (its returns changed; the others' wakes
  /// still stand).
  core::Time credit_wake(std::uint32_t ch, std::uint32_t v) const;

  // --- NI (packet_ni.cpp) ---
  /// Queues message m (its fields set) at its source: at an NI, or (schedule_ni) to wait for one.
  void enqueue(std::uint32_t m, std::uint32_t ni_hint);
  void set_step_plan(std::uint32_t flow, StepPlan plan);
  std::uint32_t ni_channel(topology::NodeId npu, std::uint32_t ni, bool ejection) const;

  core::Simulation& sim;
  const topology::Topology& topo;
  const PacketOptions opt;
  const std::function<void(std::uint32_t m, std::uint32_t src_ni, std::uint32_t dst_ni)> route_via;
  LinkObserver* const& link_observer;
  core::Time pipeline, credit_delay;
  std::uint32_t vcs = 0;
  bool wormhole = false;
  bool per_flit_credits = true;
  bool ni_round_robin = false;  // ni_policy round-robin
  bool worms = false;           // VCs are held by worms (wormhole, or message-based flow control)
  VcClasses classes;
  std::unique_ptr<SwitchAllocatorUnit> allocator;
  std::vector<Channel> channels;
  std::vector<InputVc> ivcs;  // channel c's VCs at c*vcs .. ; NI queues after all of them
  std::uint32_t ni_queue_base = 0;
  std::uint32_t feed_base = kNoChannel, drain_base = kNoChannel;  // NI queue stages, if any
  std::vector<std::uint32_t> alloc_due, alloc_now;  // channels to allocate this instant
  bool pass_scheduled = false;
  std::uint64_t pass_id = 0;
  // An NI's queue of messages; only its front packet exists as a Packet (in its InputVc), the
  // rest are cut from the front message when that one leaves.
  std::vector<std::deque<std::uint32_t>> nis;  // per NPU * nis_per_npu
  std::vector<std::uint32_t> next_ni;          // per NPU: round-robin NI for the next message
  // schedule_ni: per NPU, messages waiting for an idle NI (earliest step first), and the
  // round-robin destination NI of the next message to it.
  std::vector<std::deque<std::uint32_t>> pending;
  std::vector<std::uint32_t> next_dst_ni;
  std::vector<StepState> steps;
  core::SlotPool<Packet> packets;
  core::SlotPool<Message> messages;
  CreditPool credit_pool;
  std::vector<LinkStats> stats;
  std::uint64_t head_flits = 0, total_flits = 0, flit_hops = 0;
  std::uint32_t max_occupancy = 0;
  std::vector<double> latencies_ns;  // per delivered message
  PacketObserver* observer = nullptr;
  // Timers by instant: the engine gets one event per instant with timers, not one per timer
  // (most instants have many: packets become ready, channels and ports free). Timers only set
  // requests and flags for the allocation pass, which runs after every event of the instant, so
  // running an instant's timers together changes nothing.
  absl::flat_hash_map<std::int64_t, std::uint32_t> timer_bucket;  // instant (ps) -> bucket
  std::vector<std::vector<std::uint64_t>> timer_buckets;
  std::vector<std::uint32_t> free_timer_buckets;
  std::vector<std::uint64_t> due_timers;  // the bucket being run
  // A few pending instants and their buckets, by a hash of the instant.
  struct TimerSlot {
    std::int64_t ps = -1;
    std::uint32_t bucket = 0;
  };
  static constexpr std::size_t kRecentTimers = 64;
  std::array<TimerSlot, kRecentTimers> recent_timers{};

 private:
  void run_timer(std::uint64_t timer);
  bool port_busy(std::uint32_t port);
  void merge_arrivals(Channel& c);
  core::Time pipe_of(const InputVc& in) const;
  void schedule_free(std::uint32_t ch);
  void run_pass();
  std::uint32_t partial(std::uint32_t ch, std::uint32_t v) const {
    return partial_credits(ivcs[std::size_t{ch} * vcs + v].returning, credit_pool, sim.now());
  }
  void take_partial(std::uint32_t ch, std::uint32_t v);
  void pop_return(InputVc& down);
  // credit_wake of VC v given the waiting packets' smallest and largest sizes.
  core::Time credit_wake(std::uint32_t ch, std::uint32_t v, std::uint32_t lo,
                         std::uint32_t hi) const;
  void report_credit(std::uint32_t ch, std::uint32_t v, core::Time at, std::uint32_t flits);
  // NI
  void next_ni_packet(std::uint32_t q);
  bool pull_pending(std::uint32_t q);
  bool eligible(std::uint32_t m) const;
  void advance_step(std::uint32_t st, topology::NodeId npu, bool after_sends);
  void fill_nis(topology::NodeId npu);
  void on_injected(std::uint32_t m);
};

}  // namespace collsim::network::packet
