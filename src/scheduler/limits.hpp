#pragma once
// Bounded resources: before a job runs, an estimate of its work and memory from the programs'
// op counts, refused above the limits with a message that gives the estimate and the option that
// raises the limit (docs/performance.md "Limits").
//
// The estimate builds each algorithm's program for one chunk (cheap: large programs are generated
// on demand) and scales by the chunk count, as every algorithm repeats its one-chunk schedule:
//   messages   = sends of all programs (total ops / 2 per program) x chunks
//   in flight  = min(messages, distinct (lane, peer) channels x chunks): the executor keeps one
//                message per channel in flight and a lane posts all its receives at once
//   memory     = kBaseBytes + kBytesPerLink per directed link + 16 B per stored op
//                + kBytesPerInFlight per message in flight
// The constants are measured: direct all-reduce on switch:1024 and switch:2048 holds 250 B per
// in-flight message on the analytical backend and 500-560 B on flow (taken: 600 B); ring on
// fc:4096 (16.7 M links) peaks at 2.19 GB, 130 B per link with the topology itself.
// Staged (hierarchical) collectives are not estimated.
// Before building anything, each algorithm's closed-form size (AlgorithmInfo::size: an upper bound
// on sends and stored ops) is checked: a job past the limits by it is refused without building
// (a program of 10^10 ops would exhaust memory before any estimate).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "collective/algorithm.hpp"
#include "collective/communicator.hpp"
#include "core/units.hpp"
#include "network/backend.hpp"
#include "topology/topology.hpp"

namespace collsim::scheduler {

struct RunLimits {
  std::uint64_t max_messages = 500'000'000;  ///< about 1-5 minutes of simulation
  std::uint64_t max_memory = 8ull << 30;     ///< bytes of simulator state
};

inline constexpr std::uint64_t kBytesPerInFlight = 600;
inline constexpr std::uint64_t kBytesPerLink = 130;
inline constexpr std::uint64_t kBaseBytes = 64ull << 20;

/// `-a all` builds an algorithm's one-chunk program to see whether it applies only below this
/// closed-form size (sends); larger ones are left to the job's estimate (and built there if the
/// limits allow).
inline constexpr RunLimits kCheapBuild{10'000'000, 1ull << 30};

struct WorkEstimate {
  std::uint64_t messages = 0;
  std::uint64_t in_flight = 0;
  std::uint64_t stored_ops = 0;
  std::uint64_t links = 0;
  std::uint64_t extra_bytes = 0;  ///< other state, e.g. the verifier's
  /// Messages x their mean route length in links, from a sample of the one-chunk program's sends
  /// (0 when nothing was built): the work of a backend whose cost per message is per link of its
  /// route (BackendInfo::route_work: the flow backend's max-min resources).
  std::uint64_t route_links = 0;
  /// Bytes of simulator memory, by the formula above (saturated at UINT64_MAX).
  std::uint64_t memory() const;
};

/// Distinct (lane, peer) pairs that send in `p`: the channels the executor keeps one message on.
/// Visits every op.
std::uint64_t distinct_channels(const collective::Program& p);

/// The closed-form bound (AlgorithmInfo::size) for one algorithm on `comms` with `chunks` chunks:
/// messages and stored ops, nothing in flight counted. Builds nothing. Staged collectives count
/// one group per dimension with groups=auto unless `every_group` (a run that cannot use the
/// symmetry: with a trace).
WorkEstimate bound_work(const collective::AlgorithmChoice& choice, const topology::Topology& topo,
                        const std::vector<collective::Communicator>& comms,
                        collective::Collective c, std::uint32_t chunks,
                        bool every_group = false);

/// True if the closed-form bound exceeds `limits`: building the program could exhaust memory.
bool beyond(const WorkEstimate& bound, const RunLimits& limits);

/// False if `info` refuses `topo` or the rank count outright (requires_topology, power_of_two):
/// its build throws at once, naming why.
bool could_build(const collective::AlgorithmInfo& info, const topology::Topology& topo,
                 const collective::Communicator& comm);

/// The estimate for one algorithm on `comms` (all at once) with `chunks` chunks: the closed-form
/// bound when that exceeds `limits` (nothing built; check_limits then refuses it), else the
/// count of the one-chunk program. Throws core::InputError as building the program would.
WorkEstimate estimate_work(const collective::AlgorithmChoice& choice,
                           const topology::Topology& topo,
                           const std::vector<collective::Communicator>& comms,
                           collective::Collective c, std::uint32_t chunks,
                           const RunLimits& limits = {});

/// Memory of the symbolic verifier's state (collective/ir/verifier.hpp): one bitset of `ranks`
/// bits per (rank, piece), ranks * pieces * ceil(ranks / 64) words. The verifier reads generated
/// programs op by op and stores none; this state is what bounds it (8.6 GB for ring on 4096).
std::uint64_t verifier_bytes(std::uint32_t ranks, std::uint64_t pieces);

/// Throws core::ResourceError if `e` exceeds `limits`, naming `what` (the job and algorithm), the
/// estimate, the limit and its option (--max-messages / --max-memory).
void check_limits(const WorkEstimate& e, const RunLimits& limits, const std::string& what);

/// Bytes a collective of `size` moves over `ranks` ranks, about: every rank sends its buffer once
/// per phase (all-reduce: two phases). For the backends' work estimate.
std::uint64_t moved_bytes(collective::Collective c, std::uint32_t ranks, core::Bytes size);

/// Throws core::ResourceError if what `backend` simulates for `messages` messages moving `bytes`
/// (BackendInfo::work, e.g. the packet backend's packets) exceeds --max-messages, or its own state
/// on `topo` (BackendInfo::state_bytes: VCs x ports, buffered packets) with kBaseBytes exceeds
/// --max-memory, naming `what` and the options that set it. Backends whose events are per
/// message are covered by check_limits.
void check_backend_work(const network::BackendInfo& backend, const network::BackendOptions& options,
                        const topology::Topology& topo, std::uint64_t messages,
                        std::uint64_t bytes, const RunLimits& limits, const std::string& what);

/// The work of a command that runs no collective (multitree's tree edges, nccl-tests' rows,
/// plot's points, inventory's links) against the same limits: throws core::ResourceError naming
/// `what` when `units` (of `unit`, e.g. "tree edges") exceed --max-messages or `memory` bytes
/// exceed --max-memory, with the estimate, the limit and the option that raises it.
void check_command_work(std::uint64_t units, std::string_view unit, std::uint64_t memory,
                        const RunLimits& limits, const std::string& what);

/// Throws core::ResourceError if `backend` does work per link of each route
/// (BackendInfo::route_work) and e.route_links exceeds --max-messages, naming `what`, the
/// estimate, the limit and the option. A direct all-reduce on ring:1024 is 2.1e6 messages but
/// 1.1e9 route links (2.1e6 x 512; it took 19 s of CPU on flow, issue 51).
void check_route_work(const WorkEstimate& e, const network::BackendInfo& backend,
                      const RunLimits& limits, const std::string& what);

/// The flow backend's budget for its max-min solver (BackendOptions::max_solver_work), from
/// --max-messages: kSolverVisitsPerMessage flow-link visits per message allowed, measured to cost
/// about as much CPU as a message.
inline constexpr std::uint64_t kSolverVisitsPerMessage = 20;
std::uint64_t solver_budget(const RunLimits& limits);

/// Throws core::InputError naming `field` when chunks > 1 split `size` into chunks of less than
/// one byte per rank: at most max(1, size / ranks) chunks.
void check_chunks(core::Bytes size, std::uint32_t ranks, std::uint32_t chunks,
                  const std::string& field);

}  // namespace collsim::scheduler
