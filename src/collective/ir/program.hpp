#pragma once
// The Program IR (docs/design.md "Algorithms know the topology, never the network backend").
//
// A Program is, for every rank, one or more *streams* of operations on pieces of a shared piece
// space (see collective.hpp for how pieces map to a collective). Stream s of rank r is the lane
// r * streams + s; every per-rank list below is really per lane (one lane per rank when
// streams == 1, the common case). Its meaning, shared by the verifier and the executor through
// Progress (progress.hpp):
//   * A lane issues its ops in list order; lanes are independent of each other, so a send
//     blocked on one stream never holds back a ready send on another.
//   * A Recv is posted at once and the lane moves on; a Send waits until every earlier-posted
//     Recv of its lane that overlaps its pieces has completed.
//   * A Send ships a snapshot of its pieces. Stream s of rank a talks to stream s of rank b: the
//     k-th Send from (a, s) to b matches the k-th Recv at (b, s) from a; both name the same
//     piece range, and Send.reduce says whether that Recv is a RecvReduce.
//   * A Recv completes when its message has arrived and every earlier-posted Recv of its lane
//     overlapping its pieces has completed, except that two RecvReduces never wait for each other
//     (reduction commutes). RecvReduce adds the message into the local pieces; Recv overwrites.
//   * A Fence waits until every earlier-posted Recv of its lane has completed: a step barrier for
//     algorithms whose steps do not depend on each other's data (ring all-to-all).
//   * A Barrier is a Fence that also waits until every lane of the program has reached the same
//     barrier (the k-th Barrier of every lane): lockstep schedules (MultiTree Sec. IV-A). The
//     barrier itself takes no time; lanes must all hold the same number of Barriers.
//   * Streams of one rank must not share data: a piece one stream receives into may not be read
//     or written by another stream of that rank (the verifier checks it), so no ordering between
//     streams is ever needed.
//   * In-network ops (a switch that reduces and multicasts, Program::in_network_switch; NVLS):
//     A rank's switch is Program::switch_of(r); the ranks on one switch are its *domain* (all
//     ranks when Program::rank_switch is empty; one NVLink domain per node for nvls-tree).
//     - SwitchReduce (peer: the rank d that gets the result, possibly the lane's own rank, in the
//       lane's domain) ships a snapshot of the lane's pieces to the switch, waiting like a Send.
//       The k-th SwitchReduce to d of every lane of the stream in d's domain (every rank of the
//       domain takes part) is group k of d: once all are issued the switch merges them and
//       forwards one message to d. One at a time per (lane, d).
//     - RecvSwitch (peer: the lane's own rank): the k-th at d receives group k of d, overwriting
//       its pieces and completing like a Recv.
//     - Multicast (peer: the lane's own rank) ships a snapshot of its pieces once; the switch
//       copies it to every other rank of the stream in its domain, where it matches that rank's
//       next Recv from this rank (RecvReduce when Op.reduce), as a Send to each would.
//   * Op.step is a time step (MultiTree's schedule step, 0 = none). It does not order anything by
//     itself; the executor hands it to the network as the message's priority.
// Dependencies are therefore data dependencies; chunks pipeline by interleaving their ops.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "collective/collective.hpp"
#include "core/units.hpp"
#include "topology/pinned_routes.hpp"

namespace collsim::collective {

/// A (rank, stream) pair: lane = rank * Program::streams + stream.
using Lane = std::uint32_t;

/// Program::in_network_switch when the program has no in-network ops.
inline constexpr std::uint32_t kNoSwitch = 0xffffffffu;

// 16 bytes: programs generate or store one per operation, and Progress copies them on the hot
// path.
struct Op {
  enum class Kind : std::uint8_t {
    Send,
    Recv,
    RecvReduce,
    Fence,
    Barrier,
    SwitchReduce,
    RecvSwitch,
    Multicast
  };
  Kind kind = Kind::Send;
  bool reduce = false;     ///< Send: the receiver reduces the message (its Recv is a RecvReduce)
  std::uint16_t step = 0;  ///< time step, 0 = none (network priority; MultiTree Sec. IV-A)
  Rank peer = 0;
  std::uint32_t first = 0;  ///< first piece
  std::uint32_t count = 1;  ///< number of consecutive pieces

  Op() = default;
  Op(Kind k, Rank peer_rank, std::uint32_t first_piece, std::uint32_t pieces,
     bool reduce_at_receiver = false, std::uint16_t time_step = 0)
      : kind(k),
        reduce(reduce_at_receiver),
        step(time_step),
        peer(peer_rank),
        first(first_piece),
        count(pieces) {}

  bool is_send() const { return kind == Kind::Send; }
  bool is_recv() const {
    return kind == Kind::Recv || kind == Kind::RecvReduce || kind == Kind::RecvSwitch;
  }
  /// A send through the switch's in-network reduction or multicast.
  bool is_switch_send() const { return kind == Kind::SwitchReduce || kind == Kind::Multicast; }
  bool is_wait() const { return kind == Kind::Fence || kind == Kind::Barrier; }
  bool overlaps(const Op& o) const { return first < o.first + o.count && o.first < first + count; }
};

static_assert(sizeof(Op) == 16);

std::string to_string(const Op& op);

/// Ops computed on demand instead of stored: for 1024+ ranks a stored ring program has tens of
/// millions of ops (docs/design.md "Large programs are generated, not stored").
class OpGenerator {
 public:
  virtual ~OpGenerator() = default;
  virtual std::uint32_t size(Lane l) const = 0;
  virtual Op at(Lane l, std::uint32_t i) const = 0;
};

struct Program {
  std::string algorithm;
  Collective collective = Collective::AllReduce;
  std::uint32_t num_ranks = 0;
  std::uint32_t num_chunks = 1;
  std::uint32_t num_pieces = 0;
  std::uint32_t streams = 1;                     ///< independent op streams per rank, >= 1
  std::uint64_t space_bytes = 0;                 ///< bytes of the whole piece space
  std::vector<std::uint32_t> npus;               ///< rank -> NPU id; empty: rank r is NPU r
  std::vector<Rank> owner;                       ///< see piece_owner(); empty: identity
  std::vector<std::vector<Op>> ops;              ///< ops[lane], when stored
  std::shared_ptr<const OpGenerator> generator;  ///< when set, ops are generated instead
  /// Routes the algorithm reserved for its messages, keyed by (source NPU, destination NPU,
  /// Op.step) (topology/pinned_routes.hpp); null: every message takes the topology's route.
  std::shared_ptr<const topology::PinnedRoutes> routes;
  /// Op.step is a schedule table (MultiTree Sec. IV-A): every message of step s depends only on
  /// messages of earlier steps, so an NI may run each NPU's steps strictly in order
  /// (network::Backend::set_step_plan). Other algorithms' steps are priorities only.
  bool step_schedule = false;
  /// The switch (topology node id) that runs the program's SwitchReduce and Multicast ops, which
  /// must offer in-network reduction (topology::Topology::in_network); kNoSwitch: none.
  std::uint32_t in_network_switch = kNoSwitch;
  /// Per rank, the switch its in-network ops go through, when the ranks span several reducing
  /// switches (nvls-tree: each node's NVSwitch); empty: every rank's is in_network_switch. When
  /// set, in_network_switch must be set too (it marks a program with in-network ops).
  std::vector<std::uint32_t> rank_switch;

  std::uint32_t num_lanes() const { return num_ranks * streams; }
  Rank rank_of(Lane l) const { return streams == 1 ? l : l / streams; }
  std::uint32_t stream_of(Lane l) const { return streams == 1 ? 0 : l % streams; }
  Lane lane(Rank r, std::uint32_t stream) const { return r * streams + stream; }
  std::uint32_t num_ops(Lane l) const {
    return generator ? generator->size(l) : static_cast<std::uint32_t>(ops[l].size());
  }
  Op op(Lane l, std::uint32_t i) const { return generator ? generator->at(l, i) : ops[l][i]; }
  /// The switch rank r's in-network ops go through (kNoSwitch: the program has none).
  std::uint32_t switch_of(Rank r) const {
    return rank_switch.empty() ? in_network_switch : rank_switch[r];
  }
  /// The NPU rank r runs on.
  std::uint32_t npu(Rank r) const { return npus.empty() ? r : npus[r]; }
  /// The rank that owns piece p: owner[p % N] (identity when owner is empty). Reduce-scatter
  /// leaves a rank holding the pieces it owns; all-gather starts from them; all-to-all piece p
  /// goes from piece_owner(p / N) to piece_owner(p) (collective.hpp).
  Rank piece_owner(std::uint32_t piece) const {
    const std::uint32_t i = piece % num_ranks;
    return owner.empty() ? i : owner[i];
  }

  /// Bytes of pieces [first, first+count): piece i spans [i*space/P, (i+1)*space/P).
  core::Bytes bytes(std::uint32_t first, std::uint32_t count) const;
  std::uint64_t total_ops() const;
};

/// Turn a generated program into a stored one (ops computed once, generator dropped), e.g. to
/// edit its ops in a test. Memory grows with total_ops().
void store_ops(Program& p);

/// Build helper used by every algorithm: fills the header fields for (collective, n, size, chunks)
/// and sizes ops to n ranks of one stream each.
Program make_program(std::string algorithm, Collective c, std::uint32_t n, core::Bytes size,
                     std::uint32_t chunks);

}  // namespace collsim::collective
