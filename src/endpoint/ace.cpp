// ACE, the Accelerator Collectives Engine in the NIC (MICRO'20 Sec. 4 and 6, Fig. 6 and 7c).
// A collective's input is DMA'd into ACE's SRAM once (memory bus, then NPU-NIC bus: stage_in)
// and its result written back once (stage_out); in between, messages leave from and arrive into
// the SRAM without touching the NPU or its buses, and an arriving message that is reduced goes
// through ACE's ALUs: `alus` units of `lanes` FP32 lanes, each fed by a `bus_width`-byte bus
// per cycle, so they consume min(4 lanes, bus_width) x alus bytes per cycle, as one FIFO server.
//
// SRAM and state machines bound the chunks in flight (Sec. 4.3): the SRAM is split into P + 1
// partitions for a P-phase collective, sized by (the phase's bandwidth x its chunk size, Sec. 6,
// the chunk as it is in the phase or as it entered the collective: ace_sram_partition),
// the last one holding results for the RX DMA; the state machines are spread evenly, so a phase
// runs at most max(1, machines / P) chunk-stages at once. A chunk-stage enters its phase's
// partition only when it has room for it and a state machine of the phase is free; the machine
// is free again when the stage ends, but the chunk's bytes stay in the partition until it has
// entered the next one (Sec. 4.3.1: chunks reside in SRAM and move to the next partitions). A
// partition that is empty takes any chunk, so an oversize chunk runs alone instead of never
// (counted in EndpointStats::oversize).
// Training keeps all compute and 100% - ace_memory_share of memory bandwidth (Sec. 5).
//
// The same engine is the `ideal` endpoint with ideal_engine (Sec. 5's "Ideal": a NIC that
// handles the collective "using one cycle", "an upper bound to our design"): ACE's schedule, its
// chunks, SRAM and state-machine admission and TX DMA, so that chunk-stages start in ACE's order
// and at ACE's pace, and nothing after the payload is in the NIC costs time: a reduction is done
// on arrival (no ALU time) and a result is in memory when its last stage ends (no RX DMA). Taking
// away the TX DMA's pace or the admission instead can make all-to-all slower than ACE in the
// flow model (chunk-stages started together share the links in lockstep and align the latency
// bubbles of their step fences; docs/ace.md).
#include <algorithm>
#include <numeric>

#include "endpoint/bus_endpoint.hpp"

namespace collsim::endpoint {
namespace {

core::Bandwidth alu_rate(const EndpointParams& p) {
  const double per_alu = std::min<double>(4.0 * p.ace_alu_lanes, p.ace_bus_width.count);
  return core::Bandwidth{per_alu * p.ace_alus * p.ace_clock_hz};
}

class Ace final : public BusEndpoint, public ChunkAdmission {
 public:
  Ace(core::Simulation& sim, network::Backend& backend, const topology::Topology& topo,
      const EndpointParams& p, bool ideal)
      : BusEndpoint(sim, backend, topo, p, alu_rate(p), kAceBusMessage), ideal_(ideal) {
    free_stage_out_ = ideal;
  }

  std::string_view name() const override { return ideal_ ? "ideal" : "ace"; }
  bool stages_memory() const override { return true; }
  core::Bytes chunk_limit() const override { return p_.ace_chunk; }
  ChunkAdmission* admission() override { return this; }

  void shape(const std::vector<PartitionDemand>& demands) override {
    if (!capacity_.empty() || demands.size() < 2) return;
    // Sec. 6: (bandwidth x initial chunk size) for each phase, the chunk read per
    // ace_sram_partition.
    const bool initial = p_.ace_sram_partition.index == kAcePartitionInitialChunk;
    std::vector<double> weights;
    for (const PartitionDemand& d : demands) {
      weights.push_back(d.bandwidth * (initial ? d.initial : d.held));
    }
    const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
    const double sram = static_cast<double>(p_.ace_sram.count);
    for (double w : weights) capacity_.push_back(total > 0 ? sram * w / total : 0);
    used_.assign(weights.size(), 0);
    resident_.assign(weights.size(), 0);
    active_.assign(weights.size(), 0);
    const auto phases = static_cast<std::uint32_t>(weights.size() - 1);
    machines_ = std::max<std::uint32_t>(1, p_.ace_state_machines / phases);
  }
  std::uint32_t phases() const override {
    return capacity_.empty() ? 0 : static_cast<std::uint32_t>(capacity_.size() - 1);
  }
  bool try_enter(std::uint32_t phase, double bytes, double held) override {
    if (capacity_.empty()) return true;
    const bool results = phase + 1 == capacity_.size();
    if (!results && active_[phase] >= machines_) return false;
    const bool resident = held > 0;  // the chunk is already in this partition
    const double others = resident ? std::max(0.0, used_[phase] - held) : used_[phase];
    const bool alone = resident_[phase] == (resident ? 1u : 0u);
    if (!alone && others + bytes > capacity_[phase]) return false;
    if (bytes > capacity_[phase]) ++stats_.oversize;
    used_[phase] = others + bytes;
    if (!resident) ++resident_[phase];
    if (!results) ++active_[phase];
    return true;
  }
  void finish(std::uint32_t phase) override {
    if (capacity_.empty() || phase + 1 >= capacity_.size()) return;
    --active_[phase];
  }
  void leave(std::uint32_t phase, double bytes) override {
    if (capacity_.empty()) return;
    used_[phase] = resident_[phase] == 1 ? 0 : used_[phase] - bytes;
    --resident_[phase];
  }

 private:
  void send_step(std::uint32_t slot, Flight&) override { to_network(slot); }

  void arrive_step(std::uint32_t slot, Flight& f) override {
    if (f.m.reduce && f.step == 0 && !ideal_) {
      return wait(slot, Resource::Reduce, f.m.dst, f.m.bytes);
    }
    delivered(slot);
  }

  // Per partition (phases, then results): bytes per NPU it may hold and holds, chunks whose
  // bytes are in it, and its phase's state machines running a chunk-stage.
  std::vector<double> capacity_, used_;
  std::vector<std::uint32_t> resident_, active_;
  std::uint32_t machines_ = 1;
  bool ideal_;
};

}  // namespace

std::unique_ptr<Endpoint> make_ace_engine(core::Simulation& sim, network::Backend& backend,
                                          const topology::Topology& topo,
                                          const EndpointParams& p, bool ideal) {
  return std::make_unique<Ace>(sim, backend, topo, p, ideal);
}

EndpointInfo ace_info() {
  return {"ace",
          "collective offload in the NIC: payload DMA'd into SRAM once and back once, messages "
          "reduced by ACE's ALUs, chunks in flight bounded by SRAM partitions and state machines",
          "ACE (MICRO'20) Sec. 4 and 6",
          [](core::Simulation& sim, network::Backend& b, const topology::Topology& t,
             const EndpointParams& p) -> std::unique_ptr<Endpoint> {
            return make_ace_engine(sim, b, t, p, false);
          },
          [](const EndpointParams& p) -> TrainingShare {
            return {1.0, 1.0 - p.ace_memory_share};
          },
          nullptr, [](const EndpointParams& p) { return p.ace_chunk; }};
}

}  // namespace collsim::endpoint
