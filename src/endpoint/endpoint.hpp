#pragma once
// The endpoint seam (docs/design.md "Endpoints sit between the executor and the backend"):
// what happens at an NPU and its NIC around a message. The executor hands every message to an
// Endpoint instead of the network; the endpoint sees the bytes and whether the receiver reduces
// or copies them, may delay the injection (reading memory, an NPU busy with compute), may hold an
// arrival until it has room (receiver-side admission: a NIC buffer or SRAM partition), and may
// delay the completion (the reduction), before it calls the executor back. ACE (MICRO'20) Sec. 4
// and 5 contrast an NPU-driven endpoint with an offload engine in the NIC; `ideal` charges
// nothing and passes the network's callbacks straight through.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/engine.hpp"
#include "core/registry.hpp"
#include "core/slot_pool.hpp"
#include "core/units.hpp"
#include "endpoint/params.hpp"
#include "network/backend.hpp"
#include "topology/topology.hpp"

namespace collsim::endpoint {

/// One message of a collective, as an endpoint sees it.
struct Message {
  topology::NodeId src = 0;  ///< source NPU
  topology::NodeId dst = 0;  ///< destination NPU
  core::Bytes bytes;
  network::MessageAttributes attrs;
  bool reduce = false;  ///< the receiver adds it into its buffer (else it overwrites)
};

/// What an endpoint measured over a run (ACE Fig. 11's breakdown), as sums with their counts.
struct EndpointStats {
  std::uint64_t messages = 0;  ///< messages it put on the network
  core::Time network;          ///< their time from entering the network to delivery, summed
  std::uint64_t bus_transfers = 0;
  core::Time bus_queuing;   ///< waiting for an NPU-memory or NPU-NIC bus, summed over transfers
  core::Time bus_transfer;  ///< on a bus (LogGP o + bytes G + L + o), summed over transfers
  std::uint64_t reductions = 0;
  core::Time reduction;        ///< local reduction, queue for the ALU included, summed
  std::uint64_t staged = 0;    ///< DMA transfers between memory and the engine (ACE)
  std::uint64_t oversize = 0;  ///< chunk-stages admitted alone into a partition too small
};

/// The share of the NPU's compute and memory bandwidth training keeps (ACE Sec. 5).
struct TrainingShare {
  double compute = 1;
  double memory = 1;
};

/// Told when a staging transfer (memory <-> engine) is done.
class StagingHandler {
 public:
  virtual void on_staged(std::uint64_t tag) = 0;

 protected:
  ~StagingHandler() = default;
};

/// Bounds on the chunk-stages an engine holds at once (ACE Sec. 4.3: SRAM partitions, one per
/// phase plus one for results, and state machines spread over the phases). A hierarchical
/// collective asks before it starts a chunk's stage; the stage's state machine is free when the
/// stage ends (finish), but the chunk's bytes stay in the partition until it enters the next
/// one ("chunks reside within SRAM and move to next partitions as they go to later phases",
/// Sec. 4.3.1) or, after its last phase, until they are in the results partition (leave).
/// What one SRAM partition serves, for ACE Sec. 6's sizing heuristic ("(available network
/// bandwidth x initial chunk size) for each phase"): its phase's bandwidth (bytes/s per NPU;
/// the results partition repeats the last phase's), the bytes per NPU a chunk holds in it (the
/// larger of the phase's input and output), and the chunk's size per NPU as it entered the
/// collective (the same for every partition).
struct PartitionDemand {
  double bandwidth = 1;
  double held = 0;
  double initial = 0;
};

class ChunkAdmission {
 public:
  /// Size the partitions: demands[k] for phase k, the last entry for the results; the engine's
  /// rule (EndpointParams::ace_sram_partition) turns them into shares of its SRAM. Only the first
  /// call counts (later collectives share the partitions as they are).
  virtual void shape(const std::vector<PartitionDemand>& demands) = 0;
  /// Phases the partitions were shaped for (0 before shape()).
  virtual std::uint32_t phases() const = 0;
  /// Room for `bytes` per NPU in partition `phase` and, but in the results partition
  /// (phase == phases()), a free state machine of the phase. `held`: bytes the chunk already
  /// holds in this partition (it stays there for its next stage; they count as its own room).
  /// An empty partition takes anything (an oversize chunk runs alone).
  virtual bool try_enter(std::uint32_t phase, double bytes, double held = 0) = 0;
  /// The chunk-stage that entered `phase` ended: its state machine is free, its bytes stay.
  virtual void finish(std::uint32_t phase) = 0;
  /// The chunk's `bytes` leave partition `phase`.
  virtual void leave(std::uint32_t phase, double bytes) = 0;

 protected:
  ~ChunkAdmission() = default;
};

class Endpoint {
 public:
  virtual ~Endpoint() = default;
  virtual std::string_view name() const = 0;
  /// Move `m` from its source NPU's memory to its destination's. Calls h.on_injected(tag) once
  /// the source may start its next message on this channel and h.on_delivered(tag) once the data
  /// is in the destination's buffer (reduced or copied); both from simulation events, never from
  /// inside send(). Throws what network::Backend::send throws.
  virtual void send(const Message& m, network::DeliveryHandler& h, std::uint64_t tag) = 0;

  virtual EndpointStats stats() const { return {}; }

  /// An offload engine works out of its own memory: a collective's input is copied in
  /// (stage_in, TX DMA) before its first message and its result copied out (stage_out, RX
  /// DMA) after its last. Both call h.on_staged(tag) from a simulation event.
  virtual bool stages_memory() const { return false; }
  virtual void stage_in(topology::NodeId, core::Bytes, StagingHandler&, std::uint64_t) {}
  virtual void stage_out(topology::NodeId, core::Bytes, StagingHandler&, std::uint64_t) {}
  /// The largest chunk the engine takes in (0: any); hierarchical collectives split finer.
  virtual core::Bytes chunk_limit() const { return {}; }
  /// The engine's bounds on chunks in flight; nullptr: none.
  virtual ChunkAdmission* admission() { return nullptr; }
  /// True if a message's timing here never depends on other messages (no shared buses, engines
  /// or memory): NPUs with the same traffic then behave alike (scheduler/group_symmetry.hpp).
  virtual bool messages_independent() const { return false; }
  /// The network it sends over, for network::Backend::pin_routes (a program's reserved paths);
  /// nullptr if it has none.
  virtual network::Backend* network() { return nullptr; }
};

/// No cost at either end: the network's callbacks are the executor's (today's behaviour, and
/// ACE's "ideal" reference point). The calibration knobs still apply: a per-message overhead
/// before the network and wire bytes = payload / link efficiency. With `link_fifo` the NIC
/// injects one message at a time per outgoing link, in send order (ACE Fig. 6's per-link output
/// port buffers), and with `ideal_chunk` it takes payloads in chunks no larger (ACE's chunking,
/// "a NIC with unlimited resources"). With `ideal_dma` a chunk is copied into the NIC before its
/// first stage at the NPU-NIC bandwidth, one copy at a time per NPU, with no LogGP cost (the
/// payload leaves the NPU no faster than its links take it, Table 7), and out at no cost. With
/// `ideal_engine` the factory makes ACE's engine instead (make_ace_engine: ACE's schedule with
/// no reduction time and no RX DMA; ace.cpp) and this class is not used. With
/// `aggregation_pe` a received reduction is handed over after the MultiTree authors' aggregation
/// cost, behind the NPU's earlier aggregations; with `local_mem_gbps` after ASTRA-sim 2.x's
/// local-memory delay (three passes of its bytes), which has no queue.
class Ideal final : public Endpoint, private core::EventHandler, private network::DeliveryHandler {
 public:
  /// `topo` is needed only with link_fifo.
  Ideal(core::Simulation& sim, network::Backend& backend, const EndpointParams& p = {},
        const topology::Topology* topo = nullptr);
  std::string_view name() const override { return "ideal"; }
  void send(const Message& m, network::DeliveryHandler& h, std::uint64_t tag) override;
  bool messages_independent() const override {
    return !p_.link_fifo && !p_.ideal_dma && p_.aggregation_pe == 0;
  }
  network::Backend* network() override { return &backend_; }
  core::Bytes chunk_limit() const override { return p_.ideal_chunk; }
  bool stages_memory() const override { return p_.ideal_dma; }
  void stage_in(topology::NodeId npu, core::Bytes b, StagingHandler& h,
                std::uint64_t tag) override;
  void stage_out(topology::NodeId npu, core::Bytes b, StagingHandler& h,
                 std::uint64_t tag) override;

 private:
  void on_event(std::uint64_t event) override;
  void on_injected(std::uint64_t slot) override;
  void on_delivered(std::uint64_t slot) override;
  void enqueue(std::uint32_t slot);
  void transmit(std::uint32_t slot);
  void hand_over(std::uint32_t slot);
  bool aggregates(const Message& m) const {
    return (p_.aggregation_pe != 0 || p_.local_mem_gbps != 0) && m.reduce;
  }
  static constexpr std::uint32_t kNone = UINT32_MAX;
  struct Pending {
    Message m;
    network::DeliveryHandler* h = nullptr;
    std::uint64_t tag = 0;
    std::uint32_t link = kNone;  // first link (link_fifo)
    std::uint32_t next = kNone;  // next in its link's queue
    bool injected = false, delivered = false;
  };
  struct LinkQueue {
    std::uint32_t head = kNone, tail = kNone;
    bool busy = false;
  };
  struct Staged {
    StagingHandler* h = nullptr;
    std::uint64_t tag = 0;
  };
  static constexpr std::uint64_t kStagingBit = 1ull << 63;
  core::Simulation& sim_;
  network::Backend& backend_;
  EndpointParams p_;
  const topology::Topology* topo_;
  core::SlotPool<Pending> pending_;
  std::vector<LinkQueue> links_;
  std::vector<topology::LinkId> route_;
  std::vector<core::Time> dma_free_;  // ideal_dma: when each NPU's copy-in ends
  core::SlotPool<Staged> staged_;
  std::vector<core::Time> aggregator_free_;  // per NPU: when its aggregation unit is idle
};

/// Wire bytes of a payload at a link efficiency: ceil(payload / efficiency).
core::Bytes wire_bytes(core::Bytes payload, double efficiency);

struct EndpointInfo {
  std::string name;
  std::string description;
  std::string source;  ///< paper and section
  std::unique_ptr<Endpoint> (*make)(core::Simulation& sim, network::Backend& backend,
                                    const topology::Topology& topo,
                                    const EndpointParams& params) = nullptr;
  /// What training keeps of compute and memory bandwidth; nullptr: everything.
  TrainingShare (*training_share)(const EndpointParams& params) = nullptr;
  /// What Endpoint::messages_independent says for these parameters, known before a run (for
  /// the work estimate of staged collectives: scheduler/group_symmetry.hpp). Null: false. A
  /// test checks both agree.
  bool (*messages_independent)(const EndpointParams& params) = nullptr;
  /// The chunk a flat collective is split into under these parameters (scheduler/staging.hpp:
  /// an engine with SRAM), known before a run for the work estimate; null or 0: not split.
  core::Bytes (*flat_chunk)(const EndpointParams& params) = nullptr;
};

/// Every registered endpoint model, in a fixed order (registry.cpp).
const core::Registry<EndpointInfo>& endpoints();
/// Throws core::InputError naming `field` and listing the valid names.
const EndpointInfo& find_endpoint(std::string_view name, std::string_view field);

/// The endpoint used when none is named: `none`, no endpoint model (the pass-through every
/// paper but ACE assumes). ACE's `ideal` is a different thing, ACE's engine without its costs.
inline constexpr std::string_view kDefaultEndpoint = "none";
/// `info`, or the default endpoint's when it is nullptr.
inline const EndpointInfo& endpoint_or_default(const EndpointInfo* info) {
  return info ? *info : find_endpoint(kDefaultEndpoint, "endpoint");
}

}  // namespace collsim::endpoint
