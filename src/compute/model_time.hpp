#pragma once
// A compute model's time, computed in double picoseconds, as core::Time: rounded to the nearest
// picosecond, and refused (core::InputError naming the model and --compute) at or beyond the
// simulation horizon, where the conversion to int64 would be undefined (a clock, peak or memory
// bandwidth far too small for the layer).
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <string_view>

#include "core/error.hpp"
#include "core/units.hpp"

namespace collsim::compute {

inline core::Time model_time(double ps, std::string_view model) {
  if (!(ps < static_cast<double>(core::kHorizonPs))) {
    throw core::InputError(fmt::format(
        "--compute {}: a layer takes {:.3g} s, beyond the simulation horizon (2^62 ps, about 53 "
        "days); use a larger clock, peak or memory bandwidth",
        model, ps / 1e12));
  }
  return core::Time{static_cast<std::int64_t>(std::llround(ps))};
}

}  // namespace collsim::compute
