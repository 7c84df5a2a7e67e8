#include "compute/gpu_specs.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/suggest.hpp"

namespace collsim::compute {

namespace {
constexpr std::uint64_t kGiB = 1ull << 30;
}

const std::vector<GpuSpec>& gpu_specs() {
  static const std::vector<GpuSpec> specs = {
      {"a100-40gb", 312e12, 0, core::Bandwidth{1555e9}, core::Bytes{40 * kGiB},
       "NVIDIA A100 Tensor Core GPU datasheet (2021), SXM4 40 GB: 312 TFLOP/s dense FP16/BF16, "
       "1,555 GB/s HBM2"},
      {"a100-80gb", 312e12, 0, core::Bandwidth{2039e9}, core::Bytes{80 * kGiB},
       "NVIDIA A100 Tensor Core GPU datasheet (2021), SXM4 80 GB: 312 TFLOP/s dense FP16/BF16, "
       "2,039 GB/s HBM2e"},
      {"h100-sxm", 989.4e12, 1978.9e12, core::Bandwidth{3.35e12}, core::Bytes{80 * kGiB},
       "NVIDIA H100 Tensor Core GPU datasheet (2023), SXM5: 1,979 TFLOP/s BF16 with sparsity "
       "(989 dense), FP8 3,958 with sparsity (1,979 dense), 3.35 TB/s HBM3, 80 GB"},
      {"h200-sxm", 989.4e12, 1978.9e12, core::Bandwidth{4.8e12}, core::Bytes{141000000000ull},
       "NVIDIA H200 Tensor Core GPU datasheet (2024), SXM: BF16 989 TFLOP/s dense, FP8 1,979 "
       "dense, 4.8 TB/s HBM3e, 141 GB"},
      {"b200", 2.25e15, 4.5e15, core::Bandwidth{8e12}, core::Bytes{180000000000ull},
       "NVIDIA HGX B200 datasheet (2024), per GPU: 2.25 PFLOP/s dense FP16/BF16 (4.5 with "
       "sparsity), FP8 4.5 dense, 8 TB/s HBM3e, 180 GB (1,440 GB per 8 GPUs)"},
  };
  return specs;
}

std::string gpu_names() {
  std::string out;
  for (const GpuSpec& g : gpu_specs()) out += (out.empty() ? "" : ", ") + std::string(g.name);
  return out + " (aliases: h100 = h100-sxm, h200 = h200-sxm, a100 = a100-80gb)";
}

const GpuSpec& find_gpu(std::string_view name, std::string_view field) {
  std::string_view key = name;
  if (key == "h100") key = "h100-sxm";
  if (key == "h200") key = "h200-sxm";
  if (key == "a100") key = "a100-80gb";
  std::vector<std::string_view> names;
  for (const GpuSpec& g : gpu_specs()) {
    if (g.name == key) return g;
    names.push_back(g.name);
  }
  throw core::InputError(fmt::format("{}: unknown GPU \"{}\"{}; valid: {}", field, name,
                                     core::did_you_mean(name, names), gpu_names()));
}

}  // namespace collsim::compute
