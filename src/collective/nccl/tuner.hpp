#pragma once
// NCCL's own cost model: the constants and latency formulas of NCCL 2.29's tuner (the version of
// the measured log), learned from its source and cited by name:
//   src/tuning/cost_model.cc  ncclTunerConstantsDefaults (baseLatencies, hwLatencies, llMaxBws,
//                             perChMaxRingLL128Bws, perChMaxTreeLL128Bws, perChMaxTreeBws,
//                             perChMaxNVLSTreeBws) and treeCorrectionFactor;
//   src/tuning/ring.cc, tree.cc, nvls.cc, pat.cc, collnet.cc  the latency of each algorithm;
//   src/tuning/tuning_general.cc  ncclTuningGetNsteps, the table indexes.
// (NCCL 2.2x had the same numbers in src/graph/tuning.cc, except NVLSTree's network step, 14 us
// there, 20.9 us in 2.29.) docs/nccl.md "NCCL's tuner" lists them.
//
// Units: seconds and bytes/s (NCCL's tables are in us and GB/s = 1e9 bytes/s).
#include <cstdint>

#include "collective/nccl/model.hpp"

namespace collsim::collective::nccl {

/// NCCL's algorithms in its tables' order (NCCL_ALGO_*).
enum class TunerAlgo : std::uint8_t {
  Tree,
  Ring,
  CollNetDirect,
  CollNetChain,
  Nvls,
  NvlsTree,
  Pat
};
/// NCCL's link classes for hardware latency (NCCL_HW_NVLINK, NCCL_HW_PCI, NCCL_HW_NET).
enum class Hw : std::uint8_t { NVLink, Pci, Net };

/// baseLatencies[a][p] (seconds): the fixed cost NCCL charges an algorithm and protocol.
double base_latency(TunerAlgo a, Protocol p);
/// hwLatencies[hw][a][p] (seconds): NCCL's latency of one step over that link class.
double hw_latency(Hw hw, TunerAlgo a, Protocol p);
/// log2i (NCCL's integer log2: floor, 0 for n <= 1).
int log2i(std::uint64_t n);

/// NCCL's tuner latency (seconds) of algorithm `a` with protocol `p` running `op` on the shape of
/// `ctx` (ranks, nodes, GPUs per node; the system's CPU for the network post overhead and its
/// network device latency). Ring: base + (steps - network steps) x max(NVLink step, network
/// post overhead) + network steps x network step; tree: base + 2 ((ppn - 1) NVLink steps +
/// log2i(nodes) network steps); NVLS: its NVLink latency (+ one network step across nodes);
/// NVLS-tree: its NVLink latency + 2 log2i(nodes) network steps; CollNet Direct and Chain,
/// PAT: as their files in NCCL. Before the ring's size-dependent plateau factor
/// (ring_plateau_factor) and without the call overhead α, which NCCL does not model.
double tuner_latency(TunerAlgo a, Protocol p, Op op, const Context& ctx);
/// NCCL's "plateau effect of ring" (ring.cc ncclTuningRingModelSim): a multi-node Simple ring
/// all-reduce of at least 64 bytes per channel and rank has its latency x 1.4 (x 1.9 before
/// Ampere); 1 otherwise.
double ring_plateau_factor(Protocol p, Op op, double bytes, const Context& ctx);

/// llMaxBws (bytes/s): the cap on LL's bus bandwidth, by GPU generation on one node and by CPU
/// (Intel/Arm or AMD) across nodes, and by node count (1, 2, more).
double ll_max_bandwidth(const Context& ctx);
/// perChMaxRingLL128Bws x NCCL's channels (bytes/s): the cap on the LL128 ring's bus bandwidth
/// (infinite when the system does not give its channel count).
double ring_ll128_max_bandwidth(const Context& ctx);
/// perChMaxTreeBws, perChMaxTreeLL128Bws x channels (bytes/s): the caps on the tree's.
double tree_max_bandwidth(Protocol p, const Context& ctx);
/// perChMaxNVLSTreeBws x NVLS channels (bytes/s; infinite where NCCL's table has 0).
double nvls_tree_max_bandwidth(const Context& ctx);
/// treeCorrectionFactor[p][log2i(bytes / 64)] for a tree all-reduce below 2^23 x 64 bytes, else 1.
double tree_correction(Protocol p, double bytes);

}  // namespace collsim::collective::nccl
