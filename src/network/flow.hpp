#pragma once
// The flow backend: a fluid model with max-min fair bandwidth sharing.
//
// Each message is a flow over its route. Active flows share every directed link max-min fairly,
// computed by progressive filling: repeatedly find the link whose remaining capacity divided by
// its unfrozen flows is smallest, give those flows that rate, and remove it from the other links
// they cross. Rates are recomputed once per simulated instant at which flows start or end, and
// only over the connected component of links and flows that the change touches. A message's last
// byte leaves the source when its flow has moved all its bytes (the source's channel is free
// again then) and arrives after the sum of the route's link latencies, added once per message.
//
// NPU injection / ejection limits (BackendOptions) are extra links in the same computation: every
// flow from NPU u also crosses u's injection link, every flow to v crosses v's ejection link
// (a NIC slower than the sum of its network links: ACE Sec. 3, MultiTree Sec. V-A).
//
// ni_policy (BackendOptions, NiPolicy): all-at-once (default) is the above; round-robin adds an
// injection and an ejection link per NPU of its fastest link's rate (unless capped explicitly),
// the fluid limit of an NI that cuts a packet of each queued message in turn; fifo starts an
// NPU's flows one at a time, in send order, each when the one before has left its source, with
// that ejection link (the packet backend's NI).
//
// multipath (network/multipath.hpp): ecmp and spray-message pick one of the equal-cost paths
// per message; spray-packet splits a message evenly into a sub-flow per path (at most 64), the
// fluid limit of per-packet spraying.
//
// In-network reduction (topology.hpp SwitchReduction): a GroupMessage is one flow over every leg
// (each contribution's route up to the switch and the result's route down; a multicast's send up
// and every copy down), so it moves at one rate everywhere: the switch merges contributions and
// forwards copies as they stream through it. Each NPU port of such a switch adds two resources,
// its in-network rate in and out, crossed by the group flows using that port (contention among
// reductions and multicasts shows there, as among messages on the injection caps). Its latency is
// the longest leg up, the switch's latency, and the longest leg down. Group flows bypass the
// fifo NI.
//
// Left out, by design: packets, headers, buffers and back-pressure (switches forward with no
// buffering limit), store-and-forward delay, and TCP-like rate dynamics. Use `packet` for those.
// Cost: a recomputation is O((F + L) log L) in the component it touches; traffic where every flow
// shares links with every other (all-to-all through one switch) makes each recomputation global.
#include <cstdint>
#include <deque>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "core/slot_pool.hpp"
#include "network/backend.hpp"
#include "network/multipath.hpp"
#include "network/group.hpp"

namespace collsim::network {

class FlowBackend final : public Backend, private core::EventHandler {
 public:
  FlowBackend(core::Simulation& sim, const topology::Topology& topo, const BackendOptions& opt);

  std::string_view name() const override { return "flow"; }
  void transmit(topology::NodeId src, topology::NodeId dst, core::Bytes bytes,
                const MessageAttributes& attrs, DeliveryHandler& handler,
                std::uint64_t tag) override;
  const std::vector<LinkStats>& link_stats() const override { return stats_; }
  std::vector<Resource> resources() const override;
  bool link_contention_only() const override {
    return !inject_cap_ && !eject_cap_ && !fifo_ && !multipath_.active();
  }

  /// Current rate of the flow carrying message `tag` (bytes/s; for tests), or -1 if none.
  double rate_of(std::uint64_t tag) const;
  bool offers_in_network() const override { return true; }
  void transmit_group(const GroupMessage& g, const MessageAttributes& attrs,
                      DeliveryHandler& handler, std::uint64_t tag) override;

 private:
  enum Kind : std::uint64_t { kFinish = 0, kDelivered = 1, kRecompute = 2 };
  struct Entry {
    std::uint32_t flow;
    std::uint32_t index;  // position of this resource in the flow's route
  };
  struct Flow {
    DeliveryHandler* handler = nullptr;
    std::uint64_t tag = 0;
    std::vector<std::uint32_t> res;  // links crossed (capacity reused across messages)
    std::vector<std::uint32_t> pos;  // index of this flow in each link's entry list
    double remaining = 0;            // bytes not yet sent
    double rate = 0;                 // bytes/s
    core::Time updated;              // when `remaining` was last brought up to date
    core::Time latency;              // sum of route latencies
    std::uint64_t bytes = 0;
    std::uint32_t version = 0;  // finish events carry it; a rate change makes old ones stale
    std::uint32_t seen = 0;     // component-search epoch
    bool active = false;
    bool frozen = false;
    bool queued = false;  // ni_policy fifo: it holds (or waits for) its NPU's NI
    topology::NodeId src = 0;
  };

  // multipath spray-packet: a message's sub-flows report to this, which reports the message
  // when its last sub-flow has left (arrived).
  struct Split {
    DeliveryHandler* handler = nullptr;
    std::uint64_t tag = 0;
    std::uint32_t to_inject = 0, to_deliver = 0;
  };
  class SplitHandler final : public DeliveryHandler {
   public:
    explicit SplitHandler(FlowBackend& b) : b_(b) {}
    void on_injected(std::uint64_t split) override;
    void on_delivered(std::uint64_t split) override;

   private:
    FlowBackend& b_;
  };

  // A flow of `bytes` over route_ (transmit sets it).
  void start(topology::NodeId src, topology::NodeId dst, core::Bytes bytes,
             DeliveryHandler& handler, std::uint64_t tag);
  void spray(topology::NodeId src, topology::NodeId dst, core::Bytes bytes, std::uint64_t first,
             DeliveryHandler& handler, std::uint64_t tag);
  void on_event(std::uint64_t event) override;
  void mark_dirty(std::uint32_t res);
  void recompute();
  void finish(std::uint32_t f);
  void activate(std::uint32_t f);
  void detach(std::uint32_t f);
  static std::uint64_t event_tag(std::uint32_t flow, std::uint32_t version, Kind k) {
    return (std::uint64_t{version & 0x3fffffffu} << 34) | (std::uint64_t{flow} << 2) | k;
  }

  core::Simulation& sim_;
  const topology::Topology& topo_;
  std::uint32_t num_links_ = 0;
  bool inject_cap_ = false, eject_cap_ = false;
  bool fifo_ = false;  // ni_policy fifo: one flow per source NPU at a time
  std::vector<std::deque<std::uint32_t>> fifo_queue_;  // per NPU: flows waiting for its NI
  std::vector<std::uint8_t> fifo_busy_;
  std::vector<double> capacity_;  // per resource: topology links, then injection, then ejection
  std::vector<LinkStats> stats_;
  std::vector<std::vector<Entry>> on_res_;  // active flows per resource
  std::vector<core::Time> busy_since_;
  core::SlotPool<Flow> flows_;
  std::vector<topology::LinkId> route_;  // scratch
  PathChooser multipath_;
  core::SlotPool<Split> splits_;
  SplitHandler split_handler_{*this};
  // In-network ports: key (switch << 33 | npu << 1 | up) -> resource, and what they are.
  absl::flat_hash_map<std::uint64_t, std::uint32_t> port_res_;
  std::vector<Resource> port_info_;
  std::vector<GroupLeg> legs_;  // scratch

  // Recomputation state, kept between calls so that it allocates nothing in steady state.
  std::vector<std::uint32_t> dirty_;
  std::vector<std::uint8_t> is_dirty_;
  bool recompute_scheduled_ = false;
  std::uint32_t epoch_ = 0;
  std::vector<std::uint32_t> res_seen_;
  std::vector<std::uint32_t> comp_res_, comp_flows_;
  std::vector<double> rem_cap_;
  std::vector<std::uint32_t> unfrozen_;
  std::vector<std::uint32_t> stamp_;
  std::vector<double> key_;  // the share of each link's live heap entry (a lower bound)
  // Flow-link visits of the recomputations so far, against BackendOptions::max_solver_work.
  std::uint64_t solver_visits_ = 0;
  std::uint64_t max_solver_work_ = 0;
  std::uint64_t recomputations_ = 0;
  std::uint64_t peak_component_ = 0;  // most flows one recomputation reached
  struct HeapItem {
    double share;
    std::uint32_t res;
    std::uint32_t stamp;
  };
  std::vector<HeapItem> heap_;
  std::vector<double> old_rate_;
};

}  // namespace collsim::network
