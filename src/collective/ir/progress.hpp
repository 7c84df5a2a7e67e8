#pragma once
// Progress: the one implementation of the Program semantics (program.hpp), driven by the symbolic
// verifier (no time) and by the timed executor (scheduler/executor.hpp) alike, so that what the
// verifier proves is what the executor runs.
//
// The driver calls pump(r) to let rank r issue what it can, and arrive(...) when a message reaches
// its destination; Progress calls back through Hooks when a send is issued and when a recv
// completes. Memory is proportional to what is in flight per rank plus one sequence counter per
// channel (ordered rank pair) in use.
#include <cstdint>
#include <string>
#include <vector>

#include "collective/ir/channels.hpp"
#include "collective/ir/program.hpp"

namespace collsim::collective {

class Progress {
 public:
  class Hooks {
   public:
    /// May rank r issue `op` (a send) now? The executor says no while the channel to op.peer is
    /// still serializing the previous message.
    /// `channel` is the dense id of r -> op.peer (ids count up from 0 as channels appear).
    virtual bool can_send(Rank r, const Op& op, std::uint32_t channel) = 0;
    /// Rank r issued send op_index; `seq` is its position on the channel r -> peer.
    virtual void on_send(Rank r, std::uint32_t op_index, std::uint32_t seq,
                         std::uint32_t channel) = 0;
    /// Rank r completed recv op_index, whose message came from send src_op of rank src.
    virtual void on_recv_done(Rank r, std::uint32_t op_index, Rank src, std::uint32_t src_op) = 0;

   protected:
    ~Hooks() = default;
  };

  Progress(const Program& p, Hooks& hooks);

  /// Issue and complete what rank r can, until it is blocked.
  void pump(Rank r);
  /// The message of send `src_op` of rank `src` (channel position `seq`) has arrived at `dst`.
  /// Pumps the receiving rank.
  void arrive(Rank src, Rank dst, std::uint32_t src_op, std::uint32_t seq);

  bool finished() const { return ranks_done_ == program_.num_ranks; }
  bool rank_finished(Rank r) const;
  /// Why rank r is not finished: the op it is blocked on, or the recvs it waits for.
  std::string describe_blocked(Rank r) const;
  /// "ranks 3, 7, 12 (and 4 more)": the unfinished ranks, each with describe_blocked, at most
  /// `limit` of them.
  std::string describe_stuck(std::size_t limit = 4) const;

 private:
  struct Pending {
    std::uint32_t op;
    std::uint32_t first, count;  // the op's pieces, cached for overlap checks
    bool reduce;
    Rank src;
    std::uint32_t seq;
    bool arrived;
    std::uint32_t src_op;
    bool done = false;
  };
  struct Early {
    Rank src;
    std::uint32_t seq;
    std::uint32_t src_op;
  };
  bool complete_ready(Rank r);
  std::uint32_t channel(Rank src, Rank dst);
  bool issue(Rank r);

  const Program& program_;
  Hooks& hooks_;
  std::vector<std::uint32_t> cursor_;
  // Posted recvs in posting order from head_[r] on; completed ones stay as tombstones (done) until
  // the vector is compacted, so completing the oldest recv is O(1). Arrivals mostly come in
  // posting order, so the scans below stop near the head.
  std::vector<std::vector<Pending>> pending_;
  std::vector<std::uint32_t> head_;          // first entry that may be open
  std::vector<std::uint32_t> open_;          // entries not done
  std::vector<std::uint32_t> arrived_open_;  // entries arrived and not done
  std::vector<std::vector<Early>> early_;    // arrived before their recv was posted
  std::vector<std::uint8_t> done_;
  // A send blocked by an overlapping pending recv stays blocked until some recv of that rank
  // completes: remember the completion count at which it was found blocked, so pump() does not
  // rescan the pending list on every arrival (direct algorithms keep N-1 recvs pending).
  std::vector<std::uint64_t> completions_, blocked_at_;
  std::uint32_t ranks_done_ = 0;
  bool posted_arrived_ = false;  // issue() posted a recv whose message was already there
  ChannelTable channels_;
  std::vector<std::uint32_t> send_seq_, recv_seq_;  // by channel id
  // The op at each rank's cursor, fetched once: a generated op costs a few divisions, and a
  // blocked rank is pumped many times before its cursor moves.
  std::vector<Op> cursor_op_;
  std::vector<std::uint32_t> cursor_ch_;  // channel id of the cursor op, when it is a send
  std::vector<std::uint8_t> cursor_op_valid_;
  std::vector<std::uint32_t> num_ops_;  // per rank, fetched once
};

}  // namespace collsim::collective
