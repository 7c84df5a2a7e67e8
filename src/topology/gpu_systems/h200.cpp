// HGX/DGX H200 (gpu_system.hpp): the H100's NVLink4 / NVSwitch gen3 network with H200 GPUs (more
// and faster HBM, which this network-side preset does not model), 400 Gb/s NIC per GPU.
#include "topology/gpu_systems/gpu_system.hpp"
#include "topology/gpu_systems/sources.hpp"

namespace collsim::topology {

GpuSystem h200_system() {
  return {
      .name = "h200",
      .description = "HGX H200: 8 x H200 SXM, NVLink4 + NVSwitch gen3 (NVLS), 400 Gb/s NIC per GPU",
      .gpu = "H200 SXM 141GB",
      .gpus_per_node = 8,
      .gpus_per_node_source = "NVIDIA DGX H200 datasheet: 8 x H200 per system",
      .nvlink_bandwidth = {450e9,
                           "NVIDIA H200 datasheet: NVLink 900 GB/s (both directions), "
                           "18 NVLink4 links"},
      .nvls = {.efficiency = {0.85, "NCCL 2.29 tuner (src/tuning/nvls.cc nvlsEfficiency, Hopper)"},
               .latency = {25e-6, gpu_sources::kNcclNvlsLatency}},
      .nic_bandwidth = {50e9,
                        "NVIDIA DGX H200 datasheet: 8 x ConnectX-7, 400 Gb/s InfiniBand each"},
      .nic_latency = {14e-6, gpu_sources::kNcclNetLatency},
      .nccl = {.nvlinks = 18,
               .nvlink_rate = {20.6e9,
                               "NCCL 2.29 src/graph/topo.h SM90_NVLINK_BW: 20.6 GB/s per "
                               "Hopper NVLink"},
               .arch = NcclView::Arch::Hopper,
               .cpu = NcclView::Cpu::Intel,
               .cpu_source = "NVIDIA DGX H200 datasheet: 2 x Intel Xeon Platinum 8480C",
               .nic_efficiency = {0.94, gpu_sources::kIbNicEfficiency},
               .net_device_latency = {0.0, gpu_sources::kIbDeviceLatency},
               .channels = {24, gpu_sources::kH100Channels},
               .nvls_channels = {16, gpu_sources::kHopperNvlsChannels}},
  };
}

}  // namespace collsim::topology
