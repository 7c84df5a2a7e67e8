#include "compute/roofline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "compute/model_time.hpp"
#include "core/error.hpp"

namespace collsim::compute {

Roofline::Roofline(const RooflineParams& p) : p_(p) {
  if (!(p.peak_flops > 0)) throw core::InputError("roofline: peak must be > 0");
  if (!(p.memory.bytes_per_s > 0)) throw core::InputError("roofline: memory must be > 0");
}

core::Time Roofline::time(const PassWork& work) const {
  const double s = std::max(work.flops / p_.peak_flops, work.bytes / p_.memory.bytes_per_s);
  return model_time(s * 1e12, "roofline");
}

std::string Roofline::describe() const {
  return fmt::format("roofline {:g} TFLOP/s, {}", p_.peak_flops / 1e12, core::to_string(p_.memory));
}

std::unique_ptr<ComputeModel> Roofline::scaled(double compute, double memory) const {
  RooflineParams p = p_;
  p.peak_flops *= compute;
  p.memory.bytes_per_s *= memory;
  return std::make_unique<Roofline>(p);
}

}  // namespace collsim::compute
