#pragma once
// The LLM generator: one Megatron-LM training iteration as a workload graph (graph.hpp), so that
// tensor-, pipeline-, data-, expert- and context-parallel traffic run in one simulation and share
// the machine's links, NICs and switches (docs/llm.md).
//
// Ranks are in Megatron's order, TP innermost, then CP, EP / DP, PP outermost
// (megatron/core/parallel_state.py, order "tp-cp-ep-dp-pp"); GPU = rank. A timeline per pipeline
// stage runs the schedule (GPipe, 1F1B or interleaved 1F1B) of the data-parallel replica with
// index 0 on the ranks of that stage; the other replicas do the same at the same time and are not
// walked. Every collective runs on its real communicators: TP and CP groups inside the replica,
// DP and EP groups across replicas, so the ranks of other replicas take part in those
// collectives (and only in those). With `one_rail` (the standard rail-optimised cluster, where
// each GPU has its own NVSwitch port and its own share of the node's NICs), the ranks with
// tensor-parallel index 0 stand for their TP group's other ranks in pipeline sends and DP, EP and
// CP traffic, which run the same on their own rails; TP collectives always run on the whole TP
// group.
//
// Per op (a forward or backward pass of one virtual stage for one micro-batch), per layer:
//   forward:  [TP all-gather (SP)] attention [CP ring steps overlapping the attention core]
//             TP all-reduce (or reduce-scatter with SP) [TP all-gather (SP)]
//             [EP dispatch all-to-all] MLP or experts [EP combine all-to-all]
//             TP all-reduce (or reduce-scatter);
//   backward: the same collectives in reverse around the backward compute (full recomputation
//             first runs the layer's forward again, collectives included);
// with ZeRO-3 / FSDP each layer's parameters are all-gathered one layer ahead and its gradients
// reduce-scattered behind. Activations (forward) and their gradients (backward) cross stage
// boundaries as messages, one per sending rank, each to the same rank of the next stage. Gradient
// buckets (Megatron DDP: max(40M, 1M x DP) parameters) are reduced on the data-parallel group
// as their layers' last backward ends (overlap_grad_reduce) or after the last backward; the tied
// embedding's gradient is all-reduced between the first and last stage; then the optimizer step
// and, with the distributed optimizer (ZeRO-1/2), the parameter all-gathers.
#include <cstdint>
#include <vector>

#include "core/units.hpp"
#include "workload/graph.hpp"
#include "workload/llm_config.hpp"

namespace collsim::workload {

/// What the compute model gives per transformer layer, one micro-batch, one GPU.
struct LlmLayerTimes {
  core::Time fwd_attention, fwd_mlp;  ///< forward: before and after the attention's TP collective
  core::Time bwd_attention, bwd_mlp;  ///< backward (with selective recomputation)
  core::Time attention_core;          ///< the forward attention core (what CP steps overlap)
};

struct LlmGraphInput {
  LlmParallel parallel;
  std::uint32_t layers = 0;
  bool moe = false;
  LlmLayerTimes layer;
  core::Time embed_fwd, embed_bwd, head_fwd, head_bwd;
  core::Bytes tp_bytes;  ///< one TP collective's size
  std::uint32_t tp_per_pass = 0;
  core::Bytes pp_bytes;  ///< one activation message per sending rank
  core::Bytes ep_bytes;  ///< one rank's send buffer of an all-to-all
  core::Bytes cp_bytes;  ///< one ring-attention step's key/value block per rank
  double layer_dense_params = 0, layer_expert_params = 0, embed_params = 0;  ///< per GPU
  std::vector<core::Time> optimizer;  ///< per stage
  bool one_rail = false;              ///< see above
  /// Every rank its own timeline (no replica or rail standing for another): pp x dp x tp x cp
  /// timelines, each with its own messages; what --export-chakra writes. Slower, and exact where
  /// the replicas' traffic would meet.
  bool all_ranks = false;
  /// Every TP group fills a node's scale-up switch and nothing else crosses it (the standard
  /// cluster with tp = GPUs per node): the TP groups share a timing class (workload/graph.hpp),
  /// so the runner simulates each kind of TP collective once.
  bool tp_alone = false;
};

/// A forward ('F') or backward ('B') pass of one virtual stage for one micro-batch.
struct LlmOp {
  bool backward = false;
  std::uint32_t micro_batch = 0, chunk = 0;
  std::uint32_t first = 0, last = 0;  ///< its first and last node on the stage's timeline
};

struct LlmGraph {
  Graph graph;
  std::vector<std::vector<LlmOp>> ops;  ///< per timeline, in schedule order
  /// Per stage: the timeline that reports it (rank (0, 0, 0, stage)'s).
  std::vector<std::uint32_t> stage_timeline;
  /// Categories: compute, optimizer, tp, pp, dp, ep, cp (their indices in graph.categories).
  std::uint32_t c_compute = 0, c_optimizer = 0, c_tp = 0, c_pp = 0, c_dp = 0, c_ep = 0, c_cp = 0;
};

/// The op order of stage `s` (Megatron's schedules: GPipe; 1F1B; interleaved 1F1B with vpp
/// chunks, forward_backward_pipelining_with_interleaving).
std::vector<LlmOp> stage_schedule(const LlmParallel& p, std::uint32_t s);

/// The graph of one iteration. Throws core::InputError if the layers do not divide into
/// pp x vpp stages.
LlmGraph llm_graph(const LlmGraphInput& in);

/// The rank of (tp, cp, dp, pp) indices in Megatron's order.
std::uint32_t llm_rank(const LlmParallel& p, std::uint32_t tp, std::uint32_t cp, std::uint32_t dp,
                       std::uint32_t pp);

}  // namespace collsim::workload
