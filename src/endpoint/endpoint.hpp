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
#include "core/units.hpp"
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

class Endpoint {
 public:
  virtual ~Endpoint() = default;
  virtual std::string_view name() const = 0;
  /// Move `m` from its source NPU's memory to its destination's. Calls h.on_injected(tag) once
  /// the source may start its next message on this channel and h.on_delivered(tag) once the data
  /// is in the destination's buffer (reduced or copied); both from simulation events, never from
  /// inside send(). Throws what network::Backend::send throws.
  virtual void send(const Message& m, network::DeliveryHandler& h, std::uint64_t tag) = 0;
};

/// No cost at either end: the network's callbacks are the executor's (today's behaviour, and
/// ACE's "ideal" reference point).
class Ideal final : public Endpoint {
 public:
  explicit Ideal(network::Backend& backend) : backend_(backend) {}
  std::string_view name() const override { return "ideal"; }
  void send(const Message& m, network::DeliveryHandler& h, std::uint64_t tag) override {
    backend_.send(m.src, m.dst, m.bytes, h, tag, m.attrs);
  }

 private:
  network::Backend& backend_;
};

struct EndpointInfo {
  std::string name;
  std::string description;
  std::string source;  ///< paper and section
  std::unique_ptr<Endpoint> (*make)(core::Simulation& sim, network::Backend& backend,
                                    const topology::Topology& topo) = nullptr;
};

/// Every registered endpoint model, in a fixed order.
const std::vector<EndpointInfo>& endpoints();
/// Throws core::InputError naming `field` and listing the valid names.
const EndpointInfo& find_endpoint(std::string_view name, std::string_view field);

/// The endpoint used when none is named.
inline constexpr std::string_view kDefaultEndpoint = "ideal";

}  // namespace collsim::endpoint
