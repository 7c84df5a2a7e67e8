#pragma once
// The algorithm registry (docs/design.md "Registry"): every algorithm lives in one file under
// algorithms/, exposes an AlgorithmInfo, and is listed once in registry.cpp. An algorithm sees the
// topology (never the network backend) and returns a Program.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collective/collective.hpp"
#include "collective/communicator.hpp"
#include "collective/ir/program.hpp"
#include "core/param.hpp"
#include "core/registry.hpp"
#include "core/units.hpp"
#include "topology/topology.hpp"

namespace collsim::collective {

/// An algorithm's parameters are core::ParamSpecs (core/param.hpp) of type Count or Choice, with
/// their default in the spec; their values are whole numbers (a choice: its index).
using core::ParamSpec;

/// A whole-number parameter: default and allowed range [min, max].
ParamSpec count_param(std::string_view key, std::uint64_t default_value, std::uint64_t min,
                      std::uint64_t max, std::string_view description);
/// A parameter naming one of `choices` (static storage), stored as its index; the first is the
/// default.
ParamSpec choice_param(std::string_view key, std::span<const std::string_view> choices,
                       std::string_view description);

/// An algorithm's parameter values by key, complete: defaults filled in (indexed ones, "dimK":
/// only those given, under their own key "dim5").
using ParamValues = std::map<std::string, std::int64_t>;

struct BuildRequest {
  const topology::Topology& topology;
  const Communicator& communicator;  ///< the ranks: rank r runs on communicator.npus[r]
  Collective collective = Collective::AllReduce;
  core::Bytes size;  ///< collective size (collective.hpp conventions)
  std::uint32_t ranks() const { return communicator.size(); }
  std::uint32_t chunks = 1;  ///< pipelined chunks, >= 1
  ParamValues params;        ///< validated against the schema, defaults filled
};

/// The size of one chunk's program, in closed form (nothing is built): an upper bound on its sends
/// and on the ops it stores (0 when a generator makes them on demand). The resource limits
/// (scheduler/limits.hpp) refuse a job from it before any program is built.
struct ProgramSize {
  std::uint64_t sends = 0;
  std::uint64_t stored_ops = 0;
};

struct AlgorithmInfo {
  std::string name;
  std::string description;
  std::string source;  ///< where the algorithm comes from (paper, section)
  std::vector<Collective> collectives;
  std::vector<ParamSpec> params;
  /// Builds the program. Throws core::InputError saying why when the algorithm cannot run on
  /// this topology or rank count. Null for a staged algorithm.
  Program (*build)(const BuildRequest&) = nullptr;
  /// Runs as stages composed by the scheduler (scheduler/hierarchical.hpp), not as one Program.
  bool staged = false;
  /// Made for one kind of network: "all" includes it only on topologies this accepts (named, it
  /// runs anywhere it can). Null: "all" includes it wherever it can run.
  bool (*in_all)(const topology::Topology& topo) = nullptr;
  /// What the topology must be, beyond the rank count: "" when the algorithm can run on `topo`,
  /// else why not ("needs a 2D torus or mesh"). Null: any topology.
  std::string (*requires_topology)(const topology::Topology& topo) = nullptr;
  /// Runs on power-of-two rank counts only (build throws core::InputError naming "power-of-two"
  /// for others).
  bool power_of_two = false;
  /// Steps of one stage of collective `c` on `ranks` ranks when the algorithm runs a dimension of
  /// a hierarchical collective: the planner's fixed delay is steps x the dimension's hop latency
  /// (Themis Sec. 4.4 "number_of_steps"). Null: ranks - 1 (a ring's count).
  std::uint32_t (*stage_steps)(Collective c, std::uint32_t ranks,
                               const ParamValues& params) = nullptr;
  /// With these parameters it sends one way round a ring only, so on a bidirectional ring
  /// dimension it uses half of an NPU's links there (the planner's bandwidth). Null: never.
  bool (*one_way)(const ParamValues& params) = nullptr;
  /// One chunk's ProgramSize for `req` (req.chunks is 1), in closed form: cheap at any rank
  /// count. Null for a staged algorithm.
  ProgramSize (*size)(const BuildRequest& req) = nullptr;
  /// Parameter sets that "all" lists as rows of their own after the defaults' row on `topo`, each
  /// as written after the name ("stripe=1" gives the row "ring:stripe=1"). Null: none.
  std::vector<std::string> (*all_variants)(const topology::Topology& topo) = nullptr;

  bool supports(Collective c) const;
};

/// "" when `info` can run on `topo` (its requires_topology), else the reason.
std::string refusal(const AlgorithmInfo& info, const topology::Topology& topo);

/// Every registered algorithm, in a fixed order (registry.cpp).
const core::Registry<AlgorithmInfo>& algorithms();
/// algorithms().find(name, field): throws core::InputError naming `field` and listing the valid
/// names.
const AlgorithmInfo& find_algorithm(std::string_view name, std::string_view field);

/// An algorithm with its parameters, as written on the command line: "ring" or
/// "ring:directions=2" (several as "name:k1=v1:k2=v2").
struct AlgorithmChoice {
  const AlgorithmInfo* info = nullptr;
  ParamValues params;  ///< complete: defaults filled in
  std::string label;   ///< the text the user wrote, used in reports
};
/// Throws core::InputError naming `field` for an unknown name, key, or out-of-range value.
AlgorithmChoice parse_algorithm(std::string_view text, std::string_view field);
/// Fill defaults and check ranges of explicitly given parameters.
AlgorithmChoice make_choice(const AlgorithmInfo& info, ParamValues given, std::string label,
                            std::string_view field);

/// Check that the choice supports the collective and chunk count, then build the program for the
/// communicator's ranks; the program's npus are the communicator's.
Program build_program(const AlgorithmChoice& choice, const topology::Topology& topo,
                      const Communicator& comm, Collective c, core::Bytes size,
                      std::uint32_t chunks);
/// The closed-form size of one chunk's program (AlgorithmInfo::size) for the communicator's
/// ranks; a zero size for staged algorithms. Throws core::InputError as build_program would for
/// `chunks` chunks before building (unsupported collective, topology, piece count).
ProgramSize program_size(const AlgorithmChoice& choice, const topology::Topology& topo,
                         const Communicator& comm, Collective c, std::uint32_t chunks);
/// floor(log2(n)) + (n not a power of two), for n >= 1: the steps of a doubling algorithm.
std::uint64_t ceil_log2(std::uint64_t n);
/// The same over every NPU of the topology.
Program build_program(const AlgorithmChoice& choice, const topology::Topology& topo, Collective c,
                      core::Bytes size, std::uint32_t chunks);

// Shared building blocks for algorithms.

/// One step of transfers: all sends are emitted before all receives, so that a rank's send in
/// this step ships what it held before the step (see program.hpp).
struct Transfer {
  Rank from;
  Rank to;
  std::uint32_t first;
  std::uint32_t count;
};
/// Appends one step's sends and receives to stream `stream` of the ranks.
void add_step(Program& p, const std::vector<Transfer>& step, bool reduce, std::uint32_t stream = 0);

/// log2(ranks) steps (halving, doubling): a stage_steps entry for power-of-two algorithms.
std::uint32_t log2_steps(Collective c, std::uint32_t ranks, const ParamValues& params);

/// Throws core::InputError unless n is a power of two.
void require_power_of_two(std::string_view algorithm, std::uint32_t n);

}  // namespace collsim::collective
