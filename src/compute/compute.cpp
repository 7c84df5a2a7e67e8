#include "compute/compute.hpp"

#include <fmt/format.h>

#include <charconv>

#include "compute/roofline.hpp"
#include "compute/systolic.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"

namespace collsim::compute {
namespace {

// "k1=v1,k2=v2" after the model's name and a colon.
std::vector<std::pair<std::string, std::string>> pairs(std::string_view text,
                                                       std::string_view field) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = text.substr(start, comma - start);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      throw core::InputError(fmt::format("{}: \"{}\" is not key=value", field, item));
    }
    out.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
    start = comma + 1;
  }
  return out;
}

std::uint32_t positive(const std::string& v, const std::string& key, std::string_view field) {
  std::uint32_t x = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || p != v.data() + v.size() || x == 0) {
    throw core::InputError(
        fmt::format("{}: {}: \"{}\" must be a whole number >= 1", field, key, v));
  }
  return x;
}

}  // namespace

std::unique_ptr<ComputeModel> make_compute_model(std::string_view spec, std::string_view field) {
  const std::size_t colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  const auto kv = colon == std::string_view::npos ? decltype(pairs("", "")){}
                                                  : pairs(spec.substr(colon + 1), field);
  if (name == "systolic") {
    SystolicParams p;
    for (const auto& [k, v] : kv) {
      const std::string f = fmt::format("{}: {}", field, k);
      if (k == "rows")
        p.rows = positive(v, k, field);
      else if (k == "cols")
        p.cols = positive(v, k, field);
      else if (k == "arrays")
        p.arrays = positive(v, k, field);
      else if (k == "clock")
        p.clock_hz = core::parse_frequency(v, f);
      else if (k == "memory")
        p.memory = core::parse_bandwidth(v, f);
      else
        throw core::InputError(
            fmt::format("{}: systolic has no parameter \"{}\"; valid: rows, "
                        "cols, arrays, clock, memory",
                        field, k));
    }
    return std::make_unique<Systolic>(p);
  }
  if (name == "roofline") {
    RooflineParams p;
    for (const auto& [k, v] : kv) {
      const std::string f = fmt::format("{}: {}", field, k);
      if (k == "peak") {
        double t = 0;
        const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), t);
        if (ec != std::errc() || ptr != v.data() + v.size() || !(t > 0)) {
          throw core::InputError(fmt::format("{}: \"{}\" must be TFLOP/s > 0, e.g. 312", f, v));
        }
        p.peak_flops = t * 1e12;
      } else if (k == "memory") {
        p.memory = core::parse_bandwidth(v, f);
      } else {
        throw core::InputError(fmt::format(
            "{}: roofline has no parameter \"{}\"; valid: peak (TFLOP/s), memory", field, k));
      }
    }
    return std::make_unique<Roofline>(p);
  }
  throw core::InputError(fmt::format(
      "{}: unknown compute model \"{}\"; valid: systolic[:rows=R,cols=C,arrays=A,clock=F], "
      "roofline[:peak=TFLOPS,memory=BANDWIDTH]",
      field, name));
}

}  // namespace collsim::compute
