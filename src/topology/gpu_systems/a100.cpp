// HGX/DGX A100 (gpu_system.hpp): 8 x A100 SXM4, NVLink3 through six second-generation NVSwitch
// chips (no in-network reduction: NVLink SHARP came with gen3), one 200 Gb/s HDR NIC per GPU.
#include "topology/gpu_systems/gpu_system.hpp"
#include "topology/gpu_systems/sources.hpp"

namespace collsim::topology {

GpuSystem a100_system() {
  return {
      .name = "a100",
      .description =
          "HGX A100: 8 x A100 SXM4, NVLink3 + NVSwitch gen2 (no NVLS), 200 Gb/s HDR "
          "NIC per GPU",
      .gpu = "A100 SXM4 80GB",
      .gpus_per_node = 8,
      .gpus_per_node_source = "NVIDIA DGX A100 datasheet: 8 x A100 per system",
      .nvlink_bandwidth = {300e9,
                           "NVIDIA A100 datasheet: NVLink 600 GB/s (both directions); Ampere "
                           "architecture whitepaper: 12 NVLink3 links x 25 GB/s per direction"},
      .nvls = {.efficiency = {0.0,
                              "NVSwitch gen2 has no in-network reduction (NCCL's tuner: "
                              "nvlsEfficiency 0 on Ampere)"},
               .latency = {0.0, "no NVLS"}},
      .nic_bandwidth = {25e9,
                        "NVIDIA DGX A100 datasheet: 8 x ConnectX-6, 200 Gb/s HDR InfiniBand "
                        "each"},
      .nic_latency = {14e-6, gpu_sources::kNcclNetLatency},
      .nccl = {.nvlinks = 12,
               .nvlink_rate = {20.0e9,
                               "NCCL 2.29 src/graph/topo.h SM80_NVLINK_BW: 20.0 GB/s per "
                               "Ampere NVLink (12 x 20 = 240 GB/s per GPU)"},
               .arch = NcclView::Arch::Ampere,
               .cpu = NcclView::Cpu::Amd,
               .cpu_source = "NVIDIA DGX A100 datasheet: 2 x AMD EPYC 7742",
               .nic_efficiency = {0.94, gpu_sources::kIbNicEfficiency},
               .net_device_latency = {0.0, gpu_sources::kIbDeviceLatency},
               .channels = {24,
                            "NVIDIA/nccl-tests issue 100: NCCL INFO 'Channel 23/24' on HGX "
                            "A100 (8 GPUs, NVSwitch gen2)"},
               .nvls_channels = {0, "no NVLS on Ampere"}},
  };
}

}  // namespace collsim::topology
