// The symbolic verifier accepts correct programs and rejects broken ones with a reason.
#include "collective/ir/verifier.hpp"

#include <gtest/gtest.h>

#include "collective/algorithm.hpp"

namespace collsim::collective {
namespace {

// A correct 3-rank ring all-reduce written by hand (not by ring.cpp), one piece per rank.
Program hand_ring3() {
  Program p = make_program("hand", Collective::AllReduce, 3, core::Bytes{300}, 1);
  // Reduce-scatter: step 0 rank k sends piece k to k+1; step 1 sends piece k-1.
  add_step(p, {{0, 1, 0, 1}, {1, 2, 1, 1}, {2, 0, 2, 1}}, true);
  add_step(p, {{0, 1, 2, 1}, {1, 2, 0, 1}, {2, 0, 1, 1}}, true);
  // Now rank k holds piece k+1 complete. All-gather.
  add_step(p, {{0, 1, 1, 1}, {1, 2, 2, 1}, {2, 0, 0, 1}}, false);
  add_step(p, {{0, 1, 0, 1}, {1, 2, 1, 1}, {2, 0, 2, 1}}, false);
  return p;
}

TEST(Verifier, AcceptsHandWrittenRing) {
  const Verdict v = verify(hand_ring3());
  EXPECT_TRUE(v.ok) << v.reason;
  EXPECT_EQ(v.messages, 12u);  // 4 steps x 3 ranks
  EXPECT_EQ(v.ops, 24u);
}

TEST(Verifier, RejectsMissingSend) {
  Program p = hand_ring3();
  auto& ops = p.ops[2];
  // Drop rank 2's last send: rank 0 waits forever for it.
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    if (it->is_send()) {
      ops.erase(std::next(it).base());
      break;
    }
  }
  const Verdict v = verify(p);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("deadlock"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("rank 0"), std::string::npos) << v.reason;
}

TEST(Verifier, RejectsMissingRecv) {
  Program p = hand_ring3();
  auto& ops = p.ops[1];
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    if (!it->is_send()) {
      ops.erase(std::next(it).base());
      break;
    }
  }
  const Verdict v = verify(p);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("never received"), std::string::npos) << v.reason;
}

TEST(Verifier, RejectsEarlySend) {
  // Rank 1 sends piece 0 in the second reduce-scatter step before receiving it from rank 0's
  // first step: move its second send to the front of its list. It ships its own contribution
  // only, so rank 2 ends short of rank 0's contribution.
  Program p = hand_ring3();
  auto& ops = p.ops[1];
  // ops[1]: send(2,piece1), recvR(0,piece0), send(2,piece0), recvR(0,piece2), ...
  ASSERT_TRUE(ops[2].is_send());
  std::swap(ops[1], ops[2]);
  const Verdict v = verify(p);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("missing rank 0"), std::string::npos) << v.reason;
}

TEST(Verifier, RejectsDoubleReduction) {
  // All-gather step received as a reduction: the piece already contains the contributions.
  Program p = hand_ring3();
  for (auto& rank_ops : p.ops) {
    for (auto& op : rank_ops) {
      if (op.kind == Op::Kind::Recv) op.kind = Op::Kind::RecvReduce;
    }
  }
  const Verdict v = verify(p);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("counted twice"), std::string::npos) << v.reason;
}

TEST(Verifier, RejectsMismatchedPieces) {
  Program p = hand_ring3();
  p.ops[1][1].first = 2;  // rank 1's first recv names piece 2, rank 0 sent piece 0
  const Verdict v = verify(p);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("pieces differ"), std::string::npos) << v.reason;
}

TEST(Verifier, RejectsSendOfUnheldPiece) {
  // All-gather: rank 0 sends rank 1's piece, which it does not hold yet.
  Program p = make_program("hand", Collective::AllGather, 2, core::Bytes{2}, 1);
  add_step(p, {{0, 1, 1, 1}, {1, 0, 1, 1}}, false);
  const Verdict v = verify(p);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("before it holds it"), std::string::npos) << v.reason;
}

TEST(Verifier, RejectsIncompleteCollective) {
  // Only the reduce-scatter half of an all-reduce.
  Program p = hand_ring3();
  for (auto& rank_ops : p.ops) rank_ops.resize(4);
  const Verdict v = verify(p);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("all-reduce: rank 0 ends with piece 0 reduced over 1 of 3"),
            std::string::npos)
      << v.reason;
}

TEST(Verifier, RejectsBadStructure) {
  Program p = hand_ring3();
  p.ops[0][0].peer = 0;
  Verdict v = verify(p);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("peer is the rank itself"), std::string::npos) << v.reason;
  p = hand_ring3();
  p.ops[0][0].first = 7;
  v = verify(p);
  EXPECT_NE(v.reason.find("beyond the piece space"), std::string::npos) << v.reason;
}

TEST(Verifier, ChecksAllToAllColumns) {
  // 2 ranks: piece (src*2+dst). Rank 0 must send piece 1 to rank 1; rank 1 piece 2 to rank 0.
  Program good = make_program("hand", Collective::AllToAll, 2, core::Bytes{8}, 1);
  add_step(good, {{0, 1, 1, 1}, {1, 0, 2, 1}}, false);
  EXPECT_TRUE(verify(good).ok) << verify(good).reason;
  Program bad = make_program("hand", Collective::AllToAll, 2, core::Bytes{8}, 1);
  add_step(bad, {{0, 1, 0, 1}, {1, 0, 2, 1}}, false);  // rank 0 sends its own column
  const Verdict v = verify(bad);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("all-to-all: rank 1 ends without rank 0's piece 1"), std::string::npos)
      << v.reason;
}

TEST(Program, PieceBytesSplitEvenly) {
  Program p = make_program("x", Collective::AllReduce, 3, core::Bytes{10}, 1);
  // Pieces span [0,3), [3,6), [6,10).
  EXPECT_EQ(p.bytes(0, 1).count, 3u);
  EXPECT_EQ(p.bytes(2, 1).count, 4u);
  EXPECT_EQ(p.bytes(0, 3).count, 10u);
}

}  // namespace
}  // namespace collsim::collective
