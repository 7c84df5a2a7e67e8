// The packet backend's parameters (params.hpp) and its registry entry (packet_info).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string_view>
#include <vector>

#include "network/packet.hpp"
#include "network/packet_allocator.hpp"
#include "network/params.hpp"

namespace collsim::network {
namespace {

// The packet backend's parameters, in the order of its report label; defaults in PacketOptions
// (backend.hpp), MultiTree Table III.

constexpr std::string_view kModels = "packets, flits and virtual channels";
constexpr std::string_view kTable3 = "MultiTree Table III";
constexpr std::uint64_t kMax32 = UINT32_MAX;
// In the order of Switching, CreditReturn and VcSelect.
constexpr std::string_view kSwitching[] = {"virtual-cut-through", "wormhole"};
constexpr std::string_view kCreditReturn[] = {"per-flit", "per-packet"};
constexpr std::string_view kVcSelect[] = {"round-robin", "most-free"};

// The switch allocators' names, in registry order (packet_allocators.cpp).
std::span<const std::string_view> switch_allocator_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    for (const packet::SwitchAllocatorInfo& a : packet::switch_allocators()) v.push_back(a.name);
    return v;
  }();
  return names;
}

std::vector<BackendParam> packet_params() {
  return {
      ni_policy_param(),
      multipath_param(),
      ecmp_seed_param(),
      {.spec = {.key = "message_based_flow_control",
                .type = ParamType::Bool,
                .description = "one head flit per message instead of per packet",
                .source = "MultiTree Sec. IV-B"},
       .label = "mbfc",
       .models = kModels,
       .set = [](BackendOptions& o,
                 const ParamValue& v) { o.packet.message_based_flow_control = std::get<bool>(v); },
       .get = [](const BackendOptions& o) -> std::optional<ParamValue> {
         return o.packet.message_based_flow_control;
       }},
      {.spec = {.key = "packet_payload",
                .type = ParamType::Bytes,
                .min = 1,
                .max = kMax32,
                .description = "payload per packet (each packet adds a head flit)",
                .source = kTable3},
       .label = "payload",
       .models = kModels,
       .set = [](BackendOptions& o,
                 const ParamValue& v) { o.packet.packet_payload_bytes = as_u32(v); },
       .get = [](const BackendOptions& o) { return bytes_value(o.packet.packet_payload_bytes); }},
      {.spec = {.key = "flit_size",
                .type = ParamType::Bytes,
                .min = 1,
                .max = kMax32,
                .description = "flit (channel width)",
                .source = kTable3},
       .label = "flit",
       .models = kModels,
       .set = [](BackendOptions& o, const ParamValue& v) { o.packet.flit_bytes = as_u32(v); },
       .get = [](const BackendOptions& o) { return bytes_value(o.packet.flit_bytes); }},
      {.spec = {.key = "vcs",
                .type = ParamType::Count,
                .unit = "VCs",
                .min = 1,
                .max = kMax32,
                .description =
                    "virtual channels per input port (even on tori and rings: half are the "
                    "dateline class; on a dragonfly at least one per VC class: 2, Valiant 3)",
                .source = kTable3},
       .label = "vcs",
       .models = kModels,
       .set = [](BackendOptions& o, const ParamValue& v) { o.packet.vcs = as_u32(v); },
       .get = [](const BackendOptions& o) { return count_value(o.packet.vcs); }},
      {.spec = {.key = "vc_buffer_flits",
                .type = ParamType::Count,
                .unit = "flits",
                .min = 1,
                .max = kMax32,
                .description = "buffer depth of each VC (virtual cut-through: at least one packet)",
                .source = kTable3},
       .label = "buffer",
       .models = kModels,
       .set = [](BackendOptions& o, const ParamValue& v) { o.packet.vc_buffer_flits = as_u32(v); },
       .get = [](const BackendOptions& o) { return count_value(o.packet.vc_buffer_flits); }},
      {.spec = {.key = "router_pipeline_cycles",
                .type = ParamType::Count,
                .unit = "cycles",
                .min = 0,
                .max = kMax32,
                .description = "per-hop router delay from head arrival to departure, at 1 GHz",
                .source = "BookSim router pipeline; MultiTree Table III (1 GHz)"},
       .label = "pipeline",
       .models = kModels,
       .set = [](BackendOptions& o,
                 const ParamValue& v) { o.packet.router_pipeline_cycles = as_u32(v); },
       .get = [](const BackendOptions& o) { return count_value(o.packet.router_pipeline_cycles); }},
      {.spec = {.key = "credit_delay_cycles",
                .type = ParamType::Count,
                .unit = "cycles",
                .min = 0,
                .max = kMax32,
                .description = "added to the link latency for returning credits, at 1 GHz",
                .source = "BookSim credit_delay"},
       .label = "credit",
       .models = kModels,
       .set = [](BackendOptions& o,
                 const ParamValue& v) { o.packet.credit_delay_cycles = as_u32(v); },
       .get = [](const BackendOptions& o) { return count_value(o.packet.credit_delay_cycles); }},
      {.spec = {.key = "nis_per_npu",
                .type = ParamType::Count,
                .unit = "NIs",
                .min = 1,
                .max = kMax32,
                .description = "network interfaces (injection/ejection ports) per NPU",
                .source = "MultiTree Sec. V-A (1 or 4 NIs)"},
       .label = "nis",
       .models = kModels,
       .set = [](BackendOptions& o, const ParamValue& v) { o.packet.nis_per_npu = as_u32(v); },
       .get = [](const BackendOptions& o) { return count_value(o.packet.nis_per_npu); }},
      {.spec = {.key = "schedule_ni",
                .type = ParamType::Bool,
                .description =
                    "MultiTree's NI: one message per NI at a time, the earliest time step "
                    "first; destination NIs round-robin; routers grant the earliest step",
                .source = "MultiTree Sec. IV-A"},
       .label = "sched",
       .models = kModels,
       .set = [](BackendOptions& o,
                 const ParamValue& v) { o.packet.schedule_ni = std::get<bool>(v); },
       .get = [](const BackendOptions& o) -> std::optional<ParamValue> {
         return o.packet.schedule_ni;
       }},
      {.spec = {.key = "strict_schedule",
                .type = ParamType::Bool,
                .description =
                    "with schedule_ni: an NPU sends its time steps in order, the next one once "
                    "all of the current step's messages are out of its NIs",
                .source = "MultiTree Sec. IV-A; the authors' simulator's --strict-schedule"},
       .label = "strict",
       .models = kModels,
       .set = [](BackendOptions& o,
                 const ParamValue& v) { o.packet.strict_schedule = std::get<bool>(v); },
       .get = [](const BackendOptions& o) -> std::optional<ParamValue> {
         return o.packet.strict_schedule;
       }},
      {.spec = {.key = "estimate_lockstep",
                .type = ParamType::Bool,
                .description =
                    "with strict_schedule: a time step in which an NPU sends nothing lasts an "
                    "estimated step time (twice that right after a step with sends)",
                .source = "MultiTree Sec. IV-A footnote 4; the authors' --estimate-lockstep"},
       .label = "lockstep",
       .models = kModels,
       .set = [](BackendOptions& o,
                 const ParamValue& v) { o.packet.estimate_lockstep = std::get<bool>(v); },
       .get = [](const BackendOptions& o) -> std::optional<ParamValue> {
         return o.packet.estimate_lockstep;
       }},
      {.spec = {.key = "ni_bandwidth",
                .type = ParamType::Bandwidth,
                .unset = "the NPU's fastest link",
                .description =
                    "each NI's injection/ejection bandwidth; with NI queues, the NPU-to-queue "
                    "bandwidth",
                .source = "MultiTree Sec. V-A"},
       .label = "ni",
       .models = kModels,
       .set = [](BackendOptions& o,
                 const ParamValue& v) { o.packet.ni_bandwidth = std::get<core::Bandwidth>(v); },
       .get = [](const BackendOptions& o) { return bandwidth_value(o.packet.ni_bandwidth); }},
      {.spec = {.key = "switching",
                .type = ParamType::Choice,
                .choices = kSwitching,
                .description =
                    "virtual-cut-through (a packet moves when it fits whole downstream) or "
                    "wormhole (flit by flit; buffers may be smaller than a packet; slower)",
                .source = "MultiTree Sec. V-A and Table III; Dally & Towles ch. 13"},
       .label = "",
       .models = kModels,
       .set =
           [](BackendOptions& o, const ParamValue& v) {
             o.packet.switching = static_cast<Switching>(std::get<ChoiceIndex>(v).index);
           },
       .get = [](const BackendOptions& o) -> std::optional<ParamValue> {
         return ChoiceIndex{static_cast<std::uint32_t>(o.packet.switching)};
       }},
      {.spec = {.key = "credit_return",
                .type = ParamType::Choice,
                .choices = kCreditReturn,
                .description =
                    "per-flit (a credit as each flit leaves the VC) or per-packet (all at the "
                    "tail, collsim before issue 37)",
                .source = "Dally & Towles ch. 13.3 (credit-based flow control); BookSim"},
       .label = "credits",
       .models = kModels,
       .set =
           [](BackendOptions& o, const ParamValue& v) {
             o.packet.credit_return = static_cast<CreditReturn>(std::get<ChoiceIndex>(v).index);
           },
       .get = [](const BackendOptions& o) -> std::optional<ParamValue> {
         return ChoiceIndex{static_cast<std::uint32_t>(o.packet.credit_return)};
       }},
      {.spec = {.key = "vc_select",
                .type = ParamType::Choice,
                .choices = kVcSelect,
                .description =
                    "which free downstream VC of its class a packet gets: round-robin (the VC "
                    "allocator's arbiter) or most-free (collsim before issue 37)",
                .source = "Dally & Towles ch. 19 (VC allocation); BookSim"},
       .label = "vcsel",
       .models = kModels,
       .set =
           [](BackendOptions& o, const ParamValue& v) {
             o.packet.vc_select = static_cast<VcSelect>(std::get<ChoiceIndex>(v).index);
           },
       .get = [](const BackendOptions& o) -> std::optional<ParamValue> {
         return ChoiceIndex{static_cast<std::uint32_t>(o.packet.vc_select)};
       }},
      {.spec = {.key = "switch_allocator",
                .type = ParamType::Choice,
                .choices = switch_allocator_names(),
                .description =
                    "input-first (each input port offers one VC, round-robin, then each output "
                    "picks round-robin among the ports), output-order (outputs in channel "
                    "order, collsim before issue 37) or islip (iSLIP with one iteration, "
                    "BookSim's islip: outputs grant, ports accept, pointers move on acceptance "
                    "only; per flit with switching wormhole)",
                .source = "Dally & Towles ch. 19 (separable allocators); BookSim "
                          "separable_input_first and islip; McKeown, IEEE/ACM ToN 1999"},
       .label = "sa",
       .models = kModels,
       .set =
           [](BackendOptions& o, const ParamValue& v) {
             o.packet.switch_allocator =
                 static_cast<SwitchAllocator>(std::get<ChoiceIndex>(v).index);
           },
       .get = [](const BackendOptions& o) -> std::optional<ParamValue> {
         return ChoiceIndex{static_cast<std::uint32_t>(o.packet.switch_allocator)};
       }},
      {.spec = {.key = "injection_queue_flits",
                .type = ParamType::Count,
                .unit = "flits",
                .min = 1,
                .max = kMax32,
                .unset = "no queue stage",
                .description =
                    "depth of each NI's injection queue (virtual cut-through: at least one "
                    "packet)",
                .source = "MultiTree Sec. V-A (80-flit injection queue)"},
       .label = "injq",
       .models = kModels,
       .set = [](BackendOptions& o,
                 const ParamValue& v) { o.packet.injection_queue_flits = as_u32(v); },
       .get = [](const BackendOptions& o) { return count_value(o.packet.injection_queue_flits); }},
      {.spec = {.key = "ejection_queue_flits",
                .type = ParamType::Count,
                .unit = "flits",
                .min = 1,
                .max = kMax32,
                .unset = "no queue stage",
                .description =
                    "depth of each NI's ejection queue (virtual cut-through: at least one "
                    "packet)",
                .source = "MultiTree Sec. V-A"},
       .label = "ejq",
       .models = kModels,
       .set = [](BackendOptions& o,
                 const ParamValue& v) { o.packet.ejection_queue_flits = as_u32(v); },
       .get = [](const BackendOptions& o) { return count_value(o.packet.ejection_queue_flits); }},
  };
}

// Events are per packet per hop (virtual cut-through) or per flit per hop (wormhole): a message
// of b bytes is ceil(b / payload) packets, each with a head flit.
std::uint64_t packet_work(const BackendOptions& options, std::uint64_t messages,
                          std::uint64_t bytes) {
  const PacketOptions& o = options.packet;
  const std::uint64_t packets = messages + bytes / o.packet_payload_bytes;
  if (o.switching != Switching::Wormhole) return packets;
  const std::uint64_t flits = bytes / o.flit_bytes + messages;
  return packets > UINT64_MAX - flits ? UINT64_MAX : packets + flits;
}

// The backend's own memory (BackendInfo::state_bytes): every channel (links, and the NIs'
// injection, ejection and queue stages) has `vcs` input VCs downstream, each an InputVc with its
// queues and per-VC credit counters; and the packets the buffers can hold at once (depth /
// packet size per VC), at most the run's packets. Measured before issue 49's split: ~1.3 KB per
// VC (the per-VC constant below, an upper bound since), ~100 B per buffered packet.
std::uint64_t packet_state_bytes(const BackendOptions& options, const topology::Topology& topo,
                                 std::uint64_t work) {
  constexpr double kBytesPerVc = 1400, kBytesPerPacket = 100, kBytesPerChannel = 400;
  const PacketOptions& o = options.packet;
  const double npus = topo.num_npus(), nis = o.nis_per_npu;
  const double stages = 2.0 + (o.injection_queue_flits ? 1 : 0) + (o.ejection_queue_flits ? 1 : 0);
  const double channels = static_cast<double>(topo.links().size()) + npus * nis * stages;
  const double vcs = channels * o.vcs + npus * nis;
  const double packet_flits =
      1.0 + std::ceil(static_cast<double>(o.packet_payload_bytes) / o.flit_bytes);
  const double per_vc = std::max(1.0, std::floor(o.vc_buffer_flits / packet_flits));
  const double held = std::min(static_cast<double>(work), vcs * per_vc + npus * nis);
  const double bytes = channels * kBytesPerChannel + vcs * kBytesPerVc + held * kBytesPerPacket;
  return bytes >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(bytes);
}

}  // namespace

BackendInfo packet_info() {
  return {.name = "packet",
          .description =
              "packets of flits through input-buffered routers: virtual channels, credits, "
              "virtual cut-through or wormhole switching, separable round-robin allocation, "
              "dateline VCs on tori, a VC class per global hop on dragonflies, NIs with optional "
              "injection/ejection queues; message-based "
              "flow control option (BookSim-like, MultiTree Table III defaults)",
          .params = packet_params(),
          .make = [](core::Simulation& sim, const topology::Topology& topo,
                     const BackendOptions& opt) -> std::unique_ptr<Backend> {
            return std::make_unique<PacketBackend>(sim, topo, opt);
          },
          .work = &packet_work,
          .work_unit =
              [](const BackendOptions& o) {
                return o.packet.switching == Switching::Wormhole ? "flits" : "packets";
              },
          .state_bytes = &packet_state_bytes};
}

}  // namespace collsim::network
