#include "workload/workload.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace collsim::workload {

const char* to_string(Pass p) {
  switch (p) {
    case Pass::Forward:
      return "forward";
    case Pass::InputGradient:
      return "input-gradient";
    case Pass::WeightGradient:
      return "weight-gradient";
  }
  return "?";
}

const char* to_string(Scope s) {
  switch (s) {
    case Scope::All:
      return "all";
    case Scope::DataParallel:
      return "data-parallel";
    case Scope::ModelParallel:
      return "model-parallel";
  }
  return "?";
}

void validate(const Workload& w, std::uint32_t npus) {
  if (w.trace) return;  // checked node by node when its graph is built (chakra_graph.hpp)
  if (w.layers.empty()) throw core::InputError(fmt::format("workload {}: no layers", w.name));
  const std::uint32_t m = w.model_parallel_npus == 0 ? npus : w.model_parallel_npus;
  if (m > npus || npus % m != 0) {
    throw core::InputError(fmt::format(
        "workload {}: model-parallel group of {} NPUs does not divide the platform's {} NPUs",
        w.name, m, npus));
  }
  for (std::size_t i = 0; i < w.layers.size(); ++i) {
    const Layer& l = w.layers[i];
    const Comm& fwd = l.comm[0];
    if (fwd.collective && fwd.overlapped &&
        (fwd.needed_before <= i || fwd.needed_before >= w.layers.size())) {
      throw core::InputError(fmt::format(
          "workload {}, layer {}: its overlapped forward collective must be needed by a later "
          "layer (1..{} after it), not layer {}",
          w.name, l.name, w.layers.size() - 1 - i, fwd.needed_before));
    }
    for (std::size_t p = 0; p < kPasses; ++p) {
      const char* pass = to_string(static_cast<Pass>(p));
      if (l.compute[p].ps < 0) {
        throw core::InputError(
            fmt::format("workload {}, layer {}: negative {} compute time", w.name, l.name, pass));
      }
      const Comm& c = l.comm[p];
      if (c.collective && c.size.count == 0) {
        throw core::InputError(
            fmt::format("workload {}, layer {}: {} collective of 0 bytes", w.name, l.name, pass));
      }
    }
    if (l.update.ps < 0) {
      throw core::InputError(
          fmt::format("workload {}, layer {}: negative update time", w.name, l.name));
    }
  }
}

}  // namespace collsim::workload
