#pragma once
// One measured collective: what ran where, how long it took, and the derived bandwidths
// (DESIGN.md "Outputs and metrics"): algbw = size / time; busbw = algbw * NCCL factor.
#include <cstdint>
#include <string>

#include "collective/collective.hpp"
#include "core/units.hpp"

namespace collsim::report {

struct ResultRow {
  std::string platform;   ///< scenario's platform name
  std::string topology;   ///< e.g. "torus:8x8"
  std::uint32_t npus = 0;
  std::string backend;
  collective::Collective collective = collective::Collective::AllReduce;
  std::string algorithm;  ///< as the user wrote it, e.g. "ring:directions=2"
  std::uint32_t chunks = 1;
  core::Bytes size;
  core::Time time;
  double algbw_GBps = 0;  ///< 10^9 bytes/s
  double busbw_GBps = 0;
  double speedup = 1;     ///< time of the job's first algorithm at this size / this time
  std::uint64_t messages = 0;
  std::uint64_t bytes_sent = 0;  ///< bytes injected by all NPUs
  double max_link_utilization = 0;  ///< busiest link's bytes / (bandwidth * time)
};

/// Fill algbw, busbw from size, time, collective and npus.
void derive_bandwidths(ResultRow& row);

}  // namespace collsim::report
