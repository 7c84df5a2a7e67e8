#pragma once
// GPU compute presets for `collsim llm` (docs/llm.md): what the roofline of one GPU takes.
// Peak dense (no sparsity) tensor-core FLOP/s per datatype, HBM bandwidth and capacity, each from
// the vendor's datasheet named in `source`. Network and system presets (NVLink, NICs) are not
// here: this file holds the GPU's compute and memory only.
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
};

/// Every preset, in a fixed order.
const std::vector<GpuSpec>& gpu_specs();
/// The preset called `name` (an alias like "h100" for "h100-sxm" too). Throws core::InputError
/// naming `field` and listing the valid names (with a did-you-mean) for an unknown one.
const GpuSpec& find_gpu(std::string_view name, std::string_view field);
/// The valid names, comma-separated (for help texts and errors).
std::string gpu_names();

}  // namespace collsim::compute
