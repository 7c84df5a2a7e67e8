#pragma once
// One measured collective: what ran where, how long it took, and the derived bandwidths
// (docs/design.md "Outputs and metrics"): algbw = size / time; busbw = algbw * NCCL factor.
#include <cstdint>
#include <string>
#include <vector>

#include "collective/collective.hpp"
#include "core/units.hpp"
#include "network/backend.hpp"
#include "topology/topology.hpp"

namespace collsim::jobs {

/// One directed link's share of a run: utilization = bytes / (bandwidth x collective time).
struct LinkUse {
  /// "link", or a backend resource's kind ("npu-injection", "npu-ejection"; src = dst = its NPU,
  /// link = its index after the topology's links).
  std::string kind = "link";
  topology::LinkId link = 0;
  topology::NodeId src = 0;
  topology::NodeId dst = 0;
  std::uint32_t dim = 0;
  std::uint64_t bytes = 0;
  core::Time busy;  ///< time the link was serializing (flow: carrying any flow)
  double utilization = 0;
};

struct ResultRow {
  std::string platform;    ///< scenario's platform name
  std::string topology;    ///< e.g. "torus:8x8"
  std::uint32_t npus = 0;  ///< NPUs of the topology
  /// The platform's dimensions as it ran (kind, size, bandwidth per link, latency, links per
  /// NPU), so rows of a bandwidth or latency sweep can be told apart.
  std::vector<topology::DimSpec> dims;
  std::string group = "all";  ///< the communicators it ran on (communicator.hpp forms)
  std::uint32_t groups = 1;   ///< how many communicators ran at once
  std::uint32_t ranks = 0;    ///< ranks per communicator (busbw's n)
  std::string backend;
  std::string endpoint = "none";  ///< endpoint model with its non-default parameters
  collective::Collective collective = collective::Collective::AllReduce;
  std::string algorithm;  ///< as the user wrote it, e.g. "ring:directions=2"
  std::uint32_t chunks = 1;
  core::Bytes size;
  /// `-a all`: why this algorithm did not run here ("needs a power-of-two number of ranks"); the
  /// row has no figures. Empty for a row that ran.
  std::string skipped;
  core::Time time;
  double algbw_GBps = 0;  ///< 10^9 bytes/s
  double busbw_GBps = 0;
  double speedup = 1;  ///< time of the job's first algorithm at this size / this time
  /// Concurrent jobs: which job it ran in ("" for a collective that ran alone), its time when
  /// it runs alone on the same platform, and slowdown = time / alone_time.
  std::string concurrent;
  core::Time alone_time;
  double slowdown = 1;
  std::uint64_t messages = 0;
  std::uint64_t bytes_sent = 0;     ///< bytes injected by all NPUs
  double max_link_utilization = 0;  ///< busiest link's bytes / (bandwidth * time)
  /// Per dimension: bytes over its links / (sum of their bandwidths x time).
  std::vector<double> dim_utilization;
  /// Themis's average BW utilization (ISCA'22 Sec. 3.1): dim_utilization averaged with each
  /// dimension weighted by one NPU's bandwidth in it (its outgoing links there), i.e. bytes moved
  /// over the bandwidth budget x the time. Negative when the row has no link figures (reference
  /// rows).
  double bw_utilization = -1;
  /// Hierarchical collectives: per dimension, the share of the time it had a chunk-stage running
  /// (Themis Fig. 9 activity); empty for flat algorithms.
  std::vector<double> dim_activity;
  /// Hierarchical collectives: per dimension, the [begin, end) intervals in which a chunk-stage
  /// ran, from the run's start (activity_series() turns them into Fig. 9's time series).
  std::vector<std::vector<std::pair<core::Time, core::Time>>> dim_busy;
  std::vector<LinkUse> busiest_links;  ///< most utilized first, ties to the lower link id
  /// Every link and backend resource, by link id (filled only when the job asks: --links).
  std::vector<LinkUse> links;
  /// Backend-specific figures (packet: head-flit overhead, message latency percentiles, ...).
  std::vector<std::pair<std::string, double>> backend_metrics;
  /// Endpoint figures (ACE Fig. 11's breakdown, averages in ns: bus_queuing_ns, bus_transfer_ns,
  /// local_reduction_ns, chunk_queuing_ns, message_network_ns); empty for an ideal flat run.
  std::vector<std::pair<std::string, double>> endpoint_metrics;
};

/// Per dimension, the share of each window [k w, (k + 1) w) of [0, span) in which `busy` has at
/// least one interval (overlaps count once; the last window is measured over its part before
/// `span`). Themis Fig. 9 uses w = 100 us. Throws core::InputError if w is not positive.
std::vector<std::vector<double>> activity_series(
    const std::vector<std::vector<std::pair<core::Time, core::Time>>>& busy, core::Time span,
    core::Time window);

/// Fill algbw, busbw from size, time, collective and npus.
void derive_bandwidths(ResultRow& row);

/// Fill max_link_utilization, dim_utilization and the `busiest` most utilized links from a
/// backend's per-link statistics. Entries past the topology's links are the backend's
/// `resources` (NIC caps): they count for the maximum and the busiest list, not for the
/// dimensions. row.time must be set.
/// With `all`, every link's and resource's use is also stored there, by link id.
void fill_link_metrics(ResultRow& row, const topology::Topology& topo,
                       const std::vector<network::LinkStats>& stats, std::uint32_t busiest,
                       const std::vector<network::Resource>& resources = {},
                       std::vector<LinkUse>* all = nullptr);

}  // namespace collsim::jobs
