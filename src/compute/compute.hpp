#pragma once
// Compute models: how long an NPU takes for one pass of one layer. The work of a pass is a list
// of matrix products (convolutions lowered to GEMMs, im2col style) plus its FLOPs and the bytes it
// moves to and from memory; a model turns that into time.
//   systolic  output-stationary systolic arrays (SCALE-Sim's OS dataflow; MultiTree Sec. V:
//             16 arrays of 32 x 32 at 1 GHz; ACE Sec. 5: one 256 x 256 at 700 MHz);
//   roofline  max(FLOPs / peak FLOP/s, bytes / memory bandwidth) (Themis Sec. 5.2, FP16).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/units.hpp"

namespace collsim::compute {

/// C[m x n] = A[m x k] B[k x n]: 2 m n k FLOPs.
struct Gemm {
  std::uint64_t m = 0, n = 0, k = 0;
};

/// The work of one pass of one layer on one NPU (for its share of the mini-batch).
struct PassWork {
  std::vector<Gemm> gemms;  ///< the matrix products (systolic arrays run these)
  double flops = 0;         ///< all floating-point operations, GEMMs included
  double bytes = 0;         ///< memory traffic: inputs, weights and outputs read or written once
};

class ComputeModel {
 public:
  virtual ~ComputeModel() = default;
  virtual core::Time time(const PassWork& work) const = 0;
  /// e.g. "systolic 16 x 32x32 @ 1 GHz"
  virtual std::string describe() const = 0;
  /// The same NPU left with `compute` of its compute and `memory` of its memory bandwidth (both
  /// in (0, 1]): what training keeps while an endpoint runs collectives (ACE Sec. 5).
  virtual std::unique_ptr<ComputeModel> scaled(double compute, double memory) const = 0;
};

/// A compute model from text (CLI --compute, scenario `compute:`):
///   systolic[:rows=R,cols=C,arrays=A,clock=F,memory=B]   defaults MultiTree's 16 x 32x32 at
///                                               1 GHz, memory unbounded; ACE:
///                                               systolic:rows=256,cols=256,arrays=1,clock=700MHz,
///                                               memory=900GB/s
///   roofline[:peak=P,memory=B]                  P in TFLOPS, B a bandwidth; defaults A100 FP16
/// Throws core::InputError naming `field`, the key and the reason.
std::unique_ptr<ComputeModel> make_compute_model(std::string_view spec, std::string_view field);

}  // namespace collsim::compute
