#include "compute/gpu_specs.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/suggest.hpp"

namespace collsim::compute {

namespace {
constexpr std::uint64_t kGiB = 1ull << 30;
constexpr std::uint32_t kA100Sms = 108;
// A read kernel on an A100 80 GB SXM reaches 1.80 of its 2.039 TB/s (0.88, NVIDIA developer
// forum "Trouble to reach peak bandwidth of A100", 2025, confirmed by Nsight Compute; the GTC talk
// it cites found no kernel beyond about 90 %). No such measurement is cited for the other GPUs:
// they take A100's share.
constexpr double kMeasuredHbmShare = 1.80 / 2.039;
// Kernels launched back to back in one stream: 3.8 us per launch of a 2.9 us kernel (NVIDIA
// Technical Blog, "Getting Started with CUDA Graphs", 2019): 0.9 us each.
constexpr core::Time kLaunch = core::Time::from_ps(900000);
constexpr std::string_view kA100Kernel =
    "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 108 SMs, 1,410 MHz boost, L2 "
    "read bandwidth 5,120 bytes/clock; HBM share 0.88 measured (NVIDIA developer forum, 2025); "
    "launch 0.9 us (NVIDIA CUDA Graphs blog, 2019)";
constexpr std::string_view kH100Kernel =
    "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022): 132 SMs (SXM5), 1,830 MHz boost "
    "(989.4 TFLOP/s = 132 SMs x 4,096 FLOP/clock); L2 bandwidth not published; HBM share and "
    "launch as A100 (no H100 measurement cited)";
constexpr std::string_view kB200Kernel =
    "NVIDIA Blackwell architecture technical brief (2024): 148 SMs per B200; L2 bandwidth not "
    "published; HBM share and launch as A100 (no B200 measurement cited)";
}  // namespace

const std::vector<GpuSpec>& gpu_specs() {
  static const std::vector<GpuSpec> specs = {
      {"a100-40gb", 312e12, 0, core::Bandwidth{1555e9}, core::Bytes{40 * kGiB},
       "NVIDIA A100 Tensor Core GPU datasheet (2021), SXM4 40 GB: 312 TFLOP/s dense FP16/BF16, "
       "1,555 GB/s HBM2",
       kA100Sms, 1.41e9, 5120, kMeasuredHbmShare, kLaunch, kA100Kernel},
      {"a100-80gb", 312e12, 0, core::Bandwidth{2039e9}, core::Bytes{80 * kGiB},
       "NVIDIA A100 Tensor Core GPU datasheet (2021), SXM4 80 GB: 312 TFLOP/s dense FP16/BF16, "
       "2,039 GB/s HBM2e",
       kA100Sms, 1.41e9, 5120, kMeasuredHbmShare, kLaunch, kA100Kernel},
      {"h100-sxm", 989.4e12, 1978.9e12, core::Bandwidth{3.35e12}, core::Bytes{80 * kGiB},
       "NVIDIA H100 Tensor Core GPU datasheet (2023), SXM5: 1,979 TFLOP/s BF16 with sparsity "
       "(989 dense), FP8 3,958 with sparsity (1,979 dense), 3.35 TB/s HBM3, 80 GB",
       132, 1.83e9, 0, kMeasuredHbmShare, kLaunch, kH100Kernel},
      {"h200-sxm", 989.4e12, 1978.9e12, core::Bandwidth{4.8e12}, core::Bytes{141000000000ull},
       "NVIDIA H200 Tensor Core GPU datasheet (2024), SXM: BF16 989 TFLOP/s dense, FP8 1,979 "
       "dense, 4.8 TB/s HBM3e, 141 GB",
       132, 1.83e9, 0, kMeasuredHbmShare, kLaunch, kH100Kernel},
      {"b200", 2.25e15, 4.5e15, core::Bandwidth{8e12}, core::Bytes{180000000000ull},
       "NVIDIA HGX B200 datasheet (2024), per GPU: 2.25 PFLOP/s dense FP16/BF16 (4.5 with "
       "sparsity), FP8 4.5 dense, 8 TB/s HBM3e, 180 GB (1,440 GB per 8 GPUs)",
       148, 0, 0, kMeasuredHbmShare, kLaunch, kB200Kernel},
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
