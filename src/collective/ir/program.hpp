#pragma once
// The Program IR (docs/design.md "Algorithms know the topology, never the network backend").
//
// A Program is, for every rank, an ordered list of operations on pieces of a shared piece space
// (see collective.hpp for how pieces map to a collective). Its meaning, shared by the verifier and
// the executor through Progress (progress.hpp):
//   * Ops are issued in list order. A Recv is posted at once and the rank moves on; a Send waits
//     until every earlier-posted Recv on this rank that overlaps its pieces has completed.
//   * A Send ships a snapshot of its pieces. The k-th Send from a to b matches the k-th Recv at b
//     from a; both must name the same piece range.
//   * A Recv completes when its message has arrived and every earlier-posted Recv on this rank
//     overlapping its pieces has completed, except that two RecvReduces never wait for each other
//     (reduction commutes). RecvReduce adds the message into the local pieces; Recv overwrites
//     them.
//   * A Fence waits until every earlier-posted Recv on this rank has completed: a step barrier
//     for algorithms whose steps do not depend on each other's data (ring all-to-all).
// Dependencies are therefore data dependencies; chunks pipeline by interleaving their ops.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "collective/collective.hpp"
#include "core/units.hpp"

namespace collsim::collective {

struct Op {
  enum class Kind : std::uint8_t { Send, Recv, RecvReduce, Fence };
  Kind kind = Kind::Send;
  Rank peer = 0;
  std::uint32_t first = 0;  ///< first piece
  std::uint32_t count = 1;  ///< number of consecutive pieces

  bool is_send() const { return kind == Kind::Send; }
  bool is_recv() const { return kind == Kind::Recv || kind == Kind::RecvReduce; }
  bool overlaps(const Op& o) const { return first < o.first + o.count && o.first < first + count; }
};

std::string to_string(const Op& op);

/// Ops computed on demand instead of stored: for 1024+ ranks a stored ring program has tens of
/// millions of ops (docs/design.md "Large programs are generated, not stored").
class OpGenerator {
 public:
  virtual ~OpGenerator() = default;
  virtual std::uint32_t size(Rank r) const = 0;
  virtual Op at(Rank r, std::uint32_t i) const = 0;
};

struct Program {
  std::string algorithm;
  Collective collective = Collective::AllReduce;
  std::uint32_t num_ranks = 0;
  std::uint32_t num_chunks = 1;
  std::uint32_t num_pieces = 0;
  std::uint64_t space_bytes = 0;                 ///< bytes of the whole piece space
  std::vector<std::vector<Op>> ops;              ///< ops[rank], when stored
  std::shared_ptr<const OpGenerator> generator;  ///< when set, ops are generated instead

  std::uint32_t num_ops(Rank r) const {
    return generator ? generator->size(r) : static_cast<std::uint32_t>(ops[r].size());
  }
  Op op(Rank r, std::uint32_t i) const { return generator ? generator->at(r, i) : ops[r][i]; }

  /// Bytes of pieces [first, first+count): piece i spans [i*space/P, (i+1)*space/P).
  core::Bytes bytes(std::uint32_t first, std::uint32_t count) const;
  std::uint64_t total_ops() const;
};

/// Build helper used by every algorithm: fills the header fields for (collective, n, size, chunks)
/// and sizes ops to n ranks.
Program make_program(std::string algorithm, Collective c, std::uint32_t n, core::Bytes size,
                     std::uint32_t chunks);

}  // namespace collsim::collective
