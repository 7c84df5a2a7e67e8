// HGX/DGX H100 (gpu_system.hpp): 8 x H100 SXM5, NVLink4 through four third-generation NVSwitch
// chips with NVLink SHARP (NVLS), one ConnectX-7 400 Gb/s NIC per GPU.
#include "topology/gpu_systems/gpu_system.hpp"
#include "topology/gpu_systems/sources.hpp"

namespace collsim::topology {

GpuSystem h100_system() {
  return {
      .name = "h100",
      .description =
          "HGX H100: 8 x H100 SXM5, NVLink4 + NVSwitch gen3 (NVLS), 400 Gb/s NIC per GPU",
      .gpu = "H100 SXM5 80GB",
      .gpus_per_node = 8,
      .gpus_per_node_source = "NVIDIA DGX H100 datasheet: 8 x H100 per system",
      .nvlink_bandwidth = {450e9,
                           "NVIDIA H100 datasheet: NVLink 900 GB/s (both directions); Hopper "
                           "architecture whitepaper: 18 NVLink4 links x 25 GB/s per direction"},
      .nvls = {.efficiency = {0.85,
                              "NCCL 2.29 tuner (src/tuning/nvls.cc nvlsEfficiency, Hopper): "
                              "NVLS reaches 0.85 of the port rate; Hopper whitepaper: NVSwitch "
                              "gen3 NVLink SHARP reduces and multicasts in the switch"},
               .latency = {25e-6, gpu_sources::kNcclNvlsLatency}},
      .nic_bandwidth = {50e9,
                        "NVIDIA DGX H100 datasheet: 8 x ConnectX-7, 400 Gb/s InfiniBand each"},
      .nic_latency = {14e-6, gpu_sources::kNcclNetLatency},
      .nccl = {.nvlinks = 18,
               .nvlink_rate = {20.6e9,
                               "NCCL 2.29 src/graph/topo.h SM90_NVLINK_BW: 20.6 GB/s per "
                               "Hopper NVLink (18 x 20.6 = 370.8 GB/s per GPU)"},
               .arch = NcclView::Arch::Hopper,
               .cpu = NcclView::Cpu::Intel,
               .cpu_source = "NVIDIA DGX H100 datasheet: 2 x Intel Xeon Platinum 8480C",
               .nic_efficiency = {0.94, gpu_sources::kIbNicEfficiency},
               .net_device_latency = {0.0, gpu_sources::kIbDeviceLatency},
               .channels = {24, gpu_sources::kH100Channels},
               .nvls_channels = {16, gpu_sources::kHopperNvlsChannels}},
  };
}

}  // namespace collsim::topology
