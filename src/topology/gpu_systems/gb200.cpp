// GB200 NVL72 (gpu_system.hpp): 72 Blackwell GPUs in one NVLink5 domain (18 NVLink switch trays),
// 400 Gb/s NIC per GPU between racks.
#include "topology/gpu_systems/gpu_system.hpp"
#include "topology/gpu_systems/sources.hpp"

namespace collsim::topology {

GpuSystem gb200_system() {
  return {
      .name = "gb200",
      .description =
          "GB200 NVL72: 72 Blackwell GPUs in one NVLink5 domain (NVLS), 400 Gb/s NIC "
          "per GPU between racks",
      .gpu = "B200 (GB200 superchip)",
      .gpus_per_node = 72,
      .gpus_per_node_source = "NVIDIA GB200 NVL72 datasheet: 72 Blackwell GPUs, one NVLink domain",
      .nvlink_bandwidth = {900e9,
                           "NVIDIA GB200 NVL72 datasheet: fifth-generation NVLink, 1.8 TB/s per "
                           "GPU (both directions), 130 TB/s for 72 GPUs"},
      .nvls = {.efficiency = {0.74,
                              "NCCL 2.29 tuner (src/tuning/nvls.cc nvlsEfficiency, Blackwell)"},
               .latency = {25e-6, gpu_sources::kNcclNvlsLatency}},
      .nic_bandwidth = {50e9,
                        "NVIDIA GB200 NVL72 reference: one 400 Gb/s ConnectX-7 InfiniBand NIC "
                        "per GPU for the compute fabric"},
      .nic_latency = {14e-6, gpu_sources::kNcclNetLatency},
      .nccl = {.nvlinks = 18,
               .nvlink_rate = {40.1e9,
                               "NCCL 2.29 src/graph/topo.h SM100_NVLINK_BW: 40.1 GB/s per "
                               "Blackwell NVLink (18 x 40.1 = 721.8 GB/s per GPU)"},
               .arch = NcclView::Arch::Blackwell,
               .cpu = NcclView::Cpu::Arm,
               .cpu_source = "NVIDIA GB200 NVL72 datasheet: 36 Grace CPUs (Arm Neoverse V2)",
               .nic_efficiency = {0.94, gpu_sources::kIbNicEfficiency},
               .net_device_latency = {0.0, gpu_sources::kIbDeviceLatency},
               .channels = {24,
                            "no NCCL log found; the H100 and A100 nodes' 24 (NCCL's p2p "
                            "setup rounds any 17-32 up to the same 32 channels)"},
               .nvls_channels = {24,
                                 "NCCL 2.29 src/transport/nvls.cc NVLS_NCHANNELS_SM100_NVL = "
                                 "24 in one NVLink domain (NVLS_NCHANNELS_SM100 = 32 across "
                                 "nodes)"}},
  };
}

}  // namespace collsim::topology
