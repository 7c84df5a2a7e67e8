#pragma once
// ASTRA-sim 2.x input files, read unchanged for `collsim astra`:
//
// Network (analytical backend YAML): per dimension `topology` (Ring, FullyConnected, Switch),
// `npus_count`, `bandwidth` (GB/s) and `latency` (ns), dimension 0 the innermost. Each becomes a
// dimension of a hierarchical platform (Themis Table 2 form): a bidirectional ring, a fully
// connected group or a switch, every link of the dimension at `bandwidth` with `latency` per hop
// (a switch dimension is two hops, NPU -> switch -> NPU, as in ASTRA-sim's analytical network).
// ASTRA-sim turns "GB/s" into bytes with 2^30 (its analytical network's unit conversion);
// collsim does the same unless `si_gigabytes` (1e9).
// ASTRA-sim 1.0's analytical network JSON (a .json file) too: `topologies-per-dim`,
// `units-count`, `links-count` (links per NPU), `link-latency` (ns; plus `router-latency` per
// hop), `link-bandwidth` (GB/s per link), `nic-latency` (per message), `dimensions-count`
// (checked), `topology-name` Hierarchical, `dimension-type` (read, no effect: N or P names the
// technology); `hbm-scale` must be 0 (no HBM model).
//
// System (2.x JSON, or 1.0's text file of "key: value" lines with implementations joined by
// '_'): every key is honoured or refused with a message that names it:
//   scheduling-policy            LIFO | FIFO: which waiting collective runs next (--order)
//   endpoint-delay               cycles (1 GHz) added to each message at its source
//   active-chunks-per-dimension  the hierarchical collective's active_chunks
//   preferred-dataset-splits     chunks per collective
//   all-reduce-implementation, reduce-scatter-, all-gather-, all-to-all-implementation
//                                one name per dimension (ring, direct, halvingDoubling,
//                                doubleBinaryTree; 1.0's oneRing etc. on one dimension): one
//                                dimension -> that flat algorithm; more -> `hierarchical` with
//                                that algorithm per dimension; each collective runs its own
//                                (AstraSystem::algorithms_for)
//   collective-optimization      localBWAware (reduce-scatter then all-gather across the
//                                dimensions: the baseline schedule) | baseline (an all-reduce
//                                per dimension: per-dim-all-reduce)
//   inter-dimension-scheduling   ascending | baseline (baseline) | offlineGreedy | themis (Themis)
//   intra-dimension-scheduling   FIFO | SCF | smallestFirst
//   local-mem-bw                 GB/s: the roofline's memory bandwidth for Chakra compute nodes
//   roofline-enabled             0 | 1: compute nodes from num_ops / tensor_size
//   peak-perf                    TFLOP/s of that roofline
//   boost-mode                   0 only (1 is refused)
// Throws core::InputError naming the file, the key and the reason.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "collective/algorithm.hpp"
#include "topology/topology.hpp"
#include "workload/formats/chakra.hpp"
#include "jobs/training.hpp"

namespace collsim::config {

struct AstraNetwork {
  std::vector<topology::DimSpec> dims;
  topology::Topology topology;
  core::Time message_delay;  ///< 1.0's nic-latency: added to each message at its source
};

/// Read an analytical network YAML (`si_gigabytes`: GB/s as 1e9 bytes/s instead of 2^30).
AstraNetwork read_astra_network(const std::string& path, bool si_gigabytes);

struct AstraSystem {
  std::string file;
  /// Per collective, from its *-implementation: flat (one dimension) or hierarchical.
  std::map<collective::Collective, collective::AlgorithmChoice> algorithms;
  /// Collectives whose implementation collsim cannot run here, and why (an error only if the
  /// workload runs them).
  std::map<collective::Collective, std::string> unavailable;
  /// The algorithm of each collective a workload runs (`used`, in first-use order); throws
  /// core::InputError for one collsim cannot run on this platform (`unavailable`).
  std::map<collective::Collective, collective::AlgorithmChoice> algorithms_for(
      const std::vector<collective::Collective>& used) const;
  std::uint32_t chunks = 1;
  jobs::IssueOrder order = jobs::IssueOrder::Fifo;
  core::Time endpoint_delay;
  workload::chakra::ToWorkloadOptions compute;  ///< roofline of Chakra compute nodes
  std::vector<std::string> used;                ///< "key -> what collsim does with it", in order
  /// Keys accepted without effect, one line each ("key: accepted, no effect: output-only").
  std::vector<std::string> notes;
  /// `local-mem-bw` for the compatibility mode's local-memory model (endpoint
  /// local_mem_gbps); 0 without the mode or the key.
  std::uint32_t local_mem_gbps = 0;
  /// With the compatibility mode on a one-dimension platform: each collective's flat algorithm
  /// (what collectives on communicator groups run, as `algorithms` holds the hierarchical one).
  std::map<collective::Collective, collective::AlgorithmChoice> flat;
};

/// Read a system JSON for a platform of `dims` dimensions. `compat` (ASTRA-sim compatibility
/// mode, docs/astra.md): the choices follow ASTRA-sim 2.x's Sys::generate_collective (one
/// dimension through its queue, the localBWAware walk with an all-reduce on the last
/// dimension, SCF by ASTRA-sim's insertion rule) and local-mem-bw sets local_mem_gbps.
/// `split` (>= 0): the platform's dimension `split` was broken in two (split_for_group); each
/// *-implementation list, read for `dims` dimensions, repeats that dimension's entry, as
/// ASTRA-sim's Sys::break_dimension does.
AstraSystem read_astra_system(const std::string& path, std::size_t dims, bool compat = false,
                              int split = -1);

/// ASTRA-sim's dimension splitting (Sys::break_dimension): where a model-parallel group of
/// `group` NPUs is not a product of the innermost dimensions, the dimension it ends inside is
/// broken into (group / NPUs inside it) x (the rest), both of its kind, bandwidth and latency.
/// Returns the dimension split (-1: none needed) and rewrites `net` (dims and topology). Throws
/// core::InputError naming `where` when the group does not fit (a size that does not divide) or
/// the dimension is a ring (its sub-rings would not be rings of the physical network).
int split_for_group(AstraNetwork& net, std::uint32_t group, const std::string& where);

}  // namespace collsim::config
