#pragma once
// What the NPU-driven endpoints and ACE share (ACE, MICRO'20, Sec. 4-5): per NPU an NPU-memory
// bus (reads and writes share it), an NPU-NIC bus with one LogGP resource per direction (its
// bandwidth is the sum of the NPU's links, so each direction is as fast as the links), and a
// reduction unit (a FIFO server: the NPU's share of compute, or ACE's ALUs); with
// npu_nic_half_duplex both directions share one NPU-NIC bus. A message walks a sequence of
// steps, each on one of these resources; the model (npu_driven.cpp, ace.cpp) says which.
//
// Granularity (ACE Table 7, ASTRA-sim 1.0's NPU-NIC model): a message of B bytes crosses every
// resource as a run of n = ceil(B / bus_message) bus messages, pipelined from one resource to
// the next: a step is reserved when the run's first bus message reaches the resource, in closed
// form for the whole run (loggp_bus.hpp), so a message costs one event per step, not one per bus
// message. The network carries the whole message, entering it when the first bus message is
// across the NPU-NIC bus; its delivery time D spreads the bus messages' arrivals evenly over
// [start + path latency, D], the last one no earlier than path latency + its share after it
// left the NPU-NIC bus. The message is delivered (and its channel freed) when the last bus
// message is through the last step (out of the NPU-NIC bus).
//
// The base keeps messages in flight in a slot pool (no allocation per message once warm),
// stands between the executor and the network to time the network part, and sums the
// breakdown of ACE Fig. 11 into EndpointStats.
#include <cstdint>
#include <vector>

#include "core/slot_pool.hpp"
#include "endpoint/endpoint.hpp"
#include "endpoint/loggp_bus.hpp"

namespace collsim::endpoint {

class BusEndpoint : public Endpoint,
                    protected network::DeliveryHandler,
                    protected core::EventHandler {
 public:
  void send(const Message& m, network::DeliveryHandler& h, std::uint64_t tag) override;
  EndpointStats stats() const override { return stats_; }
  network::Backend* network() override { return &backend_; }
  void stage_in(topology::NodeId npu, core::Bytes b, StagingHandler& h, std::uint64_t tag) override;
  void stage_out(topology::NodeId npu, core::Bytes b, StagingHandler& h,
                 std::uint64_t tag) override;

 protected:
  /// reduce_rate: bytes per second the reduction unit consumes (of the message being reduced);
  /// bus_message: the model's bus message when p.bus_message is unset (params.hpp), and
  /// stage_out_message its RX DMA's (0: a result is copied out as one transfer).
  BusEndpoint(core::Simulation& sim, network::Backend& backend, const topology::Topology& topo,
              const EndpointParams& p, core::Bandwidth reduce_rate, core::Bytes bus_message,
              core::Bytes stage_out_message = kWholeMessage);

  struct Flight {
    Message m;
    network::DeliveryHandler* h = nullptr;
    std::uint64_t tag = 0;
    std::uint8_t step = 0;  ///< the model's own step counter
    bool injected = false;  ///< forwarded to the executor
    bool delivered = false;
    std::uint32_t pieces = 1;  ///< bus messages of the run
    core::Time first, last;    ///< when the run's first and last bus message reach the step
    core::Time net_start;
    core::Time tx_last;  ///< when the last bus message was across the NPU-NIC bus
  };
  enum class Resource : std::uint8_t { Memory, NicTx, NicRx, Reduce };

  /// Step `f.step` of a message on the source side (step 0 right at send, then after each wait
  /// it scheduled). Returns when it has scheduled a wait (wait()) or put the message on the
  /// network (to_network()).
  virtual void send_step(std::uint32_t slot, Flight& f) = 0;
  /// Step of a message that has arrived (step counts on from 0 at arrival); ends with wait() or
  /// delivered().
  virtual void arrive_step(std::uint32_t slot, Flight& f) = 0;

  /// Use `r` of `npu` for `bytes` (the whole run: `pieces` bus messages) and continue the message
  /// when the run's first bus message is done.
  void wait(std::uint32_t slot, Resource r, topology::NodeId npu, core::Bytes bytes);
  void to_network(std::uint32_t slot);
  void delivered(std::uint32_t slot);

  core::Simulation& sim_;
  const EndpointParams p_;
  const core::Bytes bus_message_;        ///< p_.bus_message or the model's own
  const core::Bytes stage_out_message_;  ///< the RX DMA's: p_.bus_message or the model's own
  EndpointStats stats_;
  bool free_stage_out_ = false;  ///< results are in memory at once (no RX DMA)

 private:
  struct Staging {
    topology::NodeId npu = 0;
    core::Bytes bytes;
    StagingHandler* h = nullptr;
    std::uint64_t tag = 0;
    bool out = false;
    std::uint8_t step = 0;
    std::uint32_t pieces = 1;
    core::Time first, last;
  };
  static constexpr std::uint64_t kStagingBit = 1ull << 63;
  static constexpr std::uint64_t kInjectedBit = 1ull << 62;  // the channel is free: tell
  static constexpr std::uint8_t kOverheadStep = 0xff;        // message_overhead paid
  static constexpr std::uint8_t kDoneStep = 0xfe;            // the last bus message is through
  std::uint32_t pieces(core::Bytes b, core::Bytes message) const;
  std::uint32_t pieces(core::Bytes b) const { return pieces(b, bus_message_); }
  // Reserve `r` for the run [first, last] of `pieces` and return its grant; sums the stats.
  Grant use(Resource r, topology::NodeId npu, core::Time first, core::Time last,
            std::uint32_t pieces, core::Bytes bytes);
  void send_to_backend(std::uint32_t slot);
  void staging_step(std::uint32_t slot);
  void on_event(std::uint64_t tag) override;
  void on_injected(std::uint64_t slot) override;
  void on_delivered(std::uint64_t slot) override;
  void tell_executor(std::uint32_t slot, bool injected);

  network::Backend& backend_;
  const topology::Topology& topo_;
  std::vector<Bus> memory_, nic_tx_, nic_rx_, reduce_;  // by NPU (nic_rx_ unused if half duplex)
  std::vector<topology::LinkId> route_;                 // scratch for path latencies
  core::SlotPool<Flight> flights_;
  std::vector<bool> arrived_;  // by slot: the network delivered it (arrive_step from then on)
  core::SlotPool<Staging> staging_;
};

/// ACE's engine (ace.cpp); with `ideal`, the ideal endpoint's ideal_engine mode: ACE's chunks,
/// admission and TX DMA, with no reduction time and no RX DMA.
std::unique_ptr<Endpoint> make_ace_engine(core::Simulation& sim, network::Backend& backend,
                                          const topology::Topology& topo,
                                          const EndpointParams& p, bool ideal);

}  // namespace collsim::endpoint
