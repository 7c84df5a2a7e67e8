#pragma once
// GPU compute presets for `collsim llm` (docs/llm.md): what the kernel model of one GPU takes
// (compute/kernel_time.hpp). Peak dense (no sparsity) tensor-core FLOP/s per datatype, HBM
// bandwidth and capacity, SM count and boost clock, each from the vendor's datasheet or
// architecture whitepaper named in `source`; the share of HBM bandwidth a streaming kernel
// reaches and the cost of one kernel launch, each from the measurement named in `kernel_source`.
// Network and system presets (NVLink, NICs) are not here: this file holds the GPU's compute and
// memory only.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/units.hpp"

namespace collsim::compute {

struct GpuSpec {
  std::string_view name;          ///< "a100-80gb", "h100", ...
  double peak_16bit = 0;          ///< dense FP16/BF16 tensor-core FLOP/s
  double peak_fp8 = 0;            ///< dense FP8 FLOP/s (0: none)
  core::Bandwidth hbm;            ///< HBM bandwidth, bytes/s
  core::Bytes memory;             ///< HBM capacity
  std::string_view source;        ///< the datasheet the figures come from
  std::uint32_t sms = 0;          ///< streaming multiprocessors: the GEMM's wave size
  double clock_hz = 0;            ///< the boost clock the dense peak is quoted at
  /// L2 read bandwidth in bytes per clock for the whole GPU (0: not published; every GEMM tile
  /// then runs at the full per-SM rate).
  double l2_bytes_per_clock = 0;
  double memory_efficiency = 0;   ///< measured share of `hbm` a streaming kernel reaches
  core::Time launch;              ///< one kernel launch, back to back in a stream
  std::string_view kernel_source; ///< where sms, clock, L2, memory_efficiency, launch come from
};

/// Every preset, in a fixed order.
const std::vector<GpuSpec>& gpu_specs();
/// The preset called `name` (an alias like "h100" for "h100-sxm" too). Throws core::InputError
/// naming `field` and listing the valid names (with a did-you-mean) for an unknown one.
const GpuSpec& find_gpu(std::string_view name, std::string_view field);
/// The valid names, comma-separated (for help texts and errors).
std::string gpu_names();

}  // namespace collsim::compute
