#pragma once
// The network seam (DESIGN.md "Backends only move bytes"). A backend accepts "deliver B bytes from
// NPU u to NPU v" and calls back twice: when the source has finished putting the message on the
// wire (it may start the next message on that channel) and when the last byte has arrived.
// It owns everything about links, routes, contention and flow control.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/engine.hpp"
#include "core/units.hpp"
#include "topology/topology.hpp"

namespace collsim::network {

class DeliveryHandler {
 public:
  /// The source has serialized the message (its channel to the destination is free again).
  virtual void on_injected(std::uint64_t tag) = 0;
  /// The whole message has reached the destination.
  virtual void on_delivered(std::uint64_t tag) = 0;

 protected:
  ~DeliveryHandler() = default;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  /// Start moving `bytes` from NPU `src` to NPU `dst` (src != dst) at the simulation's current
  /// time. `tag` is handed back in both callbacks. Callbacks run from simulation events, never
  /// from inside send().
  virtual void send(topology::NodeId src, topology::NodeId dst, core::Bytes bytes,
                    DeliveryHandler& handler, std::uint64_t tag) = 0;
  /// Bytes carried by each directed link so far (indexed by LinkId).
  virtual const std::vector<std::uint64_t>& link_bytes() const = 0;
};

struct BackendInfo {
  std::string name;
  std::string description;
  std::unique_ptr<Backend> (*make)(core::Simulation& sim, const topology::Topology& topo) = nullptr;
};

/// Every registered backend, in a fixed order.
const std::vector<BackendInfo>& backends();
/// Throws core::InputError naming `field` and listing the valid names.
const BackendInfo& find_backend(std::string_view name, std::string_view field);

}  // namespace collsim::network
