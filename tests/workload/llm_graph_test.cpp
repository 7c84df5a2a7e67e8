// workload/llm_graph: one Megatron-LM iteration as a graph: the schedule's ops, the collectives
// of each layer, the messages between stages and the gradient buckets, counted from the config.
#include "workload/llm_graph.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.hpp"

namespace collsim::workload {
namespace {

using core::Time;

LlmGraphInput input(std::uint32_t tp, std::uint32_t pp, std::uint32_t dp, bool sp) {
  LlmGraphInput in;
  in.parallel.tp = tp;
  in.parallel.pp = pp;
  in.parallel.dp = dp;
  in.parallel.micro_batch = 1;
  in.parallel.global_batch = 4 * dp;  // 4 micro-batches
  in.parallel.sequence_parallel = sp;
  in.layers = 4;
  in.layer = {Time::from_ns(10 * 1000), Time::from_ns(20 * 1000), Time::from_ns(20 * 1000), Time::from_ns(40 * 1000),
              Time::from_ns(3 * 1000)};
  in.tp_bytes = core::Bytes{1 << 20};
  in.tp_per_pass = sp ? 4 : 2;
  in.pp_bytes = core::Bytes{1 << 20};
  in.layer_dense_params = 1e6;
  in.embed_params = 1e5;
  in.optimizer.assign(pp, Time::from_ns(5 * 1000));
  return in;
}

std::size_t count(const LlmGraph& g, std::uint32_t stage, NodeKind k, std::uint32_t category) {
  const Program& p = g.graph.programs[stage];
  return static_cast<std::size_t>(std::count_if(p.nodes.begin(), p.nodes.end(), [&](const Node& n) {
    return n.kind == k && n.category == category;
  }));
}

TEST(LlmGraph, OneTimelinePerStageWithItsScheduleAndCollectives) {
  const LlmGraph g = llm_graph(input(2, 2, 2, false));
  ASSERT_EQ(g.graph.timelines.size(), 2u);
  EXPECT_EQ(g.graph.timelines[1].npu, 4u);  // rank of (tp 0, dp 0, stage 1): 2 x 2 x 1
  for (std::uint32_t s = 0; s < 2; ++s) {
    // 4 micro-batches, a forward and a backward each.
    EXPECT_EQ(g.ops[s].size(), 8u);
    // 2 layers per stage x 4 micro-batches x (2 all-reduces forward + 2 backward).
    EXPECT_EQ(count(g, s, NodeKind::Collective, g.c_tp), 2u * 4 * 4);
    // One message per TP rank and micro-batch each way between the stages: stage 0 sends
    // 2 x 4 activations and receives 2 x 4 gradients.
    EXPECT_EQ(count(g, s, NodeKind::Send, g.c_pp), 8u);
    EXPECT_EQ(count(g, s, NodeKind::Recv, g.c_pp), 8u);
  }
  // Gradient buckets: 2 x 1e6 parameters per stage (< 40e6: one bucket) on the data-parallel
  // group, then the tied embedding's all-reduce between the first and last stage.
  for (std::uint32_t s = 0; s < 2; ++s) {
    EXPECT_EQ(count(g, s, NodeKind::Collective, g.c_dp), 2u);
  }
  bool embedding = false;
  for (const Group& gr : g.graph.groups) {
    if (gr.name.rfind("embedding", 0) != 0) continue;
    embedding = true;
    EXPECT_EQ(gr.participants, (std::vector<std::uint32_t>{0, 1}));
    ASSERT_EQ(gr.comms.size(), 2u);  // one per TP rank
    EXPECT_EQ(gr.comms[0].npus, (std::vector<topology::NodeId>{0, 4}));
    EXPECT_EQ(gr.comms[1].npus, (std::vector<topology::NodeId>{1, 5}));
  }
  EXPECT_TRUE(embedding);
}

TEST(LlmGraph, OneRailKeepsTpWholeAndSendsOnRankZero) {
  const LlmGraph g = llm_graph([] {
    LlmGraphInput in = input(2, 2, 2, true);
    in.one_rail = true;
    return in;
  }());
  // Sequence parallel: 2 all-gathers and 2 reduce-scatters per layer and pass.
  EXPECT_EQ(count(g, 0, NodeKind::Collective, g.c_tp), 2u * 4 * 8);
  for (const Node& n : g.graph.programs[0].nodes) {
    if (n.kind == NodeKind::Collective && n.category == g.c_tp) {
      const Group& gr = g.graph.groups[n.group];
      ASSERT_EQ(gr.comms.size(), 1u);
      EXPECT_EQ(gr.comms[0].npus, (std::vector<topology::NodeId>{0, 1}));
    }
    if (n.kind == NodeKind::Send) {
      EXPECT_EQ(n.src, 0u);
      EXPECT_EQ(n.dst, 4u);
    }
  }
  // Without it, each TP rank sends its own activation.
  const LlmGraph all = llm_graph(input(2, 2, 2, true));
  EXPECT_EQ(count(all, 0, NodeKind::Send, all.c_pp), 8u);
}

TEST(LlmGraph, InterleavedScheduleMatchesMegatronsOrder) {
  LlmParallel p;
  p.pp = 2;
  p.vpp = 2;
  p.dp = 1;
  p.micro_batch = 1;
  p.global_batch = 4;
  // Stage 0 of 2 with 2 chunks and 4 micro-batches: warm-up (2 - 0 - 1) x 2 + (2 - 1) x 2 = 4
  // forwards: mb 0, 1 of chunk 0 then mb 0, 1 of chunk 1.
  const std::vector<LlmOp> ops = stage_schedule(p, 0);
  ASSERT_EQ(ops.size(), 16u);
  const std::pair<std::uint32_t, std::uint32_t> want[] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
  for (int i = 0; i < 4; ++i) {
    EXPECT_FALSE(ops[i].backward);
    EXPECT_EQ(ops[i].micro_batch, want[i].first);
    EXPECT_EQ(ops[i].chunk, want[i].second);
  }
  EXPECT_TRUE(ops[5].backward);
  EXPECT_EQ(ops[5].chunk, 1u);  // the last chunk's backward first
}

TEST(LlmGraph, LayersThatDoNotDivideAreRefused) {
  LlmGraphInput in = input(1, 3, 1, false);
  EXPECT_THROW(llm_graph(in), core::InputError);
}

}  // namespace
}  // namespace collsim::workload
