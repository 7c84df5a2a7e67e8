#pragma once
// GPU system presets: the network side of an NVLink/NVSwitch node (or NVL72 rack) with one
// InfiniBand NIC per GPU between nodes, rail-optimised (GPU i of every node on leaf switch i).
// Every number carries its source (a datasheet, or NCCL's own tuner where no datasheet gives
// it). Compute (FLOP/s, HBM) is not here: that belongs to src/compute/.
//
// Units: bandwidths in bytes/s per GPU per direction (10^9 bytes = 1 GB), latencies in seconds.
// One file per system (h100.cpp, a100.cpp, h200.cpp, gb200.cpp) and one line in registry.cpp.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace collsim::topology {

/// A number with where it comes from.
struct Sourced {
  double value = 0;
  std::string_view source;
};

/// In-network reduction offered by a switch (NVSwitch SHARP as NCCL's NVLS uses it): the switch
/// reads the contributions from every GPU port, reduces them and returns or multicasts the result.
/// `efficiency` is the rate at which a port's NVLS traffic (multimem loads with reduction and
/// multicast stores) flows, as a fraction of the rate the port reaches for plain copies; 0 = no
/// in-network reduction. `latency` is the switch's added time per NVLS operation, seconds.
struct InNetworkReduction {
  Sourced efficiency;
  Sourced latency;
  bool available() const { return efficiency.value > 0; }
};

/// How NCCL itself sees the machine: the numbers of NCCL 2.29's own topology and cost model
/// (src/graph/topo.h, src/tuning/*.cc, src/transport/nvls.cc, the net plugin) that the closed-form
/// model of collective/nccl/ uses in place of fitted constants. docs/nccl.md cites each.
struct NcclView {
  /// NCCL's GPU generation index for its tuner tables (ncclTuningGetCompCapIndex).
  enum class Arch : std::uint8_t { Volta, Ampere, Hopper, Blackwell };
  /// The host CPU, which NCCL's tuner reads for LL's multi-node bandwidth cap and the network
  /// post overhead (getNetOverhead: x86 Intel 1 us, x86 AMD 2 us, others 1 us).
  enum class Cpu : std::uint8_t { Intel, Amd, Arm };
  std::uint32_t nvlinks = 0;  ///< NVLinks per GPU (datasheet)
  Sourced nvlink_rate;        ///< NCCL's rate of one NVLink, bytes/s (topo.h SMxx_NVLINK_BW)
  Arch arch = Arch::Hopper;
  Cpu cpu = Cpu::Intel;
  std::string_view cpu_source;
  Sourced nic_efficiency;      ///< achieved / line rate of one NIC (a published measurement)
  Sourced net_device_latency;  ///< the net plugin's latency property, seconds (IB: 0)
  Sourced channels;            ///< NCCL's collective (ring) channels on one node
  Sourced nvls_channels;       ///< NCCL's NVLS channels (nvls.cc NVLS_NCHANNELS_*)
};

struct GpuSystem {
  std::string_view name;         ///< "h100"
  std::string_view description;  ///< one line
  std::string_view gpu;          ///< "H100 SXM5 80GB"
  /// GPUs in one NVLink domain: one node's 8, or an NVL72 rack's 72.
  std::uint32_t gpus_per_node = 8;
  std::string_view gpus_per_node_source;
  Sourced nvlink_bandwidth;  ///< bytes/s per GPU per direction, all NVLinks together
  InNetworkReduction nvls;   ///< the NVSwitch's reduction and multicast
  Sourced nic_bandwidth;     ///< bytes/s per GPU per direction (one NIC per GPU)
  Sourced nic_latency;       ///< seconds per inter-node step (NIC, leaf switch, NIC, proxy)
  NcclView nccl;             ///< NCCL's own view (the closed-form NCCL model's inputs)
};

/// Every preset, in a fixed order (registry.cpp).
const std::vector<GpuSystem>& gpu_systems();
/// The preset named `name`; throws core::InputError naming `field` and listing the valid names.
const GpuSystem& find_gpu_system(std::string_view name, std::string_view field);

}  // namespace collsim::topology
