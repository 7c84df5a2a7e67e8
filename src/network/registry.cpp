// The list of network backends. Adding one: a file in network/ and one line here.
#include <fmt/format.h>

#include <stdexcept>

#include "core/error.hpp"
#include "network/analytical.hpp"
#include "network/backend.hpp"
#include "network/flow.hpp"
#include "network/packet.hpp"
#include "network/queue.hpp"

namespace collsim::network {

const std::vector<BackendInfo>& backends() {
  static const std::vector<BackendInfo> all = {
      {"analytical",
       "congestion-unaware alpha-beta: route latency + bytes / bottleneck bandwidth, cut-through; "
       "messages never contend",
       false,
       [](core::Simulation& sim, const topology::Topology& topo, const BackendOptions&)
           -> std::unique_ptr<Backend> { return std::make_unique<AnalyticalBackend>(sim, topo); }},
      {"queue",
       "congestion-aware per-link FIFO, store-and-forward: each hop latency + bytes / bandwidth "
       "after the messages ahead (ASTRA-sim's congestion-aware analytical model, any topology)",
       false,
       [](core::Simulation& sim, const topology::Topology& topo, const BackendOptions&)
           -> std::unique_ptr<Backend> { return std::make_unique<QueueBackend>(sim, topo); }},
      {"flow",
       "congestion-aware fluid model: messages are flows sharing every link max-min fairly, "
       "latency added once per message; NPU injection/ejection caps",
       true,
       [](core::Simulation& sim, const topology::Topology& topo, const BackendOptions& opt)
           -> std::unique_ptr<Backend> { return std::make_unique<FlowBackend>(sim, topo, opt); }},
      {"packet",
       "packets of flits through input-buffered routers: virtual channels, credits, virtual "
       "cut-through or wormhole switching, separable round-robin allocation, dateline VCs on "
       "tori, NIs with optional injection/ejection queues; message-based flow control option "
       "(BookSim-like, MultiTree Table III defaults)",
       false,
       [](core::Simulation& sim, const topology::Topology& topo, const BackendOptions& opt)
           -> std::unique_ptr<Backend> { return std::make_unique<PacketBackend>(sim, topo, opt); }},
  };
  return all;
}

const BackendInfo& find_backend(std::string_view name, std::string_view field) {
  for (const BackendInfo& b : backends()) {
    if (b.name == name) return b;
  }
  std::string valid;
  for (const BackendInfo& b : backends()) valid += (valid.empty() ? "" : ", ") + b.name;
  throw core::InputError(fmt::format("{}: unknown backend \"{}\"; valid: {}", field, name, valid));
}

}  // namespace collsim::network

namespace collsim::network {

void Backend::refuse(topology::NodeId src, topology::NodeId dst) const {
  throw std::invalid_argument(
      src == dst ? fmt::format("{} backend: send from NPU {} to itself", name(), src)
                 : fmt::format("{} backend: send {} -> {} names a node that is not one of the {} "
                               "NPUs",
                               name(), src, dst, num_npus_));
}

std::string backend_label(const BackendInfo& info, const BackendOptions& o) {
  std::string s = info.name;
  if (o.npu_injection_bandwidth) s += ":inject=" + core::to_string(*o.npu_injection_bandwidth);
  if (o.npu_ejection_bandwidth) s += ":eject=" + core::to_string(*o.npu_ejection_bandwidth);
  if (info.name != "packet") return s;
  const PacketOptions d, &p = o.packet;
  if (p.message_based_flow_control) s += ":mbfc";
  if (p.packet_payload_bytes != d.packet_payload_bytes) {
    s += ":payload=" + core::to_string(core::Bytes{p.packet_payload_bytes});
  }
  if (p.flit_bytes != d.flit_bytes) s += ":flit=" + core::to_string(core::Bytes{p.flit_bytes});
  if (p.vcs != d.vcs) s += fmt::format(":vcs={}", p.vcs);
  if (p.vc_buffer_flits != d.vc_buffer_flits) s += fmt::format(":buffer={}", p.vc_buffer_flits);
  if (p.router_pipeline_cycles != d.router_pipeline_cycles) {
    s += fmt::format(":pipeline={}", p.router_pipeline_cycles);
  }
  if (p.nis_per_npu != d.nis_per_npu) s += fmt::format(":nis={}", p.nis_per_npu);
  if (p.ni_bandwidth) s += ":ni=" + core::to_string(*p.ni_bandwidth);
  if (p.switching == Switching::Wormhole) s += ":wormhole";
  if (p.injection_queue_flits) s += fmt::format(":injq={}", *p.injection_queue_flits);
  if (p.ejection_queue_flits) s += fmt::format(":ejq={}", *p.ejection_queue_flits);
  return s;
}

std::unique_ptr<Backend> make_backend(const BackendInfo& info, core::Simulation& sim,
                                      const topology::Topology& topo, const BackendOptions& options,
                                      std::string_view field) {
  if ((options.npu_injection_bandwidth || options.npu_ejection_bandwidth) &&
      !info.supports_npu_limits) {
    std::string valid;
    for (const BackendInfo& b : backends()) {
      if (b.supports_npu_limits) valid += (valid.empty() ? "" : ", ") + b.name;
    }
    throw core::InputError(
        fmt::format("{}: the {} backend does not model NPU injection/ejection limits; use {}",
                    field, info.name, valid.empty() ? "no backend yet" : valid));
  }
  for (const auto* bw : {&options.npu_injection_bandwidth, &options.npu_ejection_bandwidth}) {
    if (*bw && bw->value().bytes_per_s <= 0) {
      throw core::InputError(fmt::format("{}: NPU bandwidth limits must be > 0", field));
    }
  }
  return info.make(sim, topo, options);
}

}  // namespace collsim::network
