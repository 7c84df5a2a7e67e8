// GB200 NVL72 (gpu_system.hpp): 72 Blackwell GPUs in one NVLink5 domain (18 NVLink switch trays),
// 400 Gb/s NIC per GPU between racks.
#include "topology/gpu_systems/gpu_system.hpp"
#include "topology/gpu_systems/sources.hpp"

namespace collsim::topology {

GpuSystem gb200_system() {
  return {
      .name = "gb200",
      .description = "GB200 NVL72: 72 Blackwell GPUs in one NVLink5 domain (NVLS), 400 Gb/s NIC "
                     "per GPU between racks",
      .gpu = "B200 (GB200 superchip)",
      .gpus_per_node = 72,
      .gpus_per_node_source = "NVIDIA GB200 NVL72 datasheet: 72 Blackwell GPUs, one NVLink domain",
      .nvlink_bandwidth = {900e9,
                           "NVIDIA GB200 NVL72 datasheet: fifth-generation NVLink, 1.8 TB/s per "
                           "GPU (both directions), 130 TB/s for 72 GPUs"},
      .nvls = {.efficiency = {0.74,
                              "NCCL 2.2x tuner (src/graph/tuning.cc nvlsEfficiency, Blackwell)"},
               .latency = {25e-6, gpu_sources::kNcclNvlsLatency}},
      .nic_bandwidth = {50e9,
                        "NVIDIA GB200 NVL72 reference: one 400 Gb/s ConnectX-7 InfiniBand NIC "
                        "per GPU for the compute fabric"},
      .nic_latency = {14e-6, gpu_sources::kNcclNetLatency},
  };
}

}  // namespace collsim::topology
