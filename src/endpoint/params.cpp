#include "endpoint/params.hpp"

#include <fmt/format.h>

#include <limits>
#include <type_traits>
#include <variant>

#include "core/error.hpp"

namespace collsim::endpoint {
namespace {

using K = core::ParamType;
using P = EndpointParams;

constexpr std::string_view kAll = "all";
constexpr std::string_view kNpu = "baseline, baseline++";
constexpr std::string_view kBusDma = "baseline, baseline++, ace (DMA)";
constexpr std::string_view kAce = "ace";

// One schema entry. Counts and sizes are >= 1 (a count fits the uint32_t it is stored in); times
// may be 0; bandwidths, shares, clocks and FLOP rates > 0 by their type.
EndpointParam param(std::string_view key, K type, std::string_view description,
                    std::string_view source, std::string_view used_by, EndpointParam::Member m) {
  core::ParamSpec s{.key = key, .type = type, .description = description, .source = source};
  if (type == K::Count || type == K::Bytes) s.min = 1;
  if (type == K::Count) s.max = std::numeric_limits<std::uint32_t>::max();
  return {s, used_by, m};
}

EndpointParam optional_bytes(std::string_view key, std::string_view description,
                             std::string_view source, std::string_view used_by,
                             EndpointParam::Member m) {
  EndpointParam e = param(key, K::Bytes, description, source, used_by, m);
  e.spec.min = 0;
  return e;
}

// 0 is allowed: no split (the algorithm's message crosses a bus as one transfer); unset: the
// endpoint's own.
EndpointParam bus_message_param() {
  EndpointParam e = param("bus_message", K::Bytes,
                          "bus message size: a message crosses the buses, ACE's DMA and ALUs as "
                          "a pipelined run of such messages, each paying LogGP's o (0: the whole "
                          "message as one transfer)",
                          "ACE Table 4 and Table 7: ACE's message 4 KB; ASTRA-sim 1.0 charges its "
                          "LogGP bus once per algorithm message (Ring::release_packets)",
                          kBusDma, &P::bus_message);
  e.spec.min = 0;
  e.spec.unset =
      "the endpoint's: one transfer per algorithm message (baseline, baseline++), 4 KB (ace)";
  return e;
}

constexpr std::string_view kPartitionChoices[] = {"phase-chunk", "initial-chunk"};

EndpointParam ace_sram_partition_param() {
  EndpointParam e = param(
      "ace_sram_partition", K::Choice,
      "how the SRAM is split over a collective's phases and its results: in proportion to the "
      "phase's bandwidth x the chunk as it is in the phase (phase-chunk: a phase after a "
      "reduce-scatter gets less) or x the chunk as it entered the collective (initial-chunk: by "
      "bandwidth alone)",
      "ACE Sec. 6 and footnote 9: \"(available network bandwidth x initial chunk size) for each "
      "phase\"; the paper does not say which size (docs/ace.md)",
      kAce, &P::ace_sram_partition);
  e.spec.choices = kPartitionChoices;
  return e;
}

std::string_view trim(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  return t;
}

constexpr std::string_view kIdeal = "ideal";

// 0 turns the aggregation cost off, so this count may be 0.
EndpointParam aggregation_pe() {
  EndpointParam e =
      param("aggregation_pe", K::Count,
            "aggregation of each received reduction message on the receiving NPU, one at a time: "
            "ceil(ceil(D / aggregation_vaults) / aggregation_pe) x aggregation_vaults cycles for D "
            "parameters; aggregation_pe = max(PE_h, PE_w) of its systolic arrays; 0: no cost",
            "the MultiTree (ISCA'21) authors' simulator's aggregation cycles (32x32 arrays: 32)",
            kIdeal, &P::aggregation_pe);
  e.spec.min = 0;
  return e;
}

// 0 turns the local-memory cost off, so this count may be 0.
EndpointParam local_mem_gbps() {
  EndpointParam e =
      param("local_mem_gbps", K::Count,
            "local memory of the NPU in decimal GB/s: a received reduction message is handed "
            "over after one write and two reads of its bytes, each floor(bytes / bandwidth) ns, "
            "a fixed delay (no queue); 0: no cost",
            "ASTRA-sim 2.x's local-mem-bw (PacketBundle::call, Sys::mem_read / mem_write)",
            kIdeal, &P::local_mem_gbps);
  e.spec.min = 0;
  e.spec.unit = "GB/s";
  return e;
}

}  // namespace

const std::vector<EndpointParam>& endpoint_params() {
  static const std::vector<EndpointParam> all = {
      param("message_overhead", K::Time,
            "fixed delay at the source before each message enters the network (calibration)",
            "collsim calibration knob (docs/ace.md)", kAll, &P::message_overhead),
      param("endpoint_delay", K::Time,
            "per-message delay at the source between a message's dependencies and the network "
            "(ASTRA-sim 1.0's endpoint-delay, 1 cycle = 1 ns); adds to message_overhead",
            "ASTRA-sim 1.0 system input endpoint-delay (MemBus without a shared bus; 10 cycles "
            "by default and in its switch / all-to-all system inputs)",
            kAll, &P::endpoint_delay),
      param("link_efficiency", K::Share,
            "payload share of what crosses a link (headers, encoding): wire bytes = payload / "
            "efficiency",
            "ACE Table 7: 94%", kAll, &P::link_efficiency),
      param("link_fifo", K::Bool,
            "the NIC injects one message at a time per outgoing link, in the order they are sent "
            "(paced injection; else messages share the links as the backend shares them)",
            "ACE Fig. 6: per-link output port buffers", kAll, &P::link_fifo),
      optional_bytes("ideal_chunk",
                     "largest chunk a hierarchical collective uses under ideal (0: any): ACE's "
                     "chunking for a NIC with unlimited resources",
                     "ACE Table 4 / Sec. 5 \"Ideal\"", "ideal", &P::ideal_chunk),
      param("ideal_dma", K::Bool,
            "ideal copies each chunk in at the NPU-NIC bandwidth before its first stage, one "
            "at a time per NPU and with no LogGP cost (else the payload is there at once)",
            "ACE Sec. 5: NPU-NIC bandwidth = the sum of the NPU's links", "ideal",
            &P::ideal_dma),
      param("ideal_engine", K::Bool,
            "ideal runs ACE's engine and schedule (ace_chunk chunks, its SRAM and state-machine "
            "admission, its TX DMA over the buses), so chunk-stages start in ACE's order and pace, "
            "and nothing after the payload is in the NIC takes time: reductions are done on "
            "arrival and results are in memory at once (no RX DMA); false: the pass-through of "
            "`none`, with ideal_chunk and ideal_dma",
            "ACE Sec. 5 \"Ideal\": the NIC handles the collective in one cycle, an upper bound "
            "to ACE", "ideal",
            &P::ideal_engine),
      param("bus_latency", K::Time, "LogGP L of the NPU-memory and NPU-NIC buses",
            "ACE Sec. 5: L = 50 cycles", kBusDma, &P::bus_latency),
      param("bus_overhead", K::Time, "LogGP o: per-transfer overhead at each end of a bus transfer",
            "ACE Sec. 5: o = 20 cycles", kBusDma, &P::bus_overhead),
      param("bus_gap", K::Time, "LogGP g: least time between two transfers starting on a bus",
            "ACE Sec. 5: g = 20 cycles", kBusDma, &P::bus_gap),
      param("npu_nic_bandwidth", K::Bandwidth, "NPU-NIC bus, each direction (LogGP G = 1 / it)",
            "ACE Table 7: 500 GB/s", kBusDma, &P::npu_nic_bandwidth),
      param("npu_memory_bandwidth", K::Bandwidth,
            "NPU-memory bus, reads and writes together; also training's memory bandwidth",
            "ACE Table 7: 900 GB/s", kBusDma, &P::npu_memory_bandwidth),
      bus_message_param(),
      param("npu_nic_half_duplex", K::Bool,
            "one NPU-NIC bus shared by both directions (else one LogGP resource per direction)",
            "ASTRA-sim 1.0's NPU-NIC model: the receiving side is busy while the other sends",
            kBusDma, &P::npu_nic_half_duplex),
      param("reduce_reads_operands", K::Bool,
            "a reduced message's operands are read back from memory for the add (4 passes of "
            "its bytes on the memory bus at arrival); false: the arrival written before the add "
            "and the sum after (2 passes)",
            "ACE Fig. 7b; false: ASTRA-sim 1.0's LogGP memory bus (a processed request crosses "
            "it before and after the local reduction)",
            kNpu, &P::reduce_reads_operands),
      param("baseline_compute_share", K::Share,
            "NPU compute a baseline collective reserves (training keeps the rest; local reductions "
            "run on it)",
            "ACE Sec. 5: ~5%", kNpu, &P::baseline_compute_share),
      param("baseline_memory_share", K::Share,
            "memory bandwidth a baseline collective reserves (training keeps the rest)",
            "ACE Sec. 5: ~20%", kNpu, &P::baseline_memory_share),
      param("ace_memory_share", K::Share,
            "memory bandwidth ACE's DMA reserves (training keeps the rest; baseline++ the same)",
            "ACE Sec. 5: 5%", "ace, baseline++", &P::ace_memory_share),
      param("npu_peak_flops", K::Flops, "the NPU's peak compute (local reductions of baseline)",
            "ACE Sec. 5: 256x256 systolic array at 700 MHz", kNpu, &P::npu_peak_flops),
      param("ace_sram", K::Bytes, "ACE SRAM, split into P + 1 partitions for a P-phase collective",
            "ACE Sec. 6: 4 x 1 MB banks", kAce, &P::ace_sram),
      param("ace_state_machines", K::Count, "state machines, spread evenly over the phases",
            "ACE Sec. 6: 16", kAce, &P::ace_state_machines),
      param("ace_alus", K::Count, "ALU units reducing arriving messages", "ACE Sec. 6: 4", kAce,
            &P::ace_alus),
      param("ace_alu_lanes", K::Count, "FP32 lanes per ALU", "ACE Sec. 6: 16", kAce,
            &P::ace_alu_lanes),
      param("ace_bus_width", K::Bytes, "SRAM-ALU bus of each ALU, bytes per cycle",
            "ACE Sec. 6: 64 B buses", kAce, &P::ace_bus_width),
      param("ace_clock", K::Frequency, "ACE's clock (ALUs and buses)",
            "not in the paper: ASTRA-sim's 1 GHz cycle", kAce, &P::ace_clock_hz),
      ace_sram_partition_param(),
      param("ace_chunk", K::Bytes,
            "largest chunk ACE takes in (a payload is split into such chunks)",
            "ACE Table 4: 64 KB on average", kAce, &P::ace_chunk),
      aggregation_pe(),
      param("aggregation_vaults", K::Count,
            "vault NPUs of an accelerator sharing an aggregation (the cycle formula's 16)",
            "MultiTree (ISCA'21) Sec. V-A: HMC-based accelerator, 16 vaults", kIdeal,
            &P::aggregation_vaults),
      param("aggregation_clock", K::Frequency, "clock of the aggregation cycles",
            "MultiTree (ISCA'21) Table III: 1 GHz", kIdeal, &P::aggregation_clock_hz),
      param("aggregation_param_bytes", K::Bytes, "bytes per aggregated parameter",
            "MultiTree (ISCA'21) Sec. V-A: FP32 gradients", kIdeal, &P::aggregation_param_bytes),
      local_mem_gbps(),
  };
  return all;
}

void set_endpoint_param(EndpointParams& p, std::string_view key, std::string_view text,
                        std::string_view field) {
  for (const EndpointParam& e : endpoint_params()) {
    if (e.spec.key != key) continue;
    const core::ParamValue v = core::parse_param(e.spec, trim(text), field);
    std::visit(
        [&](auto member) {
          using T = std::remove_reference_t<decltype(p.*member)>;
          if constexpr (std::is_same_v<T, std::uint32_t>) {
            p.*member = static_cast<std::uint32_t>(std::get<std::uint64_t>(v));  // max 2^32 - 1
          } else if constexpr (std::is_same_v<T, std::optional<core::Bytes>>) {
            p.*member = std::get<core::Bytes>(v);
          } else {
            p.*member = std::get<T>(v);
          }
        },
        e.member);
    return;
  }
  std::string valid;
  for (const EndpointParam& e : endpoint_params()) {
    valid += (valid.empty() ? "" : ", ") + std::string(e.spec.key);
  }
  throw core::InputError(
      fmt::format("{}: unknown endpoint parameter \"{}\"; valid: {}", field, key, valid));
}

void set_endpoint_param(EndpointParams& p, std::string_view assignment, std::string_view field) {
  const std::size_t eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    throw core::InputError(fmt::format(
        "{}: must be KEY=VALUE (e.g. link_efficiency=94%), got \"{}\"", field, assignment));
  }
  const std::string_view key = trim(assignment.substr(0, eq));
  set_endpoint_param(p, key, assignment.substr(eq + 1), fmt::format("{} {}", field, key));
}

std::optional<core::ParamValue> endpoint_param_value(const EndpointParams& p,
                                                     const EndpointParam& e) {
  return std::visit(
      [&](auto member) -> std::optional<core::ParamValue> {
        using T = std::remove_cv_t<std::remove_reference_t<decltype(p.*member)>>;
        if constexpr (std::is_same_v<T, std::uint32_t>) {
          return std::uint64_t{p.*member};
        } else if constexpr (std::is_same_v<T, std::optional<core::Bytes>>) {
          if (!(p.*member)) return std::nullopt;
          return *(p.*member);
        } else {
          return p.*member;
        }
      },
      e.member);
}

std::string format_endpoint_param(const EndpointParams& p, const EndpointParam& e) {
  const std::optional<core::ParamValue> v = endpoint_param_value(p, e);
  return v ? core::format_param(e.spec, *v) : fmt::format("unset ({})", e.spec.unset);
}

std::string endpoint_label(std::string_view name, const EndpointParams& p) {
  static const EndpointParams defaults;
  std::string out(name);
  for (const EndpointParam& e : endpoint_params()) {
    const std::string v = format_endpoint_param(p, e);
    if (v != format_endpoint_param(defaults, e)) out += fmt::format(":{}={}", e.spec.key, v);
  }
  return out;
}

}  // namespace collsim::endpoint
