#pragma once
// The network seam (docs/design.md "Backends only move bytes"). A backend accepts "deliver
// B bytes from NPU u to NPU v" with per-message attributes and calls back twice: when the source
// has finished putting the message on the wire (it may start the next message on that channel)
// and when the last byte has arrived. It owns everything about links, routes, contention and flow
// control, and tells an optional LinkObserver when its links are busy.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/engine.hpp"
#include "core/registry.hpp"
#include "core/units.hpp"
#include "network/params.hpp"
#include "topology/pinned_routes.hpp"
#include "topology/topology.hpp"

namespace collsim::network {

/// Traffic a directed link (or modelled resource) has carried.
struct LinkStats {
  std::uint64_t bytes = 0;  ///< payload bytes that crossed it
  core::Time busy;          ///< time it was serializing (flow backend: carrying any flow)
};

/// What a message carries besides its bytes: hints a backend may use and others ignore. 16 bytes,
/// passed by value on the hot path.
struct MessageAttributes {
  static constexpr std::uint8_t kAnyNi = 0xff;
  static constexpr std::uint16_t kAnyWavelength = 0xffff;
  /// Schedule priority: the time step of the op that sent it (MultiTree Sec. IV-A), 0 = none.
  std::uint32_t priority = 0;
  /// Which collective (or tree, or flow) the message belongs to; for observers and backends that
  /// keep per-flow state.
  std::uint32_t flow = 0;
  /// Wavelength of an optical lightpath (WRHT); kAnyWavelength lets the backend choose.
  std::uint16_t wavelength = kAnyWavelength;
  /// Network interface at the source and destination (packet backend with several NIs per
  /// NPU); kAnyNi lets the backend choose (round-robin).
  std::uint8_t ni = kAnyNi;
  /// Virtual-channel class the message starts in (packet backend); 0 = the default class.
  std::uint8_t vc_class = 0;
  /// Which of several parallel paths the message takes where the topology offers a choice (the
  /// k local switches of a package: Topology::route); topology::kAnyPath lets the topology's rule
  /// choose. The executor sets it to the program stream that sent the message.
  std::uint8_t path = topology::kAnyPath;
};

/// A collective's schedule table as a strict-schedule NI sees it (MultiTree Sec. IV-A): how many
/// messages each NPU sends in each time step.
struct StepPlan {
  std::vector<std::vector<std::uint32_t>> sends;  ///< [npu][step], steps from 1; [.][0] unused
  std::uint64_t flow_bytes = 0;                   ///< the largest stepped message's bytes
};

/// Told when a directed link, or a resource a backend appends after the links, is busy.
/// Intervals of one link never overlap except on the analytical backend (which does not model
/// contention); they may be reported out of time order across links.
/// A resource a backend models besides the topology's links (its LinkStats come after the
/// links'): e.g. an NPU's injection or ejection cap on the flow backend.
struct Resource {
  /// "npu-injection", "npu-ejection"; "npu-switch-reduce-in" / "-out": the in-network rate of the
  /// NPU's port on a reducing switch (flow.hpp)
  std::string kind;
  topology::NodeId npu = 0;  ///< the NPU it belongs to
  core::Bandwidth capacity;  ///< bytes/s
};

class LinkObserver {
 public:
  /// `link` carried traffic during [begin, end) (flow backend: at least one flow crossed it).
  virtual void on_link_busy(topology::LinkId link, core::Time begin, core::Time end) = 0;

 protected:
  ~LinkObserver() = default;
};

class DeliveryHandler {
 public:
  /// The source has serialized the message (its channel to the destination is free again).
  virtual void on_injected(std::uint64_t tag) = 0;
  /// The whole message has reached the destination.
  virtual void on_delivered(std::uint64_t tag) = 0;

 protected:
  ~DeliveryHandler() = default;
};

/// A message the switch takes part in (topology.hpp SwitchReduction): a reduction whose
/// `members` each contribute `bytes` that the switch merges into one result of `bytes` for `root`
/// (the root contributes too when it is a member), or a multicast of `bytes` from `root` that the
/// switch copies to every member, the root included (NVLS's multimem store writes the sender's
/// own copy through the switch too; the program sees no message to itself). The members' routes to and from `switch_node` are
/// the topology's.
struct GroupMessage {
  enum class Kind : std::uint8_t { Reduce, Multicast };
  Kind kind = Kind::Reduce;
  topology::NodeId root = 0;
  std::span<const topology::NodeId> members;
  topology::NodeId switch_node = 0;
  core::Bytes bytes;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  /// Start moving `bytes` from NPU `src` to NPU `dst` at the simulation's current time. `tag` is
  /// handed back in both callbacks. Callbacks run from simulation events, never from inside
  /// send(). Throws std::invalid_argument if src or dst is not an NPU or src == dst: a send to
  /// oneself is a program error (the verifier and communicators refuse it), checked here once
  /// for every backend.
  void send(topology::NodeId src, topology::NodeId dst, core::Bytes bytes, DeliveryHandler& handler,
            std::uint64_t tag, const MessageAttributes& attrs = {}) {
    if (src == dst || src >= num_npus_ || dst >= num_npus_) refuse(src, dst);
    transmit(src, dst, bytes, attrs, handler, tag);
  }
  /// True if the backend moves GroupMessages (send_group). The flow and analytical backends do.
  virtual bool offers_in_network() const { return false; }
  /// Start a reduction or multicast through `g.switch_node`, which must offer in-network
  /// reduction (Topology::in_network). Calls h.on_injected(tag) once every contribution (the
  /// multicast's send) has left its source, and h.on_delivered(tag) once the result (every copy)
  /// has arrived. Throws core::InputError when the backend or the switch offers none.
  void send_group(const GroupMessage& g, DeliveryHandler& h, std::uint64_t tag,
                  const MessageAttributes& attrs = {}) {
    transmit_group(g, attrs, h, tag);
  }
  /// Route messages whose (source, destination, priority) is in `routes` over its links instead
  /// of the topology's route (a program's reserved paths: topology/pinned_routes.hpp); nullptr:
  /// the topology's routes only (the default).
  void pin_routes(std::shared_ptr<const topology::PinnedRoutes> routes) {
    pinned_ = std::move(routes);
  }
  /// True if the backend runs a per-NPU step schedule (the packet backend's strict_schedule),
  /// for which the executor hands it the StepPlan of each collective whose program is a step
  /// schedule (collective::Program::step_schedule; others' steps stay priorities only).
  virtual bool wants_step_plan() const { return false; }
  /// The sends each NPU makes in each time step of collective `flow` (MessageAttributes::flow
  /// and ::priority); called once when the collective starts, before its first send.
  virtual void set_step_plan(std::uint32_t /*flow*/, StepPlan /*plan*/) {}
  /// Report link busy intervals to `observer` (nullptr: to nobody, the default).
  void set_link_observer(LinkObserver* observer) { link_observer_ = observer; }
  /// What each directed link has carried so far, indexed by LinkId (topology links first; a
  /// backend that models extra resources, such as NPU injection limits, appends them after).
  virtual const std::vector<LinkStats>& link_stats() const = 0;
  /// What the link_stats() entries after the topology's links are, in the same order.
  virtual std::vector<Resource> resources() const { return {}; }
  /// Backend-specific figures for reports, in a fixed order (e.g. head-flit overhead).
  virtual std::vector<std::pair<std::string, double>> summary() const { return {}; }
  /// When a run stalls: which channels hold traffic that cannot move (empty if none).
  virtual std::string describe_blocked() const { return {}; }
  /// True if messages affect each other only through the topology links they share (no
  /// per-NPU limits, routers or wavelengths): traffic on disjoint links is independent
  /// (scheduler/group_symmetry.hpp).
  virtual bool link_contention_only() const { return false; }

 protected:
  explicit Backend(const topology::Topology& topo) : num_npus_(topo.num_npus()) {}
  /// send() after its checks.
  virtual void transmit(topology::NodeId src, topology::NodeId dst, core::Bytes bytes,
                        const MessageAttributes& attrs, DeliveryHandler& handler,
                        std::uint64_t tag) = 0;
  /// send_group() for a backend that offers_in_network(); the default refuses.
  virtual void transmit_group(const GroupMessage& g, const MessageAttributes& attrs,
                              DeliveryHandler& handler, std::uint64_t tag);
  LinkObserver* link_observer_ = nullptr;
  /// Append the route of a message from `src` to `dst` with schedule priority `priority` and
  /// path preference `path`: its pinned links if pin_routes() has them, else the topology's.
  void route(const topology::Topology& topo, topology::NodeId src, topology::NodeId dst,
             std::uint32_t priority, std::uint8_t path, std::vector<topology::LinkId>& out) const {
    if (pinned_ && pinned_->append(src, dst, priority, out)) return;
    topo.route(src, dst, out, path);
  }
  /// Append the pinned links of such a message, if pin_routes() has them (then true).
  bool pinned_route(topology::NodeId src, topology::NodeId dst, std::uint32_t priority,
                    std::vector<topology::LinkId>& out) const {
    return pinned_ && pinned_->append(src, dst, priority, out);
  }

 private:
  std::shared_ptr<const topology::PinnedRoutes> pinned_;
  [[noreturn]] void refuse(topology::NodeId src, topology::NodeId dst) const;
  std::uint32_t num_npus_;
};

/// Options of the packet backend (defaults: MultiTree (ISCA'21) Table III, and the BookSim
/// configuration of the authors' public simulator, github.com/farabimahmud/accelerator).
/// How a router forwards a packet (MultiTree (ISCA'21) Sec. V-A; Dally & Towles ch. 13).
enum class Switching {
  /// Virtual cut-through: a packet leaves a router only when a downstream VC has room for all of
  /// it, and moves as one unit (events per packet per hop).
  VirtualCutThrough,
  /// Wormhole: a packet's head takes an idle downstream VC with room for one flit and holds it
  /// until its tail has gone; flits move one by one as credits allow, so a packet can stretch
  /// over several routers and buffers may be smaller than a packet (events per flit per hop).
  Wormhole,
};

/// When a router gives the upstream channel back the buffer space of a packet that has left one
/// of its VCs (Dally & Towles ch. 13.3, credit-based flow control).
enum class CreditReturn {
  /// One credit per flit, as each flit leaves the VC (Dally & Towles; BookSim): the upstream
  /// channel may start the next packet as soon as enough flits of space are back.
  PerFlit,
  /// All of a packet's credits at once, when its tail has left (collsim before issue 37).
  PerPacket,
};

/// Which free downstream VC of its class a packet's head is given (Dally & Towles ch. 19).
enum class VcSelect {
  /// The separable VC allocator's round-robin arbiter: the first usable VC after the one granted
  /// last on that channel (BookSim's round-robin VC allocator).
  RoundRobin,
  /// The usable VC with the most free space, ties to the lowest (collsim before issue 37).
  MostFree,
};

/// How the switch allocator matches input ports to output channels (Dally & Towles ch. 19).
enum class SwitchAllocator {
  /// Separable input-first: each input port's round-robin arbiter picks one of its VCs whose
  /// request can go now, then each output's round-robin arbiter picks among the ports that chose
  /// it; both pointers move past the winner (BookSim's separable_input_first).
  InputFirst,
  /// Outputs allocate one after another in channel order, each round-robin over its requests,
  /// skipping ports already sending (collsim before issue 37).
  OutputOrder,
  /// iSLIP with one iteration (McKeown 1999; BookSim's `islip` allocator with `alloc_iters = 1`,
  /// the MultiTree authors' setting): each output grants the first requesting input port after
  /// its grant pointer, each port accepts the first granting output after its accept pointer,
  /// and both pointers move only on acceptance; a declined output idles for a router cycle.
  /// With switching Wormhole the switch is allocated per flit, as BookSim's iq_router does
  /// (network/packet_islip.cpp).
  ISlip,
};

struct PacketOptions {
  Switching switching = Switching::VirtualCutThrough;
  CreditReturn credit_return = CreditReturn::PerFlit;
  VcSelect vc_select = VcSelect::RoundRobin;
  SwitchAllocator switch_allocator = SwitchAllocator::InputFirst;
  std::uint32_t flit_bytes = 16;             ///< 128-bit channels
  std::uint32_t packet_payload_bytes = 256;  ///< "Data Packet Payload 256 Bytes for Baselines"
  std::uint32_t vcs = 4;                     ///< virtual channels per input port
  std::uint32_t vc_buffer_flits = 318;       ///< "VC Buffer Depth 318 flits"
  core::Time router_period = core::Time::from_ns(1);  ///< 1 GHz router clock
  std::uint32_t router_pipeline_cycles = 1;  ///< per-hop delay from head arrival to departure
  std::uint32_t credit_delay_cycles = 1;     ///< added to the link latency for returning credits
  bool message_based_flow_control = false;   ///< MultiTree Sec. IV-B: one head flit per message
  std::uint32_t nis_per_npu = 1;             ///< network interfaces (injection/ejection ports)
  /// MultiTree's schedule-table NI (Sec. IV-A, the authors' --prioritize-schedule): an NI
  /// streams one message (flow) at a time and, when idle, takes the NPU's waiting message of the
  /// earliest time step (MessageAttributes::priority; ties in send order); messages reach the
  /// destination's NIs round-robin; routers grant the earliest step first.
  bool schedule_ni = false;
  /// With schedule_ni, the authors' --strict-schedule: an NPU takes messages of its current time
  /// step only and moves to the next step once all of the step's messages are out of its NIs;
  /// a step in which it sends nothing (NoOp) is skipped at once, unless estimate_lockstep.
  bool strict_schedule = false;
  /// With strict_schedule, the authors' --estimate-lockstep: a NoOp step lasts an estimated step
  /// time (m = 256 B messages per flow; m cycles if m <= 58, else 17 m - 58 x 16, with
  /// message-based flow control 16 m - 58 x 16), twice that right after a step with sends.
  bool estimate_lockstep = false;
  /// Bandwidth of each NI's injection and ejection channel; unset: the NPU's fastest link. With
  /// NI queues, the bandwidth between the NPU and its NI queues instead (the NI's channels to and
  /// from the router then run at the NPU's fastest link).
  std::optional<core::Bandwidth> ni_bandwidth;
  /// Depth of each NI's injection queue and ejection queue, in flits (>= one packet); unset: the
  /// NI has no queue stage (the NPU feeds and drains the NI channels directly, as BookSim's
  /// unbounded source queues and immediate sinks). MultiTree's NI used an 80-flit injection queue.
  std::optional<std::uint32_t> injection_queue_flits;
  std::optional<std::uint32_t> ejection_queue_flits;
};

/// How the optical backend picks a lightpath's wavelength (WRHT (PPoPP'23) Sec. 2, refs. 7-8).
enum class WavelengthAssignment { FirstFit, BestFit };

/// Options of the optical backend (optical.hpp). The wavelengths themselves belong to the
/// topology (topology::OpticalSpec).
struct OpticalOptions {
  WavelengthAssignment assignment = WavelengthAssignment::FirstFit;
  /// Per-lightpath set-up: micro-ring tuning and O-E-O at the ends. The poster gives no value; 1 us
  /// is the order of thermally tuned micro-rings (docs/wrht.md sweeps it).
  core::Time setup = core::Time::from_ns(1000);
  std::optional<std::uint32_t> transmitters;  ///< lightpaths a node sources at once; unset: any
  std::optional<std::uint32_t> receivers;     ///< lightpaths a node sinks at once; unset: any
};

/// How an NPU's network interface serves the messages queued at it (issue 37). Unset in
/// BackendOptions: the backend's own (packet: Fifo, flow: AllAtOnce).
enum class NiPolicy {
  /// One message after another, each whole before the next (the packet NI; BookSim's source
  /// queue). Flow: one flow per source NPU at a time; the NPU's ejection at its fastest link.
  Fifo,
  /// Packet: the NI cuts one packet from each queued message in turn. Flow (its fluid limit):
  /// all queued messages at once, sharing an injection and an ejection of the NPU's fastest link
  /// rate fairly.
  RoundRobin,
  /// Flow only: every message its own flow at once, limited by the links alone (max-min fair).
  AllAtOnce,
};

/// How messages between two NPUs spread over the topology's equal-cost shortest paths
/// (network/multipath.hpp, docs/multipath.md). Flow and packet backends; graph topologies.
enum class Multipath : std::uint8_t {
  None,          ///< the topology's deterministic route (the default)
  Ecmp,          ///< per flow: a hash of (src, dst, collective, stream) picks one path
  SprayMessage,  ///< each message of a source takes the next path round-robin
  SprayPacket,   ///< packet: each packet the next path; flow: a sub-flow on every path
};

/// Options of the backends, typed and parsed once. Each backend declares the ones it takes as its
/// parameter schema (params.hpp); the member initializers are the defaults.
struct BackendOptions {
  /// Cap on an NPU's total injection (ejection) bandwidth across all its links: a NIC slower
  /// than the sum of its links (ACE's NPU-NIC bus, MultiTree's NI). Unset: no cap.
  std::optional<core::Bandwidth> npu_injection_bandwidth;
  std::optional<core::Bandwidth> npu_ejection_bandwidth;
  /// The NI's policy (packet and flow backends); unset: the backend's default (NiPolicy).
  std::optional<NiPolicy> ni_policy;
  /// Multipath routing (flow and packet backends) and its hash seed.
  Multipath multipath = Multipath::None;
  std::uint32_t ecmp_seed = 0;
  PacketOptions packet;    ///< used by the packet backend only
  OpticalOptions optical;  ///< used by the optical backend only
  /// Work bound of the flow backend's max-min solver: flow-link visits over a run (each
  /// recomputation visits every link of every flow it reaches). Past it the run stops with
  /// core::ResourceError (exit 2): how often rates are recomputed depends on the run's timing,
  /// which no estimate before the run knows. 0: none. Set from --max-messages
  /// (scheduler::solver_budget); not a backend parameter.
  std::uint64_t max_solver_work = 0;
};

struct BackendInfo {
  std::string name;
  std::string description;
  std::vector<BackendParam> params;  ///< the options it takes (params.hpp), in label order
  std::unique_ptr<Backend> (*make)(core::Simulation& sim, const topology::Topology& topo,
                                   const BackendOptions& options) = nullptr;
  /// What the backend simulates for `messages` messages of `bytes` bytes in all, in its own unit
  /// (work_unit), for the resource limits (scheduler/limits.hpp: --max-messages bounds it). Null:
  /// one per message (its events are per message).
  std::uint64_t (*work)(const BackendOptions& options, std::uint64_t messages,
                        std::uint64_t bytes) = nullptr;
  /// What `work` counts ("packets", "flits"); null: messages.
  const char* (*work_unit)(const BackendOptions& options) = nullptr;
  /// Bytes of the backend's own state on `topo` for a run of `work` units (as `work` counts):
  /// what grows with its options (the packet backend's VCs x ports, and the packets buffers that
  /// deep hold at once), for --max-memory (scheduler/limits.hpp). Null: nothing beyond the job's
  /// estimate (per link and per message in flight).
  std::uint64_t (*state_bytes)(const BackendOptions& options, const topology::Topology& topo,
                               std::uint64_t work) = nullptr;
  /// What Backend::link_contention_only will say for these options, known before a run so that
  /// its work estimate counts every group when one group cannot stand for all
  /// (scheduler/group_symmetry.hpp). Null: false. A test checks both agree for every backend.
  bool (*links_only)(const BackendOptions& options) = nullptr;
  /// Its cost per message is per link of the message's route (flow: every link is a max-min
  /// resource the message's flow enters, leaves and is recomputed on), so its limits count
  /// messages x route links (scheduler::check_route_work).
  bool route_work = false;
};

/// The backend's name with its parameters that are not at their default, in the order of its
/// schema, for reports: "flow", "packet:mbfc", "flow:inject=25 GB/s", "packet:vcs=2:nis=4".
std::string backend_label(const BackendInfo& info, const BackendOptions& options);

/// Build a backend; throws core::InputError naming `field` when `options` set a parameter the
/// backend does not take or one out of range (options.hpp check_options).
std::unique_ptr<Backend> make_backend(const BackendInfo& info, core::Simulation& sim,
                                      const topology::Topology& topo, const BackendOptions& options,
                                      std::string_view field);

/// The backend used when a scenario or command line names none.
inline constexpr std::string_view kDefaultBackend = "flow";

/// Every registered backend, in a fixed order (registry.cpp).
const core::Registry<BackendInfo>& backends();
/// Throws core::InputError naming `field` and listing the valid names.
const BackendInfo& find_backend(std::string_view name, std::string_view field);

}  // namespace collsim::network
