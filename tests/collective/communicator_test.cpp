// Communicators: group forms, errors, and algorithms built on a group of NPUs.
#include "collective/communicator.hpp"

#include <gtest/gtest.h>

#include "collective/algorithm.hpp"
#include "collective/ir/verifier.hpp"
#include "core/error.hpp"
#include "topology/builders.hpp"

namespace collsim::collective {
namespace {

const core::Bandwidth kBw{16e9};
const core::Time kLat = core::Time::from_ns(150);

std::string error_of(const std::string& text, const topology::Topology& t) {
  try {
    parse_groups(text, t, "--group");
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Communicator, DimensionGroupsOfATorus) {
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  const auto x = parse_groups("dim:0", t, "g");
  ASSERT_EQ(x.size(), 4u);
  EXPECT_EQ(x[1].npus, (std::vector<topology::NodeId>{4, 5, 6, 7}));
  EXPECT_EQ(x[1].label, "dim0[1]");
  const auto y = parse_groups("dim:1", t, "g");
  ASSERT_EQ(y.size(), 4u);
  EXPECT_EQ(y[2].npus, (std::vector<topology::NodeId>{2, 6, 10, 14}));
  const auto all = parse_groups("all", t, "g");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_TRUE(all[0].is_identity(16));
}

TEST(Communicator, ExplicitListsAndRanges) {
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  const auto g = parse_groups("npus:0-3;12,8,4", t, "g");
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].npus, (std::vector<topology::NodeId>{0, 1, 2, 3}));
  EXPECT_EQ(g[1].npus, (std::vector<topology::NodeId>{12, 8, 4}));  // rank order as written
}

TEST(Communicator, ErrorsNameTheFieldAndTheReason) {
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  EXPECT_EQ(error_of("dim:2", t), "--group: \"dim:2\": torus:4x4 has dimensions dim:0..dim:1");
  EXPECT_NE(error_of("npus:0,16", t).find("NPU 16 in \"npus:0,16\" is out of range"),
            std::string::npos);
  EXPECT_NE(error_of("npus:0,1,1", t).find("NPU 1 appears twice"), std::string::npos);
  EXPECT_NE(error_of("npus:3", t).find("at least 2"), std::string::npos);
  EXPECT_NE(error_of("npus:0-3;3-5", t).find("NPU 3 is in two communicators"), std::string::npos);
  EXPECT_NE(error_of("npus:3-1", t).find("goes down"), std::string::npos);
  EXPECT_NE(error_of("rows", t).find("unknown group \"rows\""), std::string::npos);
  EXPECT_NE(error_of("dim:x", t).find("K must be a dimension index"), std::string::npos);
}

TEST(Communicator, RingOnAColumnOfATorusIsOneHopPerStepAndCorrect) {
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  const Communicator col = parse_groups("dim:1", t, "g")[1];  // NPUs 1, 5, 9, 13
  for (const char* algo : {"ring", "ring:directions=2", "direct", "halving-doubling"}) {
    const Program p = build_program(parse_algorithm(algo, "t"), t, col, Collective::AllReduce,
                                    core::Bytes{1 << 20}, 2);
    ASSERT_EQ(p.num_ranks, 4u);
    EXPECT_EQ(p.npus, col.npus);
    const Verdict v = verify(p);
    EXPECT_TRUE(v.ok) << algo << ": " << v.reason;
    if (std::string(algo).starts_with("ring")) {
      std::uint32_t sends = 0;
      for (Lane l = 0; l < p.num_lanes(); ++l) {
        for (std::uint32_t i = 0; i < p.num_ops(l); ++i) {
          const Op op = p.op(l, i);
          if (!op.is_send()) continue;
          ++sends;
          EXPECT_EQ(t.hops(p.npu(l), p.npu(op.peer)), 1u) << algo;
        }
      }
      EXPECT_EQ(sends, (std::string(algo) == "ring" ? 1u : 2u) * 2 * 2 * 3 * 4) << algo;
    }
  }
}

TEST(Communicator, PowerOfTwoCheckCountsTheGroupNotTheTopology) {
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  const Communicator three = parse_groups("npus:0,5,10", t, "g")[0];
  EXPECT_THROW(build_program(parse_algorithm("halving-doubling", "t"), t, three,
                             Collective::AllReduce, core::Bytes{1024}, 1),
               core::InputError);
  const Program p = build_program(parse_algorithm("direct", "t"), t, three, Collective::AllReduce,
                                  core::Bytes{1024}, 1);
  EXPECT_TRUE(verify(p).ok);
  EXPECT_EQ(p.npu(2), 10u);
}

TEST(Communicator, AnExplicitListKeepsItsRankOrderForRingsEvenNamingEveryNpu) {
  // torus:4x4's ring order is a snake, one hop per step; `all` follows it. An npus: list is ranks
  // in the order written: the ring visits rank 0, 1, 2, ... whether or not the list names every
  // NPU (issue 51: `-g npus:...` naming every NPU used to take the snake).
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  const std::vector<Rank> snake = ring_order(t, parse_groups("all", t, "g")[0]);
  std::vector<Rank> in_order(16);
  for (Rank r = 0; r < 16; ++r) in_order[r] = r;
  EXPECT_NE(snake, in_order);
  for (std::size_t k = 0; k < 16; ++k) EXPECT_EQ(t.hops(snake[k], snake[(k + 1) % 16]), 1u);
  const Communicator listed = parse_groups("npus:0-15", t, "g")[0];
  EXPECT_TRUE(listed.is_identity(16));
  EXPECT_FALSE(listed.is_default(16));
  EXPECT_EQ(ring_order(t, listed), in_order);
  const Communicator columns =
      parse_groups("npus:0,4,8,12,1,5,9,13,2,6,10,14,3,7,11,15", t, "g")[0];
  EXPECT_EQ(ring_order(t, columns), in_order);
  // The ring program sends rank r's pieces to rank r + 1: NPU 0 -> 4 -> 8 -> 12 -> 1 ...
  const Program p = build_program(parse_algorithm("ring", "t"), t, columns,
                                  Collective::AllGather, core::Bytes{1 << 10}, 1);
  EXPECT_TRUE(verify(p).ok);
  for (Lane l = 0; l < p.num_lanes(); ++l) {
    for (std::uint32_t i = 0; i < p.num_ops(l); ++i) {
      const Op op = p.op(l, i);
      if (op.is_send()) {
        EXPECT_EQ(op.peer, (p.rank_of(l) + 1) % 16) << l;
      }
    }
  }
}

}  // namespace
}  // namespace collsim::collective
