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
#include <memory>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "network/backend.hpp"
#include "network/multipath.hpp"

namespace collsim::network {
namespace packet {
class Fabric;
}

/// One allocation event of the packet backend, for `--packet-trace` (report/packet_trace_log.hpp).
struct PacketEvent {
  enum class Kind : std::uint8_t {
    Request,  ///< a packet (wormhole: flit) at the front of its input VC asks for its next channel
    Grant,    ///< the channel was granted to it: it moves into downstream VC `out_vc`
    Credit,   ///< `flits` credits of downstream VC `out_vc` came back to channel `channel`
  };
  Kind kind = Kind::Request;
  core::Time at;                 ///< now
  std::uint32_t packet = 0;      ///< packet slot (reused after delivery); Credit: 0
  std::uint32_t message = 0;     ///< message slot; Credit: 0
  std::uint32_t channel = 0;     ///< the output channel (requested, granted, or credited)
  std::uint32_t in_channel = 0;  ///< the channel the packet came in on (UINT32_MAX: NI queue)
  std::uint32_t in_vc = 0;       ///< its VC there
  std::uint32_t out_vc = 0;      ///< Grant/Credit: the downstream VC (UINT32_MAX: a sink)
  std::uint32_t flits = 0;
  core::Time until;  ///< Grant: the tail leaves (channel and input port busy until)
};

/// Told every PacketEvent; a debugging aid for small runs (one call per event).
class PacketObserver {
 public:
  virtual void on_packet_event(const PacketEvent& e) = 0;

 protected:
  ~PacketObserver() = default;
};

class PacketBackend final : public Backend {
 public:
  /// Throws core::InputError naming the option for impossible settings (a VC buffer smaller than
  /// a packet, zero VCs, an odd VC count on a torus, ...).
  PacketBackend(core::Simulation& sim, const topology::Topology& topo, const BackendOptions& opt);
  ~PacketBackend() override;

  std::string_view name() const override { return "packet"; }
  void transmit(topology::NodeId src, topology::NodeId dst, core::Bytes bytes,
                const MessageAttributes& attrs, DeliveryHandler& handler,
                std::uint64_t tag) override;
  const std::vector<LinkStats>& link_stats() const override;
  std::vector<std::pair<std::string, double>> summary() const override;
  std::string describe_blocked() const override;
  /// strict_schedule (with schedule_ni): the backend runs each collective's step plan.
  bool wants_step_plan() const override;
  void set_step_plan(std::uint32_t flow, StepPlan plan) override;

  /// Flits a message of `bytes` becomes (for tests and reports).
  std::uint64_t flits_for(std::uint64_t bytes) const;
  /// Report every request, grant and credit return to `o` (nullptr: to nobody, the default).
  void set_packet_observer(PacketObserver* o);
  /// "link 3->7", "NI 5 injection" (channel ids as in PacketEvent).
  std::string channel_name(std::uint32_t ch) const;

 private:
  void route_via(std::uint32_t m, std::uint32_t src_ni, std::uint32_t dst_ni);
  void spray_paths(std::uint32_t m, std::uint32_t src_ni, std::uint32_t dst_ni);

  const topology::Topology& topo_;
  PacketOptions opt_;
  PathChooser multipath_;
  std::unique_ptr<packet::Fabric>
      fabric_;  // the channels, VCs, NIs and packets (packet_fabric.hpp)
};

}  // namespace collsim::network
