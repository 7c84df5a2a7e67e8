#include "compute/systolic.hpp"

#include <fmt/format.h>

#include <cmath>

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
  return core::Time{
      static_cast<std::int64_t>(std::llround(static_cast<double>(c) * 1e12 / p_.clock_hz))};
}

std::string Systolic::describe() const {
  return fmt::format("systolic {} x {}x{} @ {:g} MHz (output stationary)", p_.arrays, p_.rows,
                     p_.cols, p_.clock_hz / 1e6);
}

}  // namespace collsim::compute
