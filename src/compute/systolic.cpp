#include "compute/systolic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "compute/model_time.hpp"
#include "core/error.hpp"

namespace collsim::compute {

Systolic::Systolic(const SystolicParams& p) : p_(p) {
  if (p.rows == 0 || p.cols == 0 || p.arrays == 0) {
    throw core::InputError("systolic: rows, cols and arrays must be >= 1");
  }
  if (!(p.clock_hz > 0)) throw core::InputError("systolic: clock must be > 0");
}

std::uint64_t Systolic::cycles(const Gemm& g) const {
  if (g.m == 0 || g.n == 0 || g.k == 0) return 0;
  const std::uint64_t folds = ((g.m + p_.rows - 1) / p_.rows) * ((g.n + p_.cols - 1) / p_.cols);
  const std::uint64_t rounds = (folds + p_.arrays - 1) / p_.arrays;
  return rounds * (2ull * p_.rows + p_.cols + g.k - 2);
}

core::Time Systolic::time(const PassWork& work) const {
  std::uint64_t c = 0;
  for (const Gemm& g : work.gemms) c += cycles(g);
  const core::Time t = model_time(static_cast<double>(c) * 1e12 / p_.clock_hz, "systolic");
  if (!p_.memory || work.bytes <= 0) return t;
  const core::Time mem = model_time(work.bytes * 1e12 / p_.memory->bytes_per_s, "systolic");
  return std::max(t, mem);
}

std::unique_ptr<ComputeModel> Systolic::scaled(double compute, double memory) const {
  SystolicParams p = p_;
  p.clock_hz *= compute;  // a share of the array's time is a slower array
  if (p.memory) p.memory = core::Bandwidth{p.memory->bytes_per_s * memory};
  return std::make_unique<Systolic>(p);
}

std::string Systolic::describe() const {
  return fmt::format("systolic {} x {}x{} @ {:g} MHz (output stationary){}", p_.arrays, p_.rows,
                     p_.cols, p_.clock_hz / 1e6,
                     p_.memory ? ", memory " + core::to_string(*p_.memory) : std::string());
}

}  // namespace collsim::compute
