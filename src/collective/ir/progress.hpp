#pragma once
// Progress: the one implementation of the Program semantics (program.hpp), driven by the symbolic
// verifier (no time) and by the timed executor (scheduler/executor.hpp) alike, so that what the
// verifier proves is what the executor runs.
//
// The driver calls pump(l) to let lane l (a rank's stream, program.hpp) issue what it can, and
// arrive(...) when a message reaches its destination; Progress calls back through Hooks when a
// send is issued and when a recv completes. Memory is proportional to what is in flight per lane
// plus one sequence counter per channel (ordered lane pair) in use.
//
// When this is a proof. The verifier drives Progress with unbounded buffers and no time, so it
// proves the program correct for every timing in which sends are not refused (can_send) for
// ever: messages may arrive in any order, and matching by channel sequence makes the result
// independent of it. It stops being a proof where timing adds a constraint the verifier does not
// see: finite buffers or NIC queues that can refuse an arrival (a backend may then deadlock on a
// cycle of full buffers even though the program is deadlock-free), and endpoints that hold
// arrivals. Barriers are modelled exactly (they only remove interleavings).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "collective/ir/channels.hpp"
#include "collective/ir/program.hpp"

namespace collsim::collective {

class Progress {
 public:
  class Hooks {
   public:
    /// May lane l issue `op` (a send) now? The executor says no while the channel to op.peer is
    /// still serializing the previous message.
    /// `channel` is the dense id of l -> (op.peer, same stream) (ids count up from 0).
    virtual bool can_send(Lane l, const Op& op, std::uint32_t channel) = 0;
    /// Lane l issued send op_index; `seq` is its position on its channel.
    virtual void on_send(Lane l, std::uint32_t op_index, std::uint32_t seq,
                         std::uint32_t channel) = 0;
    /// Lane l completed recv op_index, whose message came from send src_op of lane src. For a
    /// RecvSwitch, src is kSwitchLane and src_op the group's block (group_op()), freed after
    /// this call.
    virtual void on_recv_done(Lane l, std::uint32_t op_index, Lane src, std::uint32_t src_op) = 0;
    /// Every lane has issued its SwitchReduce of a group whose result goes to lane `dst`: the
    /// switch may start it. `block` names the group (group_op(), arrive_group()). For a
    /// Multicast, on_send's `seq` is its block instead (arrive_multicast()).
    virtual void on_group_ready(Lane /*dst*/, std::uint32_t /*block*/) {}

   protected:
    ~Hooks() = default;
  };

  Progress(const Program& p, Hooks& hooks);

  /// Issue and complete what lane l can, until it is blocked.
  void pump(Lane l);
  /// Pump every lane (the start of a run).
  void pump_all();
  /// The message of send `src_op` of lane `src` (channel position `seq`) has arrived at rank
  /// `dst`. Pumps the receiving lane.
  void arrive(Lane src, Rank dst, std::uint32_t src_op, std::uint32_t seq);

  /// The group `block` (on_group_ready) has reached its destination lane.
  void arrive_group(Lane dst, std::uint32_t block);
  /// Multicast src_op of lane `src` (its block: on_send's seq) has reached every other rank.
  void arrive_multicast(Lane src, std::uint32_t src_op, std::uint32_t block);
  /// The SwitchReduce op of rank r in group `block`, and its channel.
  std::uint32_t group_op(std::uint32_t block, Rank r) const { return blocks_[block + 3 + r]; }
  std::uint32_t group_channel(std::uint32_t block, Rank r) const {
    return blocks_[block + 3 + program_.num_ranks + r];
  }
  /// The ranks of rank r's in-network domain (program.hpp: the ranks on r's switch), r
  /// included, in rank order. Only for programs with in-network ops.
  std::span<const Rank> domain(Rank r) const {
    const std::uint32_t d = domain_of_[r];
    return {domain_ranks_.data() + domain_start_[d], domain_start_[d + 1] - domain_start_[d]};
  }
  /// Pending.src of a RecvSwitch: its message comes from the switch.
  static constexpr Lane kSwitchLane = 0xffffffffu;

  bool finished() const { return lanes_done_ == program_.num_lanes(); }
  bool lane_finished(Lane l) const;
  /// Why lane l is not finished: the op it is blocked on, or the recvs it waits for.
  std::string describe_blocked(Lane l) const;
  /// "2 of 16 ranks unfinished: rank 3 at op ...": the unfinished lanes, each with
  /// describe_blocked, at most `limit` of them.
  std::string describe_stuck(std::size_t limit = 4) const;

 private:
  struct Pending {
    std::uint32_t op;
    std::uint32_t first, count;  // the op's pieces, cached for overlap checks
    bool reduce;
    Lane src;
    std::uint32_t seq;
    bool arrived;
    std::uint32_t src_op;
    bool done = false;
  };
  struct Early {
    Lane src;
    std::uint32_t seq;
    std::uint32_t src_op;
  };
  void pump_one(Lane l);
  void issue_switch(Lane l, std::uint32_t idx, const Op& op, std::uint32_t ch);
  std::uint32_t new_block();
  void free_block(std::uint32_t block) { free_blocks_.push_back(block); }
  bool complete_ready(Lane l);
  std::uint32_t channel(Lane src, Lane dst);
  bool issue(Lane l);
  std::string lane_name(Lane l) const;

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
  std::uint32_t lanes_done_ = 0;
  // Barriers: the lanes waiting at the current barrier, and how many have arrived.
  std::vector<Lane> at_barrier_;
  std::vector<Lane> released_;  // passed a barrier another lane completed; pump() pumps them
  bool releasing_ = false;
  std::vector<std::uint8_t> waiting_barrier_;
  bool posted_arrived_ = false;  // issue() posted a recv whose message was already there
  ChannelTable channels_;
  std::vector<std::uint32_t> send_seq_, recv_seq_;  // by channel id
  // The op at each rank's cursor, fetched once: a generated op costs a few divisions, and a
  // blocked rank is pumped many times before its cursor moves.
  std::vector<Op> cursor_op_;
  std::vector<std::uint32_t> cursor_ch_;  // channel id of the cursor op, when it is a send
  std::vector<std::uint8_t> cursor_op_valid_;
  std::vector<std::uint32_t> num_ops_;  // per rank, fetched once
  // In-network ops: blocks of 3 + 2 x ranks words. A group: its count of contributions, its
  // destination lane, its index k, then per rank the SwitchReduce op and its channel. A
  // multicast: per rank the sequence number of its copy on the channel to that rank.
  std::vector<std::uint32_t> blocks_, free_blocks_;
  absl::flat_hash_map<std::uint64_t, std::uint32_t> groups_;  // (dst lane, k) -> block, filling
  // In-network domains (program.hpp): rank -> domain, and each domain's ranks, contiguous.
  std::vector<std::uint32_t> domain_of_, domain_start_;
  std::vector<Rank> domain_ranks_;
};

}  // namespace collsim::collective
