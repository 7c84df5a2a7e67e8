#pragma once
// Endpoint parameters: the NPU, its memory and NIC buses, and the ACE engine (ACE, MICRO'20,
// Table 7 and Sec. 5-6). One struct for every endpoint model; each model reads the fields it
// needs (the `used by` column of `collsim list`). Defaults are the paper's platform, except the
// two calibration knobs (message_overhead, link_efficiency), which default to "no effect" so a
// platform without them keeps its results; ACE's scenarios set link_efficiency to Table 7's 94%.
//
// Text forms (scenario `endpoint_params:` maps, CLI --endpoint-param KEY=VALUE): sizes, times and
// bandwidths with their units, counts as whole numbers, shares as a fraction or a percentage
// ("0.2", "20%"), clocks in Hz ("700 MHz"), FLOP rates in FLOP/s ("91.75e12" is not accepted:
// write "91.75 TFLOP/s").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/param.hpp"
#include "core/units.hpp"

namespace collsim::endpoint {

/// The choices of EndpointParams::ace_sram_partition, in order.
inline constexpr std::uint32_t kAcePartitionPhaseChunk = 0;
inline constexpr std::uint32_t kAcePartitionInitialChunk = 1;

struct EndpointParams {
  // Calibration knobs (every endpoint, ideal included).
  core::Time message_overhead{};  ///< added at the source before each message enters the network
  double link_efficiency = 1.0;   ///< payload share of the wire bytes: wire = payload / efficiency
  /// ASTRA-sim 1.0's `endpoint-delay` (system input, cycles of its 1 GHz clock): with the shared
  /// bus model off (its default) every message crosses the NPU-memory bus in this fixed time
  /// before it is sent (MemBus), so it waits that long between its dependencies and the network.
  /// 0 by default; switch-fc's Fig. 11 scenarios take 10 cycles (ASTRA-sim 1.0's default and its
  /// shipped switch / all-to-all system inputs).
  core::Time endpoint_delay{};
  /// The NIC injects one message at a time per outgoing link, in send order (every endpoint).
  bool link_fifo = false;
  core::Bytes ideal_chunk{};  ///< ideal: largest chunk a hierarchical collective uses (0: any)
  bool ideal_dma = false;     ///< ideal: chunks copied in at the NPU-NIC bandwidth, no LogGP cost
  /// ideal runs ACE's engine and schedule (its chunks, SRAM and state-machine admission, TX DMA)
  /// with nothing after the payload is in the NIC costing time: no ALU time, no RX DMA. On by
  /// default (ACE Sec. 5's bound); false makes `ideal` the pass-through `none` with ideal_dma /
  /// ideal_chunk.
  bool ideal_engine = true;

  // The NPU-driven endpoints' buses: LogGP (Culler et al. 1993) with ACE Sec. 5's values.
  core::Time bus_latency = core::Time::from_ns(50);   ///< L: 50 cycles at 1 GHz
  core::Time bus_overhead = core::Time::from_ns(20);  ///< o: 20 cycles
  core::Time bus_gap = core::Time::from_ns(20);       ///< g: 20 cycles
  core::Bandwidth npu_nic_bandwidth{500e9};           ///< Table 7, each direction
  core::Bandwidth npu_memory_bandwidth{900e9};        ///< Table 7 (NVIDIA Volta)
  /// Bus message: a transfer crosses each bus (and ACE's DMA and ALUs) as a run of messages of
  /// this size, each paying LogGP's o (0: the whole transfer as one). Unset: the endpoint's own
  /// (bus_message_or): the NPU-driven endpoints charge LogGP once per algorithm message, as
  /// ASTRA-sim 1.0's ring does (one PacketBundle per step); ACE moves its 4 KB messages
  /// (Table 4, Table 7).
  std::optional<core::Bytes> bus_message;
  bool npu_nic_half_duplex = false;  ///< one NPU-NIC bus for both directions (else one each)
  /// baseline, baseline++: a reduced message's operands are read back from memory for the add
  /// (Fig. 7b: its bytes cross the memory bus 4 times on arrival); false: ASTRA-sim 1.0's
  /// memory model, the arrival written before the add and the sum after (2 times).
  bool reduce_reads_operands = true;

  // What a collective takes from training (Sec. 5, "Target Systems").
  double baseline_compute_share = 0.05;  ///< NPU compute a baseline collective uses (~5%)
  double baseline_memory_share = 0.20;   ///< memory bandwidth a baseline collective uses (~20%)
  double ace_memory_share = 0.05;        ///< memory bandwidth ACE's DMA uses (~5%)
  double npu_peak_flops = 2.0 * 256 * 256 * 700e6;  ///< 256x256 MACs at 700 MHz: 91.75 TFLOP/s

  // ACE (Sec. 4 and 6).
  core::Bytes ace_sram{4u << 20};         ///< 4 x 1 MB banks
  std::uint32_t ace_state_machines = 16;  ///< spread evenly over the phases
  std::uint32_t ace_alus = 4;             ///< ALU units
  std::uint32_t ace_alu_lanes = 16;       ///< FP32 lanes per ALU
  core::Bytes ace_bus_width{64};          ///< SRAM-ALU bus per ALU, bytes per cycle
  double ace_clock_hz = 1e9;              ///< not given by the paper: ASTRA-sim's 1 GHz tick
  core::Bytes ace_chunk{64u << 10};       ///< Table 4: chunk 64 KB on average
  /// Sec. 6's partition heuristic, bandwidth x "initial chunk size" for each phase, read as
  /// kAcePartitionPhaseChunk (the chunk as it is in the phase) or kAcePartitionInitialChunk
  /// (the chunk as it entered the collective: by bandwidth alone). docs/ace.md says which and why.
  core::ChoiceIndex ace_sram_partition{kAcePartitionInitialChunk};

  // Aggregation of a received reduction message on the receiving NPU (the ideal endpoint), the
  // MultiTree authors' simulator's cycle model: ceil(ceil(D / vaults) / pe) x vaults cycles for D
  // parameters, one message at a time per NPU. 0 = off (no cost, the default).
  std::uint32_t aggregation_pe = 0;        ///< max(PE_h, PE_w): 32 for 32x32 systolic arrays
  std::uint32_t aggregation_vaults = 16;   ///< vault NPUs per accelerator
  double aggregation_clock_hz = 1e9;       ///< the NPU clock
  core::Bytes aggregation_param_bytes{4};  ///< bytes per parameter (FP32)

  /// ASTRA-sim 2.x's local memory (its system input `local-mem-bw`, decimal GB/s; the ideal
  /// endpoint): a received reduction message is handed over after one write and two reads of
  /// its bytes, each floor(bytes / local_mem_gbps) ns (ASTRA-sim's PacketBundle::call with
  /// Sys::mem_read / mem_write), a fixed delay with no queue. 0 = off (the default).
  std::uint32_t local_mem_gbps = 0;
};

/// One parameter of the schema: its core::ParamSpec (key, type, description, source; parsed,
/// checked and formatted by core/param.hpp), which endpoints read it and where it lives.
/// The default bus message of the NPU-driven endpoints: one LogGP transfer per algorithm message.
inline constexpr core::Bytes kWholeMessage{0};
/// ACE's: its 4 KB algorithm message (Table 4 "Message (4kB on avg.)", Table 7).
inline constexpr core::Bytes kAceBusMessage{4096};

/// p.bus_message, or `endpoint_default` when it is not set.
inline core::Bytes bus_message_or(const EndpointParams& p, core::Bytes endpoint_default) {
  return p.bus_message.value_or(endpoint_default);
}

struct EndpointParam {
  using Member = std::variant<core::Time EndpointParams::*, core::Bandwidth EndpointParams::*,
                              core::Bytes EndpointParams::*, std::uint32_t EndpointParams::*,
                              double EndpointParams::*, bool EndpointParams::*,
                              std::optional<core::Bytes> EndpointParams::*,
                              core::ChoiceIndex EndpointParams::*>;
  core::ParamSpec spec;
  std::string_view used_by;  ///< which endpoints read it
  Member member;
};

/// What a message waits at its source before the network: message_overhead + endpoint_delay.
inline core::Time source_delay(const EndpointParams& p) {
  return p.message_overhead + p.endpoint_delay;
}

/// The schema, in a fixed order.
const std::vector<EndpointParam>& endpoint_params();

/// Set parameter `key` from `text` (core::parse_param). Throws core::InputError naming `field` for
/// an unknown key (listing the valid ones), malformed text or a value out of range (shares in
/// (0, 1], counts and sizes >= 1, bandwidths, clocks and FLOP rates > 0).
void set_endpoint_param(EndpointParams& p, std::string_view key, std::string_view text,
                        std::string_view field);
/// "KEY=VALUE" (the command-line form).
void set_endpoint_param(EndpointParams& p, std::string_view assignment, std::string_view field);

/// The value of `e` in `p`, as core/param.hpp handles it; nullopt for an optional parameter left
/// unset (its ParamSpec::unset says what that means).
std::optional<core::ParamValue> endpoint_param_value(const EndpointParams& p,
                                                     const EndpointParam& e);
/// The value as the user writes it ("50 ns", "20%", "700 MHz").
std::string format_endpoint_param(const EndpointParams& p, const EndpointParam& e);

/// The endpoint's name with the parameters that differ from the defaults, for reports:
/// "ace", "baseline:link_efficiency=94%".
std::string endpoint_label(std::string_view name, const EndpointParams& p);

}  // namespace collsim::endpoint
