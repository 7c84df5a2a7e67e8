// Program IR seams: independent streams per rank, barriers, time steps, the piece-owner
// permutation and the send's reduce flag, through Progress (no time) and the verifier.
#include <gtest/gtest.h>

#include <vector>

#include "collective/algorithm.hpp"
#include "collective/ir/progress.hpp"
#include "collective/ir/verifier.hpp"

namespace collsim::collective {
namespace {

Op send(Rank peer, std::uint32_t first, std::uint32_t count, bool reduce) {
  return Op{Op::Kind::Send, peer, first, count, reduce};
}
Op recv(Rank peer, std::uint32_t first, std::uint32_t count, bool reduce) {
  return Op{reduce ? Op::Kind::RecvReduce : Op::Kind::Recv, peer, first, count};
}

// A 2-rank all-reduce in 2 chunks (pieces {0,1} and {2,3}). Chunk 0 is reduced at rank 1 and sent
// back; chunk 1 is reduced at rank 0 and sent back. With streams == 2, chunk c is stream c.
Program two_chunks(std::uint32_t streams) {
  Program p = make_program("hand", Collective::AllReduce, 2, core::Bytes{400}, 2);
  const std::vector<Op> r0c0 = {send(1, 0, 2, true), recv(1, 0, 2, false)};
  const std::vector<Op> r1c0 = {recv(0, 0, 2, true), send(0, 0, 2, false)};
  const std::vector<Op> r0c1 = {recv(1, 2, 2, true), send(1, 2, 2, false)};
  const std::vector<Op> r1c1 = {send(0, 2, 2, true), recv(0, 2, 2, false)};
  if (streams == 1) {
    // Rank 1 lists chunk 0 first: its chunk-1 send sits behind a send that waits for data.
    p.ops[0] = r0c0;
    p.ops[0].insert(p.ops[0].end(), r0c1.begin(), r0c1.end());
    p.ops[1] = r1c0;
    p.ops[1].insert(p.ops[1].end(), r1c1.begin(), r1c1.end());
  } else {
    p.streams = 2;
    p.ops = {r0c0, r0c1, r1c0, r1c1};  // lane = rank * 2 + stream
  }
  return p;
}

// Records the sends Progress issues; messages are delivered only when the test says so.
struct Hooks final : Progress::Hooks {
  struct Sent {
    Lane lane;
    std::uint32_t op, seq;
  };
  bool can_send(Lane, const Op&, std::uint32_t) override { return true; }
  void on_send(Lane l, std::uint32_t op, std::uint32_t seq, std::uint32_t) override {
    sent.push_back({l, op, seq});
  }
  void on_recv_done(Lane, std::uint32_t, Lane, std::uint32_t) override { ++recvs; }
  std::vector<Sent> sent;
  int recvs = 0;
};

TEST(ProgramStreams, BlockedSendDoesNotHoldBackAnotherStream) {
  // One stream: rank 1 issues nothing (its first send waits for chunk 0's data), so its ready
  // chunk-1 send is held back. Two streams: rank 1's chunk-1 send goes at once.
  for (std::uint32_t streams : {1u, 2u}) {
    const Program p = two_chunks(streams);
    Hooks h;
    Progress progress(p, h);
    progress.pump_all();
    std::vector<Rank> senders;
    for (const auto& s : h.sent) senders.push_back(p.rank_of(s.lane));
    if (streams == 1) {
      EXPECT_EQ(senders, (std::vector<Rank>{0})) << "only rank 0's chunk-0 send";
    } else {
      EXPECT_EQ(senders, (std::vector<Rank>{0, 1})) << "both reduce sends";
    }
  }
}

TEST(ProgramStreams, VerifierAcceptsIndependentStreams) {
  for (std::uint32_t streams : {1u, 2u}) {
    const Verdict v = verify(two_chunks(streams));
    EXPECT_TRUE(v.ok) << v.reason;
    EXPECT_EQ(v.messages, 4u);
  }
}

TEST(ProgramStreams, VerifierRejectsStreamsSharingPieces) {
  Program p = two_chunks(2);
  // Rank 0's stream 1 also ships piece 0, which its stream 0 receives into: a race.
  p.ops[1].push_back(send(1, 0, 1, false));
  p.ops[3].push_back(recv(0, 0, 1, false));
  const Verdict v = verify(p);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("must not share pieces"), std::string::npos) << v.reason;
}

TEST(ProgramStreams, VerifierChecksTheReduceFlag) {
  Program p = two_chunks(1);
  p.ops[0][0].reduce = false;  // the receiver reduces, the sender says copy
  const Verdict v = verify(p);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("reduce flag"), std::string::npos) << v.reason;
}

// Reduce-scatter on 2 ranks where rank 0 ends with piece 1 and rank 1 with piece 0.
Program swapped_reduce_scatter() {
  Program p = make_program("hand", Collective::ReduceScatter, 2, core::Bytes{200}, 1);
  add_step(p, {{0, 1, 0, 1}, {1, 0, 1, 1}}, true);
  return p;
}

TEST(ProgramOwner, ReduceScatterEndsWhereTheOwnerPermutationSays) {
  Program p = swapped_reduce_scatter();
  Verdict v = verify(p);  // identity owners: rank 0 should end with piece 0
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("rank 0 ends with piece 0 reduced over 1 of 2"), std::string::npos)
      << v.reason;
  p.owner = {1, 0};
  v = verify(p);
  EXPECT_TRUE(v.ok) << v.reason;
  p.owner = {1, 1};
  v = verify(p);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("not a permutation"), std::string::npos) << v.reason;
}

TEST(ProgramOwner, AllGatherStartsFromTheOwnersPieces) {
  Program p = make_program("hand", Collective::AllGather, 2, core::Bytes{200}, 1);
  add_step(p, {{0, 1, 1, 1}, {1, 0, 0, 1}}, false);  // rank 0 holds piece 1 and sends it
  EXPECT_FALSE(verify(p).ok);
  p.owner = {1, 0};
  const Verdict v = verify(p);
  EXPECT_TRUE(v.ok) << v.reason;
}

// Step 1 of a 3-rank all-gather, a barrier, step 2 (rank r sends what it got in step 1).
Program ring3_all_gather(bool barrier) {
  Program p = make_program("hand", Collective::AllGather, 3, core::Bytes{3000}, 1);
  add_step(p, {{0, 1, 0, 1}, {1, 2, 1, 1}, {2, 0, 2, 1}}, false);
  if (barrier) {
    for (auto& ops : p.ops) ops.push_back(Op{Op::Kind::Barrier, 0, 0, 0});
  }
  add_step(p, {{0, 1, 2, 1}, {1, 2, 0, 1}, {2, 0, 1, 1}}, false);
  for (auto& ops : p.ops) {
    for (Op& op : ops) op.step = op.is_wait() ? 0 : 1;
  }
  return p;
}

TEST(ProgramBarrier, NoLaneIssuesPastABarrierUntilAllReachIt) {
  const Program p = ring3_all_gather(true);
  ASSERT_TRUE(verify(p).ok) << verify(p).reason;
  Hooks h;
  Progress progress(p, h);
  progress.pump_all();
  ASSERT_EQ(h.sent.size(), 3u);  // the three step-1 sends
  // Deliver two of them: their receivers are at the barrier, but rank 2 still waits for rank 1.
  progress.arrive(h.sent[0].lane, 1, h.sent[0].op, h.sent[0].seq);
  progress.arrive(h.sent[2].lane, 0, h.sent[2].op, h.sent[2].seq);
  EXPECT_EQ(h.sent.size(), 3u) << "nobody passes the barrier early";
  EXPECT_NE(progress.describe_stuck().find("at a barrier with 2 of 3 lanes"), std::string::npos)
      << progress.describe_stuck();
  progress.arrive(h.sent[1].lane, 2, h.sent[1].op, h.sent[1].seq);
  EXPECT_EQ(h.sent.size(), 6u) << "all three step-2 sends after the last arrival";
}

TEST(ProgramBarrier, VerifierRejectsUnequalBarrierCounts) {
  Program p = ring3_all_gather(true);
  p.ops[2].push_back(Op{Op::Kind::Barrier, 0, 0, 0});
  const Verdict v = verify(p);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("rank 0 has 1 barriers, rank 2 has 2"), std::string::npos) << v.reason;
}

TEST(ProgramBarrier, TimeStepIsPrinted) {
  EXPECT_EQ(to_string(ring3_all_gather(false).ops[0][0]), "send to rank 1 piece 0 (step 1)");
}

}  // namespace
}  // namespace collsim::collective
