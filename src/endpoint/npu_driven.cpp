// NPU-driven collectives, ACE's "baseline" and "baseline++" (MICRO'20 Sec. 3, 4.2 and 5, Fig.
// 7b): the NPU's cores run the collective, so every message crosses the NPU's buses.
//   send:    memory -> NPU (memory bus, read), NPU -> NIC (NPU-NIC bus), then the network;
//   arrive:  NIC -> NPU (NPU-NIC bus), NPU -> memory (memory bus, write); a message that is
//            reduced is then read back with the local data (2 x its bytes on the memory bus),
//            added on the NPU's share of compute, and the sum written (memory bus). With
//            reduce_reads_operands=false the read-back is left out, as ASTRA-sim 1.0's LogGP
//            memory bus does (a processed request crosses it before and after the reduction).
// The buses are LogGP resources (loggp_bus.hpp) at their full bandwidth: concurrent messages
// queue on them. What the collective takes from training (Sec. 5: ~5% of compute, ~20% of
// memory bandwidth) is what training loses: baseline's training share is (95%, 80%); baseline++
// keeps what ACE keeps (100% of compute, 100% - ace_memory_share of memory), isolating the
// buses' latency and congestion.
#include "endpoint/bus_endpoint.hpp"

namespace collsim::endpoint {
namespace {

class NpuDriven final : public BusEndpoint {
 public:
  NpuDriven(core::Simulation& sim, network::Backend& backend, const topology::Topology& topo,
            const EndpointParams& p, bool plus)
      // An FP32 add reads 4 bytes of the arriving message per FLOP.
      : BusEndpoint(sim, backend, topo, p,
                    core::Bandwidth{4.0 * p.baseline_compute_share * p.npu_peak_flops},
                    kWholeMessage),
        plus_(plus) {}

  std::string_view name() const override { return plus_ ? "baseline++" : "baseline"; }

 private:
  void send_step(std::uint32_t slot, Flight& f) override {
    switch (f.step) {
      case 0:
        return wait(slot, Resource::Memory, f.m.src, f.m.bytes);
      case 1:
        return wait(slot, Resource::NicTx, f.m.src, f.m.bytes);
      default:
        return to_network(slot);
    }
  }

  void arrive_step(std::uint32_t slot, Flight& f) override {
    const core::Bytes b = f.m.bytes;
    switch (f.step) {
      case 0:
        return wait(slot, Resource::NicRx, f.m.dst, b);
      case 1:
        return wait(slot, Resource::Memory, f.m.dst, b);  // the arrival written to memory
      case 2:
        if (!f.m.reduce) break;
        if (p_.reduce_reads_operands) {
          return wait(slot, Resource::Memory, f.m.dst, b + b);  // both operands read back
        }
        ++f.step;  // ASTRA-sim 1.0: no read-back before the add
        [[fallthrough]];
      case 3:
        return wait(slot, Resource::Reduce, f.m.dst, b);
      case 4:
        return wait(slot, Resource::Memory, f.m.dst, b);  // the sum written
      default:
        break;
    }
    delivered(slot);
  }

  bool plus_;
};

}  // namespace

EndpointInfo baseline_info() {
  return {"baseline",
          "NPU-driven: every message crosses the NPU-memory and NPU-NIC buses (LogGP) at both "
          "ends, reductions read and write memory; training loses 5% of compute and 20% of memory "
          "bandwidth",
          "ACE (MICRO'20) Sec. 3, 4.2 (Fig. 7b) and 5 \"Baseline\"",
          [](core::Simulation& sim, network::Backend& b, const topology::Topology& t,
             const EndpointParams& p) -> std::unique_ptr<Endpoint> {
            return std::make_unique<NpuDriven>(sim, b, t, p, false);
          },
          [](const EndpointParams& p) -> TrainingShare {
            return {1.0 - p.baseline_compute_share, 1.0 - p.baseline_memory_share};
          }};
}

EndpointInfo baseline_plus_info() {
  return {"baseline++",
          "as baseline, but training keeps what it keeps under ACE (isolates bus latency and "
          "congestion)",
          "ACE (MICRO'20) Sec. 5 \"Baseline++\"",
          [](core::Simulation& sim, network::Backend& b, const topology::Topology& t,
             const EndpointParams& p) -> std::unique_ptr<Endpoint> {
            return std::make_unique<NpuDriven>(sim, b, t, p, true);
          },
          [](const EndpointParams& p) -> TrainingShare {
            return {1.0, 1.0 - p.ace_memory_share};
          }};
}

}  // namespace collsim::endpoint
