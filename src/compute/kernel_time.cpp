#include "compute/kernel_time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace collsim::compute {

namespace {

struct Tile {
  std::uint32_t m, n;
};
// cuBLAS's tile sizes on Ampere-class GPUs, most to least efficient (NVIDIA, Matrix
// Multiplication Background User's Guide, Sec. 2.3).
constexpr Tile kTiles[] = {{256, 128}, {128, 256}, {128, 128}, {256, 64}, {64, 256},
                           {128, 64},  {64, 128},  {64, 64}};
// Split-K never cuts k below this (one k-slice per pipeline stage of a tile).
constexpr double kMinSplitDepth = 256;

}  // namespace

GemmPlan plan_gemm(const GpuSpec& gpu, const GemmShape& g, double eff) {
  if (!(eff > 0 && eff <= 1)) {
    throw core::InputError(fmt::format("matmul_efficiency: must be in (0, 1], got {}", eff));
  }
  if (gpu.sms == 0) throw core::InputError(fmt::format("gpu {}: no SM count", gpu.name));
  GemmPlan best;
  if (g.m <= 0 || g.n <= 0 || g.k <= 0 || g.batch <= 0) return best;
  const double sms = gpu.sms;
  const double per_sm = gpu.peak_16bit * eff / sms;  // FLOP/s of one SM on a large tile
  // FLOP per L2 byte an SM needs to run at its peak rate (16-bit operands).
  const double need = gpu.l2_bytes_per_clock > 0 && gpu.clock_hz > 0
                          ? gpu.peak_16bit / sms / (gpu.clock_hz * gpu.l2_bytes_per_clock / sms)
                          : 0;
  best.seconds = -1;
  double best_cost = 0;
  for (const Tile& t : kTiles) {
    // Per k step a tile reads (tm + tn) 16-bit operands and does 2 tm tn FLOPs.
    const double intensity = double(t.m) * t.n / (t.m + t.n);
    const double rate = need > 0 ? per_sm * std::min(1.0, intensity / need) : per_sm;
    const double tiles = std::ceil(g.m / t.m) * std::ceil(g.n / t.n) * g.batch;
    std::uint32_t max_split = 1;
    if (tiles < sms) {
      max_split = static_cast<std::uint32_t>(
          std::max(1.0, std::min(std::floor(sms / tiles), std::floor(g.k / kMinSplitDepth))));
    }
    for (std::uint32_t split = 1; split <= max_split; ++split) {
      const double blocks = tiles * split;
      const double waves = std::ceil(blocks / sms);
      const double depth = std::ceil(g.k / split);
      const double s = waves * 2.0 * t.m * t.n * depth / rate;
      // Split-K writes and reads back fp32 partial sums: chosen only where that pays.
      const double partials = split > 1 ? 2.0 * 4 * g.m * g.n * g.batch * split : 0;
      const double cost = std::max(s, partials / (gpu.hbm.bytes_per_s * gpu.memory_efficiency));
      if (best.seconds < 0 || cost < best_cost) {
        best_cost = cost;
        best.seconds = s;
        best.tile_m = t.m;
        best.tile_n = t.n;
        best.split_k = split;
        best.waves = waves;
        best.split_bytes = partials;
      }
    }
  }
  return best;
}

KernelTime kernel_time(const GpuSpec& gpu, const KernelWork& w, double eff) {
  KernelTime t;
  double bytes = w.bytes;
  if (w.gemm.m > 0) {
    const GemmPlan p = plan_gemm(gpu, w.gemm, eff);
    t.compute = p.seconds;
    bytes += p.split_bytes;
  }
  t.memory = bytes / (gpu.hbm.bytes_per_s * gpu.memory_efficiency);
  t.launch = gpu.launch.seconds();
  return t;
}

}  // namespace collsim::compute
