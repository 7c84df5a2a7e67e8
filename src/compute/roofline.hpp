#pragma once
// Roofline compute model (Themis Sec. 5.2: "roofline FP16 performance from the total FLOPS
// available on current state-of-the-art accelerators", its reference being the NVIDIA A100):
//   time = max(flops / peak, bytes / memory bandwidth).
// Defaults: A100 dense FP16 tensor-core peak 312 TFLOP/s and 2,039 GB/s of HBM2e (A100 80 GB).
#include "compute/compute.hpp"

namespace collsim::compute {

struct RooflineParams {
  double peak_flops = 312e12;      ///< FLOP/s
  core::Bandwidth memory{2039e9};  ///< bytes/s
};

class Roofline final : public ComputeModel {
 public:
  /// Throws core::InputError for a peak or bandwidth <= 0.
  explicit Roofline(const RooflineParams& p);
  core::Time time(const PassWork& work) const override;
  std::string describe() const override;
  std::unique_ptr<ComputeModel> scaled(double compute, double memory) const override;

 private:
  RooflineParams p_;
};

}  // namespace collsim::compute
