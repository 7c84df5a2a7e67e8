#pragma once
// Sources shared by several GPU system presets (gpu_system.hpp).
#include <string_view>

namespace collsim::topology::gpu_sources {

/// NCCL's tuner has no datasheet counterpart for these; its constants are NVIDIA's own
/// measurements of the hardware as NCCL drives it.
inline constexpr std::string_view kNcclNvlsLatency =
    "NCCL 2.2x tuner (src/graph/tuning.cc): NVLS latency on NVLink, Simple protocol, 25 us";
inline constexpr std::string_view kNcclNetLatency =
    "NCCL 2.2x tuner (src/graph/tuning.cc): network hop latency of a ring step, Simple "
    "protocol, 14 us";
inline constexpr std::string_view kRailOptimised =
    "one NIC per GPU, rail-optimised: GPU i of every node on leaf switch i (NVIDIA DGX "
    "SuperPOD reference architecture)";

}  // namespace collsim::topology::gpu_sources
