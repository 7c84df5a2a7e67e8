#pragma once
// Hierarchical multi-rail collectives (Themis, ISCA'22, Sec. 2.3 and 4): a collective on a
// D-dimensional platform runs as stages, one basic algorithm per dimension on every group of that
// dimension at once, and is split into C chunks that flow through the stages as a pipeline.
//
// Each dimension has one queue of chunk-stages and runs up to `active_chunks` of them at once
// (Sec. 4.3), whatever the endpoint: a collective that an engine splits into more chunks than
// asked for (ACE's 64 KB chunks) runs proportionally more, smaller ones, so every endpoint keeps
// the same bytes in flight per dimension, and an engine's own bounds (ACE's state machines and
// SRAM) can only lower that; a chunk-stage runs on every group of the dimension together and ends when all its
// groups have finished, so every NPU of a group runs the same chunk order (Sec. 4.6.2). A stage's
// messages go through the network backend like any other, so stages of different chunks and
// dimensions contend in the backend. Which dimensions a chunk walks, in which order, comes from
// themis_plan.hpp (baseline or Themis Algorithm 1); the intra-dimension policy orders each queue:
//   fifo  chunks in the order they arrive;
//   lifo  the latest arrival first;
//   scf   smallest chunk first: an arrival goes ahead of the first waiting chunk whose stage size
//         is at least its own (ahead of equal ones); a chunk with one stage left goes to the tail
//         (the authors' insertion rule, docs/models.md);
//   scf-astra  ASTRA-sim 2.x's reading of the same rule (Sys::insert_stream): it tests for "one
//         phase left" after popping the phase it inserts, so a chunk's second-to-last stage goes
//         to the tail, and an all-reduce stage goes to the tail too (its FIFO branch); the other
//         stages, the last included, by size as scf.
// Each stage's Program is built by the dimension's algorithm (Themis Table 1 by kind: ring ->
// ring, fc -> direct, sw -> halving-doubling) on the group's communicator, so it is verified like
// any other program.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "collective/algorithm.hpp"
#include "scheduler/executor.hpp"
#include "scheduler/staging.hpp"
#include "scheduler/themis_plan.hpp"
#include "topology/topology.hpp"

namespace collsim::scheduler {

enum class IntraDimPolicy { Fifo, Lifo, Scf, ScfAstra };
const char* to_string(IntraDimPolicy p);
/// "fifo", "lifo", "scf" or "scf-astra"; throws core::InputError naming `field`.
IntraDimPolicy parse_intra_dim_policy(std::string_view text, std::string_view field);

struct HierarchicalSpec {
  collective::Collective collective = collective::Collective::AllReduce;
  core::Bytes size;           ///< collective.hpp conventions, over all NPUs of the platform
  std::uint32_t chunks = 64;  ///< Themis Sec. 5.3
  InterDimPolicy schedule = InterDimPolicy::Baseline;
  IntraDimPolicy intra = IntraDimPolicy::Fifo;
  std::uint32_t active_chunks = 1;  ///< chunk-stages a dimension runs at once, >= 1
  /// One per dimension; empty entries (info == nullptr) take the Table 1 default of the kind.
  std::vector<collective::AlgorithmChoice> dim_algorithms;
  /// The dimensions the collective spans (0-based, any order); empty: every dimension. With a
  /// subset, each group of NPUs that differ only in those dimensions runs its own collective,
  /// all at once (the model-parallel groups over the inner dimensions and the data-parallel
  /// groups over the outer ones of a hybrid-parallel job); `size` is per such group.
  std::vector<std::uint32_t> dims;
  /// Simulate every group even where one per dimension would give the same times
  /// (`groups=all`; group_symmetry.hpp).
  bool all_groups = false;
  /// Run on a platform of one dimension too (`flat=run`): its stages go through the
  /// dimension's queue, so active_chunks bounds the chunks in flight, as ASTRA-sim 2.x runs a
  /// collective on a one-dimension network (Sys::generate_collective, its scheduler unit).
  bool one_dimension = false;
};

/// Themis Table 1: the basic algorithm for a dimension kind (ring: ring both ways; uring and
/// line: ring; fc: direct; sw: halving-doubling). For all-to-all, ACE Table 5: ring on rings and
/// lines, direct on fc and sw. Local switches (switch-fc Sec. III-B): package-doubling for
/// all-gather and for all-reduce under per-dim-all-reduce, else direct. A dimension of `size`
/// NPUs that is not a power of two takes direct where the kind's algorithm needs one
/// (halving-doubling on a switch of 10 nodes); size 0: not known, the kind's.
collective::AlgorithmChoice default_dim_algorithm(
    topology::DimKind kind, collective::Collective c = collective::Collective::AllReduce,
    InterDimPolicy schedule = InterDimPolicy::Baseline, std::uint32_t size = 0);

/// The planner's view of the platform's dimensions: P_K, one NPU's bandwidth in the dimension
/// (sum of its outgoing links there) and the fixed delay A_K = steps of the dimension's
/// algorithm for `c` x the latency between two neighbours of a group.
/// Dimensions not in `involved` (when it is not empty) get size 1, so that plans skip them.
std::vector<DimModel> dim_models(const topology::Topology& topo, collective::Collective c,
                                 const std::vector<collective::AlgorithmChoice>& algorithms,
                                 const std::vector<std::uint32_t>& involved = {});

/// Check `spec` against the platform and fill its defaults (Table 1 algorithm per dimension).
/// Throws core::InputError: fewer than two dimensions of size > 1 (one_dimension: none; with
/// `dims` given: none, or
/// one out of range or repeated), active_chunks 0,
/// chunks 0, or a dimension's algorithm that cannot run the stages on its groups.
void prepare(const topology::Topology& topo, HierarchicalSpec& spec);

/// The spec of the registered `hierarchical` algorithm choice (algorithms/hierarchical.cpp) for
/// this collective.
HierarchicalSpec spec_from_choice(const collective::AlgorithmChoice& choice,
                                  collective::Collective c, core::Bytes size, std::uint32_t chunks);

/// When each dimension had a chunk-stage running: [begin, end) intervals in start order.
struct DimActivity {
  std::vector<std::pair<core::Time, core::Time>> busy;
};

/// Share of [start, end) in which each dimension had at least one chunk-stage running (Themis
/// Fig. 9's activity, over the whole run); overlapping stages count once.
std::vector<double> activity_share(const std::vector<DimActivity>& activity, core::Time start,
                                   core::Time end);

class HierarchicalCollective;

/// The per-dimension queues of chunk-stages on one network, shared by every hierarchical
/// collective in flight there (data- and model-parallel collectives of a training step overlap
/// and compete for the dimensions, as in ASTRA-sim's per-dimension queues). Each dimension runs
/// up to `active_chunks` chunk-stages at once, taking waiting ones in the `intra` order
/// (header comment); FIFO and LIFO order by arrival across collectives, SCF by stage size.
class DimensionQueues {
 public:
  /// Throws core::InputError if active_chunks is 0. `one_group`: the stages run on the first
  /// group of each dimension only, standing for all (the runner checked group_symmetry.hpp's
  /// conditions).
  DimensionQueues(std::size_t dims, IntraDimPolicy intra, std::uint32_t active_chunks,
                  bool one_group = false);
  IntraDimPolicy intra() const { return intra_; }
  std::uint32_t active_chunks() const { return active_chunks_; }
  bool one_group() const { return one_group_; }

  /// A chunk-stage waiting for its dimension.
  struct Entry {
    HierarchicalCollective* owner = nullptr;
    std::uint32_t chunk = 0;
    double size = 0;    ///< SCF key: the larger of the stage's input and output bytes per NPU
    bool last = false;  ///< the chunk's last stage (SCF puts it at the tail)
    bool second_last = false;  ///< the chunk's second-to-last stage (scf-astra: the tail)
    bool all_reduce = false;   ///< an all-reduce stage (scf-astra: the tail)
    core::Time since;   ///< when it was queued (chunk queuing, ACE Fig. 11)
  };
  /// Queue `e` on `dim` by the policy, then start what can start there.
  void push(std::uint32_t dim, const Entry& e);
  /// A stage that ran in `slot` of `dim` ended; frees the place without starting anything (the
  /// owner queues the chunk's next stage first, then calls start_waiting).
  void finish(std::uint32_t dim, std::uint32_t slot);
  /// Start waiting chunk-stages on `dim` while it has free places (and the endpoint admits
  /// them: ACE's SRAM and state machines; a refused one holds back the stages behind it that
  /// wait for the same phase of its collective, not the others).
  /// Returns whether it started any.
  bool start_waiting(std::uint32_t dim);
  /// start_waiting on every dimension (room freed in an endpoint may unblock any of them).
  void start_all_waiting();

 private:
  IntraDimPolicy intra_;
  std::uint32_t active_chunks_;
  bool one_group_;
  std::vector<std::deque<Entry>> waiting_;
  // Per dimension, the place each running chunk-stage holds: its share of one of the
  // active_chunks places (0: free). A collective an engine splits finer than its `chunks` (ACE's
  // 64 KB chunks) holds chunks / its chunk count per stage, so that every endpoint keeps the same
  // bytes in flight per dimension (the same pipeline depth).
  std::vector<std::vector<double>> slot_weight_;
  std::vector<double> used_;
  // start_waiting's scratch: (collective, phase) pairs refused by their engine in this pass.
  std::vector<std::pair<const HierarchicalCollective*, std::uint32_t>> refused_;
};

/// One hierarchical collective on an executor. The constructor prepare()s the spec (and throws
/// what it throws). With `shared` queues, several collectives compete for the dimensions (the
/// queues' intra policy and active_chunks apply; the spec's are ignored); without, it owns
/// queues made from its spec.
class HierarchicalCollective {
 public:
  HierarchicalCollective(const topology::Topology& topo, Executor& executor, HierarchicalSpec spec,
                         DimensionQueues* shared = nullptr);
  ~HierarchicalCollective();
  HierarchicalCollective(const HierarchicalCollective&) = delete;
  HierarchicalCollective& operator=(const HierarchicalCollective&) = delete;

  /// Start at sim.now(); `on_done` runs when the last chunk's last stage has finished.
  void start(std::function<void(const CollectiveStats&)> on_done = {});
  bool finished() const { return chunks_done_ == plan_.chunks.size(); }
  const CollectiveStats& stats() const { return stats_; }
  const Plan& plan() const { return plan_; }
  const std::vector<DimActivity>& activity() const { return activity_; }
  /// The share of one of a dimension's active_chunks places each of its chunk-stages holds: 1,
  /// or chunks asked for / chunks run when the endpoint splits the payload finer (ACE).
  double stage_weight() const { return stage_weight_; }
  /// Chunk-stages started, and their time waiting in the dimension queues, summed.
  std::uint64_t stages_started() const { return stages_started_; }
  core::Time chunk_queuing() const { return chunk_queuing_; }

 private:
  friend class DimensionQueues;
  struct Chunk {
    std::uint32_t stage = 0;  // index into its ChunkPlan
    double bytes = 0;         // per NPU before the current stage
    double held = 0;          // bytes per NPU it holds in the endpoint's partition held_phase
    std::uint32_t held_phase = 0;
    double result = 0;        // in the results partition (its last stage and RX DMA)
  };
  struct Running;  // a chunk-stage in flight: its programs and how many groups remain
  void enqueue(std::uint32_t chunk);
  // Room for the chunk's next stage in the endpoint (always, without ChunkAdmission).
  bool admit(std::uint32_t chunk);
  // The engine phase the chunk's next stage enters (0 without ChunkAdmission).
  std::uint32_t waiting_phase(std::uint32_t chunk) const;
  std::uint32_t phase(std::uint32_t stage) const;
  void shape_admission();
  void launch(std::uint32_t dim, std::uint32_t chunk, std::uint32_t slot);
  void start_programs(Running* r);
  void stage_done(Running* r);
  void chunk_done(std::uint32_t dim);

  const topology::Topology& topo_;
  Executor& ex_;
  HierarchicalSpec spec_;
  Plan plan_;
  std::vector<Chunk> chunks_;
  std::unique_ptr<DimensionQueues> own_queues_;
  DimensionQueues* queues_;
  std::vector<std::unique_ptr<Running>> in_flight_;
  std::vector<DimActivity> activity_;
  std::function<void(const CollectiveStats&)> on_done_;
  CollectiveStats stats_;
  std::size_t chunks_done_ = 0;
  endpoint::ChunkAdmission* admission_ = nullptr;
  bool staging_ = false;  // the endpoint copies chunks in before their first stage and out after
  std::vector<std::unique_ptr<StagingBarrier>> copies_out_;  // RX DMA in flight, by chunk
  std::uint64_t stages_started_ = 0;
  core::Time chunk_queuing_;
  double stage_weight_ = 1;
};

}  // namespace collsim::scheduler
