#pragma once
// The time of one GPU kernel (docs/llm.md "Compute"): the larger of its compute time and its HBM
// time, plus one launch.
//   - A GEMM (or a batch of equal GEMMs) runs as cuBLAS runs it: the output is cut into tiles,
//     one thread block per tile and SM, the blocks in waves of `sms` (NVIDIA, "Matrix
//     Multiplication Background User's Guide", 2023: Sec. 2.3 tile sizes 256x128 ... 64x64, Sec. 3
//     tile and wave quantization). Every tile of a wave costs a full tile's FLOPs (the edge tiles
//     are padded), so the compute time is waves x 2 tm tn k / (per-SM rate). The per-SM rate is
//     peak x full_tile_efficiency / sms, lowered for a tile whose operands need more L2 bandwidth
//     than the SM's share (a tile does tm tn / (tm + tn) FLOP per operand byte; an SM at its rate
//     needs peak / (clock x L2 bytes per clock) of them). The tile shape and a split of k (split-K, when the tiles do not fill
//     the SMs) are the ones of least time, as cuBLAS's heuristics aim for.
//   - Any kernel's memory time is its HBM bytes / (HBM bandwidth x memory_efficiency).
// `full_tile_efficiency` is the share of the dense peak a GEMM of whole waves of large tiles
// reaches (docs/llm.md "Calibration" says where its value comes from).
#include <cstdint>

#include "compute/gpu_specs.hpp"

namespace collsim::compute {

/// C[batch][m x n] = A[m x k] B[k x n], `batch` independent products of one shape.
struct GemmShape {
  double m = 0, n = 0, k = 0, batch = 1;
  double flops() const { return 2 * m * n * k * batch; }
};

struct GemmPlan {
  double seconds = 0;          ///< compute time (no launch, no HBM bound)
  std::uint32_t tile_m = 0, tile_n = 0, split_k = 1;
  double waves = 0;            ///< thread blocks / sms, rounded up
  double split_bytes = 0;      ///< split-K's fp32 partial sums, written and read back
};

/// The tile, split and compute time cuBLAS-like tiling gives `g` on `gpu`. Throws
/// core::InputError for an efficiency outside (0, 1] or a GPU without SMs.
GemmPlan plan_gemm(const GpuSpec& gpu, const GemmShape& g, double full_tile_efficiency);

/// What one kernel does: executed FLOPs on tensor cores (a GEMM shape) or elsewhere, and HBM bytes.
struct KernelWork {
  GemmShape gemm;      ///< m = 0: not a GEMM
  double flops = 0;    ///< executed FLOPs besides the GEMM's (element-wise math)
  double bytes = 0;    ///< HBM bytes read and written
};

struct KernelTime {
  double compute = 0, memory = 0, launch = 0;
  double seconds() const { return (compute > memory ? compute : memory) + launch; }
};

/// max(GEMM compute, bytes / (hbm x memory_efficiency)) + launch. Element-wise FLOPs are counted
/// as free (they hide under the memory time of every kernel that has them).
KernelTime kernel_time(const GpuSpec& gpu, const KernelWork& w, double full_tile_efficiency);

}  // namespace collsim::compute
