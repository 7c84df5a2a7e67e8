#pragma once
// Output-stationary systolic arrays (SCALE-Sim's OS dataflow, Samajdar et al. 2018), the compute
// model of MultiTree (Sec. V-A: 16 PEs of 32 x 32 MACs, output stationary, 1 GHz) and ACE
// (Sec. 5: one 256 x 256 array at 700 MHz).
//
// A GEMM C[m x n] = A[m x k] B[k x n] is cut into folds of R x C outputs (R array rows over m,
// C columns over n): ceil(m / R) ceil(n / C) folds. In a fold the operands enter skewed, every
// PE accumulates its output over k cycles, and the results drain out: SCALE-Sim's OS fold takes
//   2 R + C + k - 2 cycles.
// With A arrays the folds are dealt out evenly: ceil(folds / A) rounds. A pass's GEMMs run one
// after the other; work outside GEMMs (PassWork::flops beyond them, element-wise layers) costs
// nothing here, as in SCALE-Sim, and memory is assumed to keep up (MultiTree: double buffering
// and sufficient memory bandwidth).
#include <optional>

#include "compute/compute.hpp"

namespace collsim::compute {

struct SystolicParams {
  std::uint32_t rows = 32;    ///< R (MultiTree Table III: 32 x 32 MAC array)
  std::uint32_t cols = 32;    ///< C
  std::uint32_t arrays = 16;  ///< MultiTree Table III: 16 PEs
  double clock_hz = 1e9;      ///< MultiTree Table III: 1 GHz
  /// Memory bandwidth; when set, a pass takes at least its bytes over it (a memory-bound layer,
  /// ACE Sec. 3). Unset: memory keeps up (MultiTree).
  std::optional<core::Bandwidth> memory;
};

class Systolic final : public ComputeModel {
 public:
  /// Throws core::InputError for a zero dimension, zero arrays or a clock <= 0.
  explicit Systolic(const SystolicParams& p);
  /// Cycles of one GEMM (0 if any of m, n, k is 0).
  std::uint64_t cycles(const Gemm& g) const;
  core::Time time(const PassWork& work) const override;
  std::string describe() const override;
  std::unique_ptr<ComputeModel> scaled(double compute, double memory) const override;

 private:
  SystolicParams p_;
};

}  // namespace collsim::compute
