// Hierarchical multi-rail collectives (Themis, ISCA'22, Sec. 2.3 and 4): one basic algorithm per
// dimension, chunks pipelined across the dimensions, with the baseline or the Themis schedule.
// It is composed at run time by the scheduler (scheduler/hierarchical.hpp) from per-dimension
// stage programs, so it has no build function here; this entry gives it a name, parameters and a
// place in `collsim list`.
#include <string>

#include "collective/algorithm.hpp"

namespace collsim::collective {

namespace {

constexpr std::string_view kSchedules[] = {"baseline", "themis", "per-dim-all-reduce",
                                           "astra-localbw", "ace"};
constexpr std::string_view kIntra[] = {"fifo", "lifo", "scf", "scf-astra"};
constexpr std::string_view kGroups[] = {"auto", "all"};
constexpr std::string_view kFlat[] = {"refuse", "run"};
// "default" first (index 0: the kind's); the others are registered algorithm names, except
// ring-both (ring:directions=2), as scheduler/hierarchical.cpp spec_from_choice reads them.
constexpr std::string_view kDimAlgorithms[] = {
    "default",          "ring", "ring-both", "direct", "halving-doubling", "recursive-doubling",
    "package-doubling",
};

}  // namespace

AlgorithmInfo hierarchical_info() {
  AlgorithmInfo a{
      "hierarchical",
      "Multi-rail hierarchical collective: reduce-scatter stages over the dimensions, then "
      "all-gather stages back, each on every group of the dimension at once with the dimension's "
      "basic algorithm (ring for rings and lines, direct for fc, halving-doubling for switches "
      "of a power of two NPUs and direct for others, package-doubling or direct for local "
      "switches); "
      "all-to-all: an all-to-all in every dimension (ring on rings, direct on fc and switches); "
      "--chunks chunks flow through per-dimension queues (Themis uses 64)",
      "Themis (ISCA'22) Sec. 2.3, 4.2 (Algorithm 1), 4.3, 5.3; Table 1; ACE (ISCA'21) Table 5",
      {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather,
       Collective::AllToAll},
      {choice_param("schedule", kSchedules,
                    "inter-dimension order: baseline (RS over dims 1..D, AG back, every chunk: "
                    "Sec. 2.3), themis (Algorithm 1: least-loaded dimension first), or "
                    "per-dim-all-reduce (a full all-reduce in each dimension: the authors' "
                    "ASTRA-sim baseline), or astra-localbw (RS over dims 1..D-1, one all-reduce "
                    "on D, AG back: ASTRA-sim 2.x's localBWAware all-reduce), or ace (RS on dim "
                    "1, an all-reduce on each other dimension, AG on dim 1: ACE Table 5)"),
       choice_param(
           "intra", kIntra,
           "order of a dimension's waiting chunks: fifo, lifo, scf (smallest chunk first, a "
           "chunk's last stage to the tail), scf-astra (ASTRA-sim 2.x's reading: its "
           "second-to-last stage and all-reduce stages to the tail)"),
       count_param("active_chunks", 1, 1, 1024,
                   "chunk-stages a dimension runs at once (Sec. 4.3: several when one chunk cannot "
                   "saturate it)"),
       choice_param("groups", kGroups,
                    "auto: where every group of a dimension would do the same (links of its own, "
                    "same shape; analytical, queue or flow backend without NIC caps; ideal "
                    "endpoint; no trace), simulate the first group only: same times, far fewer "
                    "messages; all: simulate every group"),
       choice_param("flat", kFlat,
                    "a platform of one dimension: refuse (use a flat algorithm) or run the "
                    "dimension's stages through its queue, so that active_chunks bounds the "
                    "chunks in flight (ASTRA-sim 2.x on a one-dimension network)")},
      nullptr};
  // Per-dimension overrides of Table 1's basic algorithm (Themis Sec. 4.5: any algorithm per
  // dimension), one key per dimension index: the scheduler checks K against the platform.
  core::ParamSpec dim = choice_param(
      "dimK", kDimAlgorithms,
      "dimension K's algorithm (K = 0 innermost, any dimension of the platform): default (the "
      "kind's, Table 1), ring, ring-both (ring both ways), direct, halving-doubling, "
      "recursive-doubling, package-doubling");
  dim.indexed = true;
  a.params.push_back(dim);
  a.staged = true;
  return a;
}

}  // namespace collsim::collective
