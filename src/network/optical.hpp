#pragma once
// The optical backend: lightpaths on a WDM ring (WRHT (PPoPP'23) Sec. 2, on TeraRack's
// micro-ring architecture; routing and wavelength assignment after Ozdaglar & Bertsekas 2003 and
// Sathishkumar & Mahalingam 2015, the poster's refs. 7 and 8).
//
// The network is an optical-ring:N topology (topology/builders.hpp): two counter-propagating
// waveguides, each a ring of N segments (directed links) carrying OpticalSpec::wavelengths
// channels of OpticalSpec::wavelength_bandwidth B.
//   * A message is one lightpath: one wavelength along the shortest arc from source to
//     destination in one direction, held for the whole transfer and never converted. Halfway
//     round (both arcs shortest) it takes the arc whose busiest segment carries fewer lightpaths
//     when it is sent, else the topology's ring-tie rule: least-loaded routing, so that ties
//     split between the two waveguides.
//   * Two lightpaths may share a wavelength on one waveguide only if their arcs share no segment.
//     Assignment: first-fit (the lowest wavelength free on every segment of the arc) or best-fit
//     (the free wavelength whose free gap around the arc is shortest, so long free gaps stay for
//     long lightpaths; ties to the lower wavelength). A message that names a wavelength
//     (MessageAttributes::wavelength) waits for that one.
//   * A node sources at most `transmitters` and sinks at most `receivers` lightpaths at once
//     (unset: as many as asked).
//   * A message that cannot start (no wavelength, transmitter or receiver) waits; whenever a
//     lightpath ends the waiting messages are retried in arrival order, and each one that now fits
//     starts (a later message that fits may pass an earlier one that does not). Only those that
//     wait on one of its segments, or (with transceiver limits) at its source or destination, are
//     tried: nothing else any other waiter needs has changed, so the others could not start.
//   * Started at t, it is set up by t + setup (micro-ring tuning, O-E-O), the source has sent the
//     last bit at t + setup + bytes / B (on_injected), the destination has it at
//     t + setup + bytes / B + the sum of the arc's link latencies (propagation; on_delivered), and
//     the wavelength, transmitter and receiver are released then.
// So with no waiting a message takes exactly setup + hops x latency + ceil(bytes / B).
//
// LinkStats: a segment is busy while at least one lightpath crosses it; its bytes are the sum over
// the lightpaths that crossed it. summary() gives lightpaths, the peak number of wavelengths in use
// on one segment, the highest wavelength used, waits, and peak transceivers in use per node.
#include <cstdint>
#include <vector>

#include "core/slot_pool.hpp"
#include "network/backend.hpp"

namespace collsim::network {

/// One lightpath, reported to a LightpathObserver when it ends.
struct Lightpath {
  topology::NodeId src = 0;
  topology::NodeId dst = 0;
  std::uint16_t wavelength = 0;
  core::Time requested;  ///< when the message was sent
  core::Time begin;      ///< when it got its wavelength and transceivers
  core::Time end;        ///< when it released them (delivery)
  const std::vector<topology::LinkId>* arc = nullptr;  ///< the segments, valid during the call
};

class LightpathObserver {
 public:
  virtual void on_lightpath(const Lightpath& lightpath) = 0;

 protected:
  ~LightpathObserver() = default;
};

class OpticalBackend final : public Backend, private core::EventHandler {
 public:
  /// Throws core::InputError if the topology is not an optical ring (no OpticalSpec, or not one
  /// ring dimension).
  OpticalBackend(core::Simulation& sim, const topology::Topology& topo,
                 const BackendOptions& options);

  std::string_view name() const override { return "optical"; }
  const std::vector<LinkStats>& link_stats() const override { return link_stats_; }
  std::vector<std::pair<std::string, double>> summary() const override;
  std::string describe_blocked() const override;
  void set_lightpath_observer(LightpathObserver* o) { lightpath_observer_ = o; }

 private:
  void transmit(topology::NodeId src, topology::NodeId dst, core::Bytes bytes,
                const MessageAttributes& attrs, DeliveryHandler& handler,
                std::uint64_t tag) override;
  void on_event(std::uint64_t event) override;
  // `arc` goes halfway round: replace it by the other direction's if that one is less loaded.
  void choose_tie_direction(std::vector<topology::LinkId>& arc);
  // Start the message in `slot` now if its wavelength and transceivers are free.
  bool try_start(std::uint32_t slot);
  // Index a message that could not start under the segments and nodes it waits for.
  void add_waiter(std::uint32_t slot);
  // Retry, in arrival order, the waiters that the lightpath in `slot` (ending) may unblock.
  void retry_waiters(std::uint32_t slot);
  // The wavelength to use on `arc`, or -1 when none is free.
  int choose_wavelength(const std::vector<topology::LinkId>& arc, std::uint16_t wanted) const;
  // Free segments of wavelength `w` beyond the arc's two ends along its waveguide.
  std::uint32_t free_gap(const std::vector<topology::LinkId>& arc, std::uint32_t w) const;
  bool used(topology::LinkId l, std::uint32_t w) const {
    return (used_[l * words_ + w / 64] >> (w % 64)) & 1u;
  }
  void set_used(topology::LinkId l, std::uint32_t w, bool on);

  struct Slot {
    DeliveryHandler* handler = nullptr;
    std::uint64_t tag = 0;
    core::Bytes bytes;
    topology::NodeId src = 0, dst = 0;
    std::uint16_t wanted = MessageAttributes::kAnyWavelength;
    std::uint16_t wavelength = 0;
    core::Time requested, begin;
    std::uint64_t wait_seq = 0;         // arrival number while waiting, else 0
    std::vector<topology::LinkId> arc;  // capacity kept when the slot is reused
  };
  // A waiting message under one of its segments or nodes; stale (and dropped when next seen)
  // once the slot's wait_seq differs.
  struct Waiter {
    std::uint32_t slot;
    std::uint64_t seq;
  };

  core::Simulation& sim_;
  const topology::Topology& topo_;
  std::uint32_t wavelengths_;
  core::Bandwidth wavelength_bandwidth_;
  bool best_fit_;
  core::Time setup_;
  std::uint32_t max_tx_, max_rx_;              // 0: unlimited
  std::uint32_t words_;                        // 64-bit words of the per-segment wavelength bitset
  std::vector<std::uint64_t> used_;            // segment x word
  std::vector<std::uint32_t> active_;          // lightpaths on each segment
  std::vector<core::Time> busy_since_;         // per segment, while active_ > 0
  std::vector<topology::LinkId> next_, prev_;  // the neighbouring segment on the waveguide
  std::vector<std::uint32_t> tx_, rx_;         // transceivers in use per node
  core::SlotPool<Slot> slots_;
  std::vector<std::vector<Waiter>> segment_waiters_;  // per segment
  std::vector<std::vector<Waiter>> tx_waiters_, rx_waiters_;  // per node, with transceiver limits
  std::vector<Waiter> candidates_;                     // scratch for retry_waiters
  std::uint64_t wait_seq_ = 0;                         // waits so far (arrival numbers)
  std::uint64_t waiting_ = 0;                          // messages waiting now
  std::vector<topology::LinkId> alt_arc_;  // scratch for choose_tie_direction
  std::vector<LinkStats> link_stats_;
  LightpathObserver* lightpath_observer_ = nullptr;
  // Summary figures.
  std::uint64_t lightpaths_ = 0, waits_ = 0;
  core::Time wait_total_, wait_max_;
  std::uint32_t peak_segment_ = 0, highest_wavelength_ = 0, peak_tx_ = 0, peak_rx_ = 0;
};

}  // namespace collsim::network
