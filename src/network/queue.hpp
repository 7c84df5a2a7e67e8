#pragma once
// The queue backend: congestion-aware, per-link FIFO, store-and-forward messages.
//
// Every directed link serves whole messages one at a time, in the order they reach its tail.
// A message that reaches the tail of link l (bandwidth B_l, latency a_l) at time t
//   starts serializing at  start = max(t, free_at[l])      (waits for the messages ahead of it)
//   ends serializing at    end   = start + ceil(bytes / B_l)  (core::transfer_time, whole ps)
//   reaches the next node  at     end + a_l                   and joins its next link's queue.
// The link is free again at `end`; the latency is propagation, not occupancy. Messages at a link
// at the same picosecond are served in simulation event order (deterministic). A zero-byte message
// takes no serialization time, only the latencies.
//   on_injected  fires when serialization on the first link ends (the source may send again);
//   on_delivered fires when the message reaches the destination after its last link.
// LinkStats: every link a message crosses gains its bytes and its serialization time, so busy
// never exceeds the elapsed time.
//
// Relation to the other backends: on a one-hop route with no competing traffic this equals the
// analytical backend exactly (latency + ceil(bytes / bandwidth)). On an h-hop route it is
// store-and-forward, sum over hops of (latency + bytes / bandwidth), where analytical is
// cut-through (sum of latencies + bytes / bottleneck); with crossing traffic, messages wait.
//
// This is the model of ASTRA-sim's congestion-aware analytical backend (astra-network-analytical,
// congestion_aware/Link.cpp: a link is busy for size / bandwidth, the chunk reaches the next device
// after latency + size / bandwidth, pending chunks wait in a FIFO). ASTRA-sim offers it only on
// one-dimensional topologies (ring, fully connected, switch); collsim's runs on every topology, so
// results on those three can be compared number for number (ASTRA-sim truncates each hop to whole
// nanoseconds; collsim rounds serialization up to the picosecond).
#include <cstdint>
#include <vector>

#include "core/slot_pool.hpp"
#include "network/backend.hpp"

namespace collsim::network {

class QueueBackend final : public Backend, private core::EventHandler {
 public:
  QueueBackend(core::Simulation& sim, const topology::Topology& topo);

  std::string_view name() const override { return "queue"; }
  /// Throws std::invalid_argument if src == dst (the Backend contract forbids it).
  void transmit(topology::NodeId src, topology::NodeId dst, core::Bytes bytes,
                const MessageAttributes& attrs, DeliveryHandler& handler,
                std::uint64_t tag) override;
  const std::vector<LinkStats>& link_stats() const override { return link_stats_; }
  bool link_contention_only() const override { return true; }

 private:
  void on_event(std::uint64_t event) override;
  // The message in `slot` reaches the tail of its route_[hop] link now: queue it there.
  void enter_link(std::uint32_t slot);

  struct Slot {
    DeliveryHandler* handler = nullptr;
    std::uint64_t tag = 0;
    core::Bytes bytes;
    std::uint32_t hop = 0;                // index into route of the link being crossed
    std::vector<topology::LinkId> route;  // capacity kept when the slot is reused
  };
  core::Simulation& sim_;
  const topology::Topology& topo_;
  core::SlotPool<Slot> slots_;       // in-flight messages; each keeps its route vector's capacity
  std::vector<core::Time> free_at_;  // per link: when its last queued message ends serializing
  std::vector<LinkStats> link_stats_;
};

}  // namespace collsim::network
