#pragma once
// The analytical backend: congestion-unaware alpha-beta with cut-through forwarding.
//   delivered = now + sum of link latencies on the route + ceil(bytes / bottleneck bandwidth)
//   injected  = now + ceil(bytes / bottleneck bandwidth)
// Messages never wait for each other: two messages on the same link at the same time both get the
// full bandwidth. This is the congestion-unaware model of ASTRA-sim's analytical backend; use the
// congestion-aware backends when links are shared.
#include <vector>

#include "core/slot_pool.hpp"
#include "network/backend.hpp"
#include "network/group.hpp"

namespace collsim::network {

class AnalyticalBackend final : public Backend, private core::EventHandler {
 public:
  AnalyticalBackend(core::Simulation& sim, const topology::Topology& topo);

  std::string_view name() const override { return "analytical"; }
  void transmit(topology::NodeId src, topology::NodeId dst, core::Bytes bytes,
                const MessageAttributes& attrs, DeliveryHandler& handler,
                std::uint64_t tag) override;
  const std::vector<LinkStats>& link_stats() const override { return link_stats_; }
  bool link_contention_only() const override { return true; }
  /// A GroupMessage (backend.hpp) in the same alpha-beta form: its longest leg up, the switch's
  /// latency and its longest leg down, plus bytes / the slowest of its links and of the switch's
  /// port rate. Like every message here it shares nothing with the others.
  bool offers_in_network() const override { return true; }
  void transmit_group(const GroupMessage& g, const MessageAttributes& attrs,
                      DeliveryHandler& handler, std::uint64_t tag) override;

 private:
  void on_event(std::uint64_t event) override;

  struct Slot {
    DeliveryHandler* handler;
    std::uint64_t tag;
  };
  core::Simulation& sim_;
  const topology::Topology& topo_;
  core::SlotPool<Slot> slots_;           // in-flight messages
  std::vector<topology::LinkId> route_;  // scratch, reused for every message
  std::vector<GroupLeg> legs_;            // scratch for group messages
  std::vector<LinkStats> link_stats_;
  std::uint64_t last_bytes_ = UINT64_MAX;
  double last_bw_ = 0;
  core::Time last_serialize_;
};

}  // namespace collsim::network
