// NCCL 2.29's tuner constants and latency formulas (tuner.hpp has the sources).
#include "collective/nccl/tuner.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace collsim::collective::nccl {

namespace {

using View = topology::NcclView;

// NCCL orders protocols LL, LL128, Simple; collsim's Protocol is Simple, LL128, LL.
int nccl_proto(Protocol p) { return 2 - static_cast<int>(p); }
int idx(TunerAlgo a) { return static_cast<int>(a); }

// cost_model.cc ncclTunerConstantsDefaults, microseconds.
constexpr double kBaseUs[7][3] = {{6.8, 14.0, 8.4},  // Tree
                                  {6.6, 14.0, 8.4},  // Ring
                                  {0, 0, 0},         // CollNet Direct
                                  {0, 0, 0},         // CollNet Chain
                                  {0, 0, 0},         // NVLS
                                  {0, 0, 0},         // NVLS Tree
                                  {8.0, 8.0, 8.0}};  // PAT
constexpr double kHwUs[3][7][3] = {{{0.6, 1.25, 4.0},
                                    {0.6, 1.9, 3.4},
                                    {0, 0, 3.7},
                                    {0, 0, 2.8},
                                    {0, 0, 25},
                                    {0, 0, 25},
                                    {0, 0, 4.0}},  // NVLink
                                   {{1.0, 1.9, 4.0},
                                    {1.0, 2.5, 5.7},
                                    {0, 0, 3.7},
                                    {0, 0, 2.8},
                                    {0, 0, 0},
                                    {0, 0, 0},
                                    {0, 0, 4.0}},  // PCI
                                   {{5.0, 8.5, 14},
                                    {2.7, 4.0, 14.0},
                                    {0, 0, 31},
                                    {0, 0, 30},
                                    {0, 0, 18},
                                    {0, 0, 20.9},
                                    {0, 0, 14}}};  // NET
// GB/s. llMaxBws rows: Volta/Intel, Ampere/AMD, Hopper, Blackwell; columns: 1, 2, more nodes.
constexpr double kLlMax[4][3] = {
    {39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}};
constexpr double kRingLl128PerCh[4][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}};
constexpr double kTreeLl128PerCh[4][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
constexpr double kTreePerCh[4][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
constexpr double kNvlsTreePerCh[4][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}};
// treeCorrectionFactor[protocol LL, LL128, Simple][log2(bytes / 64)].
constexpr double kTreeCorrection[3][24] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6,  .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6,  .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
     .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};

int arch(const Context& ctx) { return static_cast<int>(ctx.system.nccl.arch); }
// ncclTuningGetConstantsIndexes: index2 by node count; index1 by GPU on one node, CPU across.
int nodes_index(const Context& ctx) {
  return ctx.shape.nodes <= 2 ? static_cast<int>(ctx.shape.nodes) - 1 : 2;
}
// NCCL's collective channels; a system that does not say (a scenario file) has no per-channel
// caps, so they are infinite.
double channels(const Context& ctx) {
  const double c = ctx.system.nccl.channels.value;
  return c > 0 ? c : std::numeric_limits<double>::infinity();
}

// ncclTuningGetNsteps.
double nsteps(Op op, double ranks) {
  if (op == Op::AllReduce) return 2 * (ranks - 1);
  if (op == Op::AllGather || op == Op::ReduceScatter) return ranks - 1;
  return ranks;
}

// ring.cc getNetOverhead (us): x86 Intel 1, x86 AMD 2, other CPUs 1; Simple pays it 3 times.
double net_overhead_us(const Context& ctx, Protocol p) {
  const double o = ctx.system.nccl.cpu == View::Cpu::Amd ? 2.0 : 1.0;
  return p == Protocol::Simple ? 3 * o : o;
}

}  // namespace

double base_latency(TunerAlgo a, Protocol p) { return kBaseUs[idx(a)][nccl_proto(p)] * 1e-6; }

double hw_latency(Hw hw, TunerAlgo a, Protocol p) {
  return kHwUs[static_cast<int>(hw)][idx(a)][nccl_proto(p)] * 1e-6;
}

int log2i(std::uint64_t n) {
  int l = 0;
  while (n >>= 1) ++l;
  return l;
}

double tuner_latency(TunerAlgo a, Protocol p, Op op, const Context& ctx) {
  const double ranks = ctx.shape.ranks(), nodes = ctx.shape.nodes, ppn = ctx.shape.gpus;
  // ncclTuningGetHwIndexes: NVLink inside a node (PATH_LOC with one GPU per node reads as PCI,
  // where no step is intra-node anyway); the network between nodes.
  const Hw intra_hw = ctx.shape.gpus == 1 ? Hw::Pci : Hw::NVLink;
  const double intra = hw_latency(intra_hw, a, p);
  // The network latency plus the device's own (graph latencyInter), twice for Simple (flush).
  const double device = ctx.system.nccl.net_device_latency.value;
  const double inter =
      nodes == 1 ? intra
                 : hw_latency(Hw::Net, a, p) + device + (p == Protocol::Simple ? device : 0);
  const int lognodes = log2i(ctx.shape.nodes);
  const double base = base_latency(a, p);
  switch (a) {
    case TunerAlgo::Ring: {
      const double step = nodes > 1 ? std::max(intra, net_overhead_us(ctx, p) * 1e-6) : intra;
      const double net_steps = nodes == 1 ? 0 : (op == Op::AllReduce ? 2 * (nodes - 1) : nodes - 1);
      return base + (nsteps(op, ranks) - net_steps) * step + net_steps * inter;
    }
    case TunerAlgo::Tree:
      return base + 2 * ((ppn - 1) * intra + lognodes * inter);
    case TunerAlgo::CollNetDirect:  // + 0.4 us of arity serialization per other local GPU
      return base + 2 * (std::min(1.0, ppn - 1) * intra + (ppn - 1) * 0.4e-6) + inter;
    case TunerAlgo::CollNetChain:
      return base + 2 * (ppn - 1) * intra + inter;
    case TunerAlgo::Nvls:  // replaces the base: the NVLink latency alone
      return intra + (nodes > 1 ? inter : 0);
    case TunerAlgo::NvlsTree:
      return base + intra + 2 * lognodes * inter;
    case TunerAlgo::Pat: {  // pat.cc: its network latency, with Simple's device latency once
      const double net = (nodes == 1 ? hw_latency(intra_hw, a, p) : hw_latency(Hw::Net, a, p)) +
                         (p == Protocol::Simple ? device : 0);
      return base + lognodes * net / 3.5 + ranks * 2.8e-6;
    }
  }
  return base;
}

double ring_plateau_factor(Protocol p, Op op, double bytes, const Context& ctx) {
  if (p != Protocol::Simple || ctx.shape.nodes <= 1 || op != Op::AllReduce) return 1;
  const double c = ctx.system.nccl.channels.value > 0 ? ctx.system.nccl.channels.value : 1;
  if (bytes / (c * ctx.shape.ranks()) < 64) return 1;
  return ctx.system.nccl.arch < View::Arch::Ampere ? 1.9 : 1.4;
}

double ll_max_bandwidth(const Context& ctx) {
  const int row =
      ctx.shape.nodes == 1 ? arch(ctx) : (ctx.system.nccl.cpu == View::Cpu::Amd ? 1 : 0);
  return kLlMax[row][nodes_index(ctx)] * 1e9;
}

double ring_ll128_max_bandwidth(const Context& ctx) {
  return kRingLl128PerCh[arch(ctx)][nodes_index(ctx)] * 1e9 * channels(ctx);
}

double tree_max_bandwidth(Protocol p, const Context& ctx) {
  const auto& table = p == Protocol::LL128 ? kTreeLl128PerCh : kTreePerCh;
  return table[arch(ctx)][nodes_index(ctx)] * 1e9 * channels(ctx);
}

double nvls_tree_max_bandwidth(const Context& ctx) {
  const double cap =
      kNvlsTreePerCh[arch(ctx)][nodes_index(ctx)] * 1e9 * ctx.system.nccl.nvls_channels.value;
  return cap > 0 ? cap : std::numeric_limits<double>::infinity();
}

double tree_correction(Protocol p, double bytes) {
  if (bytes < 64) return kTreeCorrection[nccl_proto(p)][0];
  const int log = log2i(static_cast<std::uint64_t>(bytes) >> 6);
  return log < 23 ? kTreeCorrection[nccl_proto(p)][log] : 1.0;
}

}  // namespace collsim::collective::nccl
