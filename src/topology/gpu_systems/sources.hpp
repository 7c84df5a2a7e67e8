#pragma once
// Sources shared by several GPU system presets (gpu_system.hpp).
#include <string_view>

namespace collsim::topology::gpu_sources {

/// NCCL's tuner has no datasheet counterpart for these; its constants are NVIDIA's own
/// measurements of the hardware as NCCL drives it.
inline constexpr std::string_view kNcclNvlsLatency =
    "NCCL 2.29 tuner (src/tuning/cost_model.cc ncclTunerConstantsDefaults hwLatencies, NVLink, "
    "NVLS, Simple): 25 us";
inline constexpr std::string_view kNcclNetLatency =
    "NCCL 2.29 tuner (src/tuning/cost_model.cc hwLatencies, NET, Ring, Simple): network hop "
    "latency of a ring step, 14 us";
inline constexpr std::string_view kRailOptimised =
    "one NIC per GPU, rail-optimised: GPU i of every node on leaf switch i (NVIDIA DGX "
    "SuperPOD reference architecture)";
/// One InfiniBand NIC through NCCL: NVIDIA's expected nccl-tests bandwidth per NIC.
inline constexpr std::string_view kIbNicEfficiency =
    "NVIDIA/nccl-tests issue 290, D. Addison (NVIDIA): 'For NDR @ 400Gbps you should see "
    "46-48GB/s per NIC'; the middle, 47 of 50 GB/s, is 0.94 of the line rate";
inline constexpr std::string_view kIbDeviceLatency =
    "NCCL's InfiniBand plugin (src/transport/net_ib.cc ncclIbGetProperties): props->latency = 0 "
    "('Not set'), so the tuner adds nothing to its network latencies";
inline constexpr std::string_view kHopperNvlsChannels =
    "NCCL 2.29 src/transport/nvls.cc NVLS_NCHANNELS_SM90 = 16 (NCCL logs '16 nvls channels' on "
    "8 x H100)";
inline constexpr std::string_view kH100Channels =
    "NCCL INFO on 8 x H100 SXM: '24 coll channels, 24 collnet channels, 16 nvls channels, 32 "
    "p2p channels, 32 p2p channels per peer'";

}  // namespace collsim::topology::gpu_sources
