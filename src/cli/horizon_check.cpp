#include "cli/horizon_check.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/units.hpp"

namespace collsim::cli {

namespace {

core::Bytes largest_size(const Work& w) {
  core::Bytes most{0};
  if (const auto* j = std::get_if<jobs::CollectiveJob>(&w.job)) {
    for (core::Bytes s : j->sizes) most = std::max(most, s);
  } else {
    for (const auto& m : std::get<jobs::ConcurrentJob>(w.job).members) {
      most = std::max(most, m.size);
    }
  }
  return most;
}

constexpr const char* kHorizon = "the simulation horizon (2^62 ps, about 53 days)";

}  // namespace

void check_horizon(const Work& w) {
  const topology::Topology& t = *w.topology;
  if (t.links().empty()) return;
  core::Bandwidth slowest = t.links().front().bandwidth;
  core::Time longest = core::Time::zero();
  for (const topology::Link& l : t.links()) {
    slowest = std::min(slowest, l.bandwidth);
    longest = std::max(longest, l.latency);
  }
  if (const topology::OpticalSpec* o = t.optical()) {
    slowest = std::min(slowest, o->wavelength_bandwidth);
  }
  const double half = static_cast<double>(core::kHorizonPs) / 2;
  // In doubles: the point is to refuse what would overflow, before any integer does. A route
  // has fewer hops than the network has nodes (a bound that costs no search, unlike diameter()).
  const double path_ps = static_cast<double>(longest.ps) * t.num_nodes();
  if (path_ps >= half) {
    throw core::InputError(
        fmt::format("link latency: {} on {} over up to {} hops is beyond {}; use a smaller latency",
                    core::to_string(longest), w.platform, t.num_nodes() - 1, kHorizon));
  }
  const core::Bytes size = largest_size(w);
  const double send_ps = static_cast<double>(size.count) * 1e12 / slowest.bytes_per_s;
  if (send_ps + path_ps >= half) {
    throw core::InputError(fmt::format(
        "sizes: {} on {} over its slowest link ({}) takes {:.3g} s, beyond {}; use a larger "
        "bandwidth or a smaller size",
        core::to_string(size), w.platform, core::to_string(slowest), send_ps / 1e12, kHorizon));
  }
}

}  // namespace collsim::cli
