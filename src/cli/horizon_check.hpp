#pragma once
// A run's clock must stay below the simulation horizon (core::kHorizonPs, 2^62 ps). Checked once
// per job before anything runs, from the job's largest size and the platform's slowest link and
// longest hop latency, so that the event loop needs no check per event; the checked Time
// arithmetic (core/units.hpp) catches what this bound does not foresee.
#include "cli/run_jobs.hpp"

namespace collsim::cli {

/// Throws core::InputError ("sizes: 1 KiB on switch:8 over its slowest link (1e-06 B/s) takes
/// ... beyond the simulation horizon") when one message of the job's largest size over the
/// platform's slowest link (a wavelength on optical rings), plus the longest hop latency times
/// the number of nodes (more than any route's hops), reaches half the horizon.
void check_horizon(const Work& w);

}  // namespace collsim::cli
