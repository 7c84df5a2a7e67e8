#pragma once
// The packet backend: packets of flits through input-buffered routers with virtual channels and
// credit-based flow control, the level at which MultiTree (ISCA'21) was measured (Sec. V-A,
// Table III, on BookSim).
//
// Model (times in ps; a flit takes flit_bytes / bandwidth on a channel):
//  * A message is split into packets of packet_payload_bytes; every packet carries one head flit
//    with no payload (so 256 B packets of 16 B flits are 17 flits: 6% overhead, Fig. 2). With
//    message_based_flow_control only a message's first packet has a head flit (Sec. IV-B), and
//    the message's packets follow it: the first takes a downstream VC, which the message holds
//    until its last packet has been granted, so the headless sub-packets stay in order.
//  * Every topology node is a router; each NPU also has nis_per_npu network interfaces, each with
//    an injection channel into its router and an ejection channel out of it. Every channel ends
//    in an input port with `vcs` virtual channels of vc_buffer_flits flits (ejection: a sink).
//  * Virtual cut-through, switched per packet: a packet's head may leave a router
//    router_pipeline_cycles after it arrived, once the output channel is free and a downstream VC
//    of its class has room for the whole packet. The channel then sends its flits back to back;
//    the tail cannot leave before it has arrived (+ pipeline), so a faster output waits for a
//    slower input. The downstream VC's credits are taken at the grant; with credit_return
//    per-flit (Dally & Towles ch. 13.3; BookSim) each flit's credit leaves as the flit leaves the
//    VC, at the output's flit rate, the tail's last; per-packet: all at the tail. Either way they
//    reach the upstream channel after its latency + credit_delay_cycles.
//  * Packets on a torus ring change to the second half of the VCs after crossing the ring's
//    dateline (its wrap-around link), and back to the first when they enter a new dimension:
//    with dimension-order routing this breaks every cyclic channel dependency.
//  * A topology with VC classes (Topology::vc_classes; the dragonfly, Kim et al. ISCA'08 Sec.
//    4.2) has each packet start in class 0 and go up one class on each link it marks (a global
//    link); with C classes and V VCs, class k uses VCs floor(k V / C) .. floor((k+1) V / C) - 1.
//    V < C is refused (vcs).
//  * Allocation (Dally & Towles ch. 16-19; BookSim's iq_router), with the switch held for the
//    packet: an input port (the VCs at the end of one channel) sends one packet at a time, from
//    its grant until its tail has left, and an output channel one packet at a time. Allocation
//    runs once per instant, after everything that instant changes (requests, credits, channels
//    and ports freeing), as a cycle-based router allocates after the cycle's updates.
//    switch_allocator input-first (default): separable input-first; each input port offers one
//    of its VCs whose request can go now (round-robin over VC numbers, moving past the winner),
//    each output grants among the offers round-robin over input-VC identities (moving past the
//    winner); a port whose offer lost offers its next VC in a further pass of the same instant
//    (an iSLIP iteration). output-order (collsim before issue 37): outputs in channel order,
//    round-robin over a list position. islip: iSLIP with one iteration (BookSim's islip, the
//    MultiTree authors' setting; packet_islip.cpp): outputs grant the first asking port after
//    their pointer, ports accept the first granting output after theirs, the pointers move only
//    on acceptance and a declined output idles for a router cycle; per flit under wormhole, as
//    BookSim's iq_router. vc_select round-robin (default): the first usable VC of
//    the class after the one granted last on the channel; most-free: the one with most space.
//  * Events are per packet per hop, and each packet's flits move back to back, so the timing is
//    that of flit-by-flit simulation with packet-granularity switch allocation (no flit
//    interleaving of two packets on one channel); credits return per packet, at the tail.
//    tests/network/packet_equivalence_test.cpp checks this against a flit-by-flit simulation.
//  * Speed: a grant fixes when the packet's tail leaves its VC, so the VC's next packet, the
//    message's delivery and the credit return are computed then, not stepped; returning credits
//    wait in the VC (in time order) and are applied when the upstream channel next allocates,
//    with an event only for a channel that is stalled waiting for them. A granted packet joins
//    the next VC's FIFO at once, stamped with its head's arrival time. One timed event (the
//    packet becoming ready to compete) and a share of one zero-delay allocation pass per packet
//    per channel.
//  * Metrics: max_vc_occupancy_flits is the peak of a VC's space in use as its upstream credit
//    counter sees it (flits buffered, on the link, or whose credits are on their way back).
//  * Wormhole (switching = Wormhole): the unit is one flit. A worm (a packet; with message-based
//    flow control the whole message) takes, with its head flit, an idle downstream VC with room
//    for one flit and holds it until its tail flit has been granted; body flits follow into that
//    VC as credits allow; credits return per flit; switch allocation is per flit, so worms in
//    different VCs interleave on a channel and a stalled worm does not hold the channel. Buffers
//    may be smaller than a packet. About 17x the events of virtual cut-through.
//  * NI queues (injection_queue_flits, ejection_queue_flits): a FIFO of that depth between the
//    NPU and the NI channel, fed (drained) by the NPU at the NI bandwidth; the NI channel then
//    runs at the router's link rate. Unset: the NPU feeds and drains the NI channels directly.
//  * schedule_ni (MultiTree Sec. IV-A): messages wait at their NPU until one of its NIs is idle
//    (its previous message fully cut into packets), the earliest time step first; the
//    destination NI is round-robin per receiver; a channel grants the request of the earliest
//    step (round-robin among equal steps). Without it an NI queues every message it is given
//    (round-robin over the NIs) and serves them in order, and channels are plain round-robin.
//  * ni_policy (BackendOptions): fifo (default) or round-robin (one packet of each queued message
//    in turn); all-at-once is refused (the NI sends one packet at a time).
//  * multipath (network/multipath.hpp): ecmp and spray-message give a message one of the
//    equal-cost paths; spray-packet gives packet j of a message path (first + j) mod P (its
//    packets may overtake each other; the message is delivered with its last).
// Left out: flit-level interleaving of virtual cut-through packets on a link (here a VCT packet
// holds the channel and its input port until its tail; switching wormhole allocates per flit,
// as BookSim's iq_router does), BookSim's separate VC-allocation stage, and adaptive routing.
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "core/slot_pool.hpp"
#include "network/backend.hpp"
#include "network/multipath.hpp"

namespace collsim::network {

/// One allocation event of the packet backend, for `--packet-trace` (report/packet_trace_log.hpp).
struct PacketEvent {
  enum class Kind : std::uint8_t {
    Request,  ///< a packet (wormhole: flit) at the front of its input VC asks for its next channel
    Grant,    ///< the channel was granted to it: it moves into downstream VC `out_vc`
    Credit,   ///< `flits` credits of downstream VC `out_vc` came back to channel `channel`
  };
  Kind kind = Kind::Request;
  core::Time at;                  ///< now
  std::uint32_t packet = 0;       ///< packet slot (reused after delivery); Credit: 0
  std::uint32_t message = 0;      ///< message slot; Credit: 0
  std::uint32_t channel = 0;      ///< the output channel (requested, granted, or credited)
  std::uint32_t in_channel = 0;   ///< the channel the packet came in on (UINT32_MAX: NI queue)
  std::uint32_t in_vc = 0;        ///< its VC there
  std::uint32_t out_vc = 0;       ///< Grant/Credit: the downstream VC (UINT32_MAX: a sink)
  std::uint32_t flits = 0;
  core::Time until;               ///< Grant: the tail leaves (channel and input port busy until)
};

/// Told every PacketEvent; a debugging aid for small runs (one call per event).
class PacketObserver {
 public:
  virtual void on_packet_event(const PacketEvent& e) = 0;

 protected:
  ~PacketObserver() = default;
};

class PacketBackend final : public Backend, private core::EventHandler {
 public:
  /// Throws core::InputError naming the option for impossible settings (a VC buffer smaller than
  /// a packet, zero VCs, an odd VC count on a torus, ...).
  PacketBackend(core::Simulation& sim, const topology::Topology& topo, const BackendOptions& opt);

  std::string_view name() const override { return "packet"; }
  void transmit(topology::NodeId src, topology::NodeId dst, core::Bytes bytes,
                const MessageAttributes& attrs, DeliveryHandler& handler,
                std::uint64_t tag) override;
  const std::vector<LinkStats>& link_stats() const override { return stats_; }
  std::vector<std::pair<std::string, double>> summary() const override;
  std::string describe_blocked() const override;
  /// strict_schedule (with schedule_ni): the backend runs each collective's step plan.
  bool wants_step_plan() const override;
  void set_step_plan(std::uint32_t flow, StepPlan plan) override;

  /// Flits a message of `bytes` becomes (for tests and reports).
  std::uint64_t flits_for(std::uint64_t bytes) const;
  /// Report every request, grant and credit return to `o` (nullptr: to nobody, the default).
  void set_packet_observer(PacketObserver* o) { observer_ = o; }
  /// "link 3->7", "NI 5 injection" (channel ids as in PacketEvent).
  std::string channel_name(std::uint32_t ch) const;

 private:
  enum Kind : std::uint64_t {
    kReady = 0,
    kFree = 1,
    kWake = 2,
    kInjected = 3,
    kDeliver = 4,
    kAllocPass = 5,
    kPortFree = 6,
    kStep = 7  // strict_schedule: a NoOp step's estimated time is over
  };
  static std::uint64_t ev(Kind k, std::uint64_t a) { return (a << 3) | k; }

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
    std::uint32_t dim = 0;
    std::int32_t link = -1;               // topology link id, or -1
    std::vector<std::uint32_t> credits;   // per downstream VC, as returned so far
    std::vector<std::uint8_t> held;       // wormhole: per downstream VC, a worm holds it
    std::vector<std::uint32_t> requests;  // input VCs whose head packet wants this channel
    std::uint32_t rr = 0;                 // output-order: round-robin position in `requests`
    std::uint32_t last_grant = UINT32_MAX;  // input-first: the input port granted last
    std::vector<std::uint32_t> arriving;  // requests made this instant, not yet in `requests`
    bool free_scheduled = false;
    bool alloc_due = false;  // in alloc_due_ for this instant's allocation pass
    // The router input port this channel ends in (all its VCs): it sends one packet at a time.
    core::Time port_busy_until;  // the tail of the packet it is sending leaves
    bool port_wake_scheduled = false;
    // Input-first switch allocation: the port's round-robin VC pointer, and the VC (input VC
    // index) it chose in allocation pass choice_pass.
    std::uint32_t port_rr = 0;
    std::uint32_t port_requests = 0;  // its VCs with a request (requesting)
    std::uint32_t returns_pending = 0;  // credit returns in flight to it (all its VCs)
    // iSLIP: the output this port accepted in pass choice_pass (choice) and its distance from
    // the port's accept pointer (choice_dist).
    std::uint32_t choice = UINT32_MAX;
    std::uint64_t choice_pass = 0;
    std::uint32_t choice_dist = 0;
    // iSLIP: the output channel this input port accepted last (its accept pointer is one past).
    std::uint32_t accept_last = UINT32_MAX;
    // Round-robin VC allocation: the next downstream VC to try first, per dateline class
    // (topology VC classes: class_rr_).
    std::uint32_t vc_rr[2] = {0, 0};
  };
  // A credit return in flight: `flits` of buffer space the upstream channel gets back, the last
  // flit's at `last` and each earlier one `step` before the next (step 0: all at `last`, per
  // packet); `given` of them have been applied.
  struct CreditBack {
    core::Time last;
    core::Time step;
    std::uint32_t flits = 0;
    std::uint32_t given = 0;
    // Credits of this return that have arrived by `now`.
    std::uint32_t arrived(core::Time now) const {
      if (now >= last) return flits;
      return step.ps <= 0 ? 0 : arrived_partly(now);
    }
    std::uint32_t arrived_partly(core::Time now) const;
    // When its j-th flit's credit arrives (1 <= j <= flits).
    core::Time time_of(std::uint32_t j) const { return last - step * (flits - j); }
  };
  struct InputVc {
    std::deque<std::uint32_t> packets;  // FIFO; the front one competes once the VC is free
    std::uint32_t channel = 0;          // the channel it is the end of (kNoChannel: an NI queue)
    core::Time busy_until;              // the last granted packet's tail leaves the VC
    bool requesting = false;
    std::uint32_t out_vc = 0;  // wormhole: the downstream VC the worm at the front holds
    // Credits for space this VC has freed, in time order (a VC's tails leave in order). They are
    // applied when the upstream channel next allocates: no event per packet.
    std::deque<CreditBack> returning;
  };
  struct Packet {
    std::uint32_t message = 0;
    std::uint32_t flits = 0;
    // Index in its message's path of the channel it goes to next (0: in the NI queue; with
    // multipath spray-packet its path's start there, Message::path).
    std::uint32_t hop = 0;
    std::uint32_t ivc = 0;  // input VC it is in
    std::uint32_t vc_class = 0;
    std::uint32_t dim = 0;  // dimension of the last topology link crossed
    core::Time head_at;     // head arrived at the current input VC
    core::Time tail_at;     // tail arrived at the current input VC
    bool last = false;      // the message's last packet (wormhole: its last flit)
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
    std::uint32_t step_state = UINT32_MAX;         // strict_schedule: its steps_ entry, if any
    std::uint64_t tag = 0;
    // Channels: injection, links..., ejection; multipath spray-packet: num_paths such paths of
    // path_len channels each, one after another, packet j on path j mod num_paths.
    std::vector<std::uint32_t> path;
    std::uint64_t first_path = 0;  // multipath: the index of its (first) equal-cost path
    std::uint32_t num_paths = 1, path_len = 0, cur_off = 0;
    std::uint64_t bytes_left = 0;     // not yet cut into packets (they wait in the NI)
    std::uint64_t packets_made = 0;
    std::uint32_t flits_left_in_packet = 0;  // of the packet being cut (wormhole: into flits)
    std::uint64_t undelivered = 0;           // packets (wormhole: flits) not yet delivered
    core::Time sent;
  };
  // An NI's queue of messages; only its front packet exists as a Packet (in its InputVc), the
  // rest are cut from the front message when that one leaves.
  struct NiQueue {
    std::deque<std::uint32_t> messages;
  };

  void on_event(std::uint64_t event) override;
  void make_ready(std::uint32_t ivc);
  void next_ni_packet(std::uint32_t ni);
  void try_grant(std::uint32_t ch);
  bool ready_to_grant(std::uint32_t ch);
  void grant(std::uint32_t ch, std::size_t idx, std::uint32_t vc);
  void islip_pass();
  void request_alloc(std::uint32_t ch);
  void allocation_pass();
  core::Time port_busy_until(const InputVc& in) const;
  core::Time pipe_of(const InputVc& in) const;
  void schedule_free(std::uint32_t ch);
  void schedule_wake(std::uint32_t ch, core::Time at);
  void apply_credits(std::uint32_t ch);
  std::uint32_t partial_credits(std::uint32_t ch, std::uint32_t v) const;
  void take_partial(std::uint32_t ch, std::uint32_t v);
  void report_credit(std::uint32_t ch, std::uint32_t v, core::Time at, std::uint32_t flits);
  // Blocked channel ch: when enough credits will be back for one of its waiting packets.
  core::Time credit_wake(std::uint32_t ch) const;
  // Input-first switch allocation: the input VC port `port` offers this instant (kNoVc: none).
  std::uint32_t port_choice(std::uint32_t port, std::uint32_t allocating);
  // The input port of input VC ivc: its channel, or (an NI queue) one after all channels.
  std::uint32_t port_id(std::uint32_t ivc) const {
    const std::uint32_t ch = ivcs_[ivc].channel;
    return ch != UINT32_MAX ? ch
                            : static_cast<std::uint32_t>(channels_.size()) + ivc - ni_queue_base_;
  }
  std::uint32_t pick_vc(const Channel& c, const Packet& p, const InputVc& in) const;
  std::uint32_t ni_channel(topology::NodeId npu, std::uint32_t ni, bool ejection) const;
  void route_via(std::uint32_t m, std::uint32_t src_ni, std::uint32_t dst_ni);
  void spray_paths(std::uint32_t m, std::uint32_t src_ni, std::uint32_t dst_ni);
  bool pull_pending(std::uint32_t q);
  // strict_schedule: NPU `npu` of steps_[st] moves past its current step (after_sends: the step
  // had sends), skipping or waiting out NoOp steps.
  void advance_step(std::uint32_t st, topology::NodeId npu, bool after_sends);
  void fill_nis(topology::NodeId npu);
  bool eligible(std::uint32_t m) const;

  core::Simulation& sim_;
  const topology::Topology& topo_;
  PacketOptions opt_;
  PathChooser multipath_;
  core::Time pipeline_, credit_delay_;
  std::uint32_t vcs_ = 0;
  bool datelines_ = false;
  // Topology::vc_classes (0: none): class k uses VCs class_lo_[k] .. class_lo_[k + 1] - 1;
  // vc_class_of_ maps a VC back to its class.
  std::uint32_t classes_ = 0;
  std::vector<std::uint32_t> class_lo_, vc_class_of_;
  std::vector<std::uint32_t> class_rr_;  // per channel x class: its round-robin VC pointer
  bool wormhole_ = false;
  bool per_flit_credits_ = true;
  bool ni_round_robin_ = false;  // ni_policy round-robin
  bool input_first_ = true;
  bool islip_ = false;  // switch_allocator islip
  // iSLIP: this pass's grants, one per output (request index idx, downstream VC vc, input port).
  struct IslipGrant {
    std::uint32_t ch = 0, idx = 0, vc = 0, port = 0;
  };
  std::vector<IslipGrant> islip_grants_;
  bool worms_ = false;  // VCs are held by worms (wormhole, or message-based flow control)
  std::vector<Channel> channels_;
  std::vector<InputVc> ivcs_;  // channel c's VCs at c*vcs_ .. ; NI queues after all of them
  std::uint32_t ni_queue_base_ = 0;
  std::uint32_t feed_base_ = UINT32_MAX, drain_base_ = UINT32_MAX;  // NI queue stages, if any
  std::vector<std::uint32_t> alloc_due_, alloc_now_;  // channels to allocate this instant
  bool pass_scheduled_ = false;
  std::uint64_t pass_id_ = 0;
  std::vector<std::uint32_t> chose_;  // ports that chose a VC in this pass
  std::vector<NiQueue> nis_;            // per NPU * nis_per_npu
  std::vector<std::uint32_t> next_ni_;  // per NPU: round-robin NI for the next message
  // schedule_ni: per NPU, messages waiting for an idle NI (earliest step first), and the
  // round-robin destination NI of the next message to it.
  std::vector<std::deque<std::uint32_t>> pending_;
  std::vector<std::uint32_t> next_dst_ni_;
  // strict_schedule: per collective, each NPU's current step and how many of its messages of
  // that step are not yet out of the NIs (UINT32_MAX: past its last step).
  struct StepState {
    std::uint32_t flow = 0;
    StepPlan plan;
    std::vector<std::uint32_t> cur, left;
    core::Time estimate;  // a NoOp step (estimate_lockstep)
  };
  std::vector<StepState> steps_;
  core::SlotPool<Packet> packets_;
  core::SlotPool<Message> messages_;
  std::vector<LinkStats> stats_;
  std::uint64_t head_flits_ = 0, total_flits_ = 0, flit_hops_ = 0;
  std::uint32_t max_occupancy_ = 0;
  std::vector<double> latencies_ns_;  // per delivered message
  PacketObserver* observer_ = nullptr;
};

}  // namespace collsim::network
