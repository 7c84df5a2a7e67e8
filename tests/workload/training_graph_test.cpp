// workload/training_graph: a layer table becomes one SPMD timeline whose nodes, streams and
// dependencies are the training loop's (MultiTree Sec. V; ACE Sec. 5; Themis Sec. 5.2).
#include "workload/training_graph.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.hpp"
#include "topology/builders.hpp"

namespace collsim::workload {
namespace {

using core::Time;

// Two layers, each with forward, input- and weight-gradient compute and a data-parallel
// weight-gradient all-reduce; layer 1 also has a blocking model-parallel forward all-gather.
Workload two_layers() {
  Workload w;
  w.name = "two";
  w.model_parallel_npus = 2;
  for (int i = 0; i < 2; ++i) {
    Layer l;
    l.name = "l" + std::to_string(i);
    l.compute = {Time::from_ns(10 * 1000), Time::from_ns(20 * 1000), Time::from_ns(30 * 1000)};
    l.comm[2].collective = collective::Collective::AllReduce;
    l.comm[2].size = core::Bytes{1 << 20};
    l.comm[2].scope = Scope::DataParallel;
    l.update = Time::from_ns(1 * 1000);
    w.layers.push_back(l);
  }
  w.layers[1].comm[0].collective = collective::Collective::AllGather;
  w.layers[1].comm[0].size = core::Bytes{1 << 16};
  w.layers[1].comm[0].scope = Scope::ModelParallel;
  return w;
}

const topology::Topology& torus() {
  static const topology::Topology t = topology::torus({2, 2}, core::Bandwidth{1e9}, Time{});
  return t;
}

std::size_t count(const TrainingGraph& g, TrainingNodeInfo::Kind k) {
  return static_cast<std::size_t>(std::count_if(g.info.begin(), g.info.end(),
                                                [k](const TrainingNodeInfo& i) { return i.kind == k; }));
}

TEST(TrainingGraph, OneSpmdTimelineWithTheLoopsNodes) {
  TrainingGraphOptions o;
  o.iterations = 2;
  const TrainingGraph g = training_graph(two_layers(), torus(), o);
  EXPECT_TRUE(g.graph.spmd);
  ASSERT_EQ(g.graph.timelines.size(), 1u);
  // Per iteration 2 x 3 computes, 2 weight-gradient and 1 forward collective; updates in the
  // second iteration and the tail (2 each); a marker per iteration and one for the tail.
  EXPECT_EQ(count(g, TrainingNodeInfo::Kind::Compute), 2u * 6 + 2 + 2);
  EXPECT_EQ(count(g, TrainingNodeInfo::Kind::Collective), 2u * 3);
  EXPECT_EQ(g.iteration_ends.size(), 3u);
  EXPECT_EQ(g.graph.programs[0].nodes.size(), g.info.size());
  // Flat collectives queue per scope: the data-parallel and model-parallel streams are serial.
  for (const Node& n : g.graph.programs[0].nodes) {
    if (n.kind != NodeKind::Collective) continue;
    const Stream& s = g.graph.streams[n.stream];
    EXPECT_TRUE(s.serial);
    EXPECT_FALSE(s.lifo);
    EXPECT_EQ(s.name, n.collective == collective::Collective::AllGather
                          ? "comm:model-parallel"
                          : "comm:data-parallel");
    const Group& gr = g.graph.groups[n.group];
    EXPECT_EQ(gr.comms.size(), 2u);  // two groups of 2 NPUs either way on 4 NPUs
  }
}

TEST(TrainingGraph, ComputeWaitsForTheCollectivesTheLoopWaitsFor) {
  TrainingGraphOptions o;
  o.iterations = 2;
  const TrainingGraph g = training_graph(two_layers(), torus(), o);
  const Program& p = g.graph.programs[0];
  // Iteration 2's update of layer 0 waits for iteration 1's weight-gradient all-reduce of layer
  // 0 (the last collective issued in iteration 1's backward pass).
  std::uint32_t ag = kNone, wg0 = kNone;
  for (std::uint32_t i = 0; i < p.nodes.size(); ++i) {
    const TrainingNodeInfo& in = g.info[i];
    if (in.kind == TrainingNodeInfo::Kind::Collective && in.layer == 0 && wg0 == kNone) wg0 = i;
    if (in.kind == TrainingNodeInfo::Kind::Collective && in.pass == Pass::Forward && ag == kNone) {
      ag = i;
    }
    if (in.kind == TrainingNodeInfo::Kind::Compute && in.update && in.layer == 0) {
      const Node& n = p.nodes[i];
      const auto* d = &p.deps[n.deps_begin];
      EXPECT_TRUE(std::find(d, d + n.data_deps, wg0) != d + n.data_deps);
      break;
    }
  }
  // The blocking forward all-gather of layer 1 is waited for by the next compute node (layer 1's
  // weight gradient, first in back-propagation).
  ASSERT_NE(ag, kNone);
  const Node& next = p.nodes[ag + 1];
  ASSERT_EQ(next.kind, NodeKind::Compute);
  const auto* d = &p.deps[next.deps_begin];
  EXPECT_TRUE(std::find(d, d + next.data_deps, ag) != d + next.data_deps);
}

TEST(TrainingGraph, LifoOrderAndHierarchicalOrIdealStreams) {
  TrainingGraphOptions o;
  o.order = IssueOrder::Lifo;
  TrainingGraph lifo = training_graph(two_layers(), torus(), o);
  EXPECT_TRUE(lifo.graph.streams[lifo.graph.stream("comm:data-parallel")].lifo);
  // Hierarchical: groups are dimensions (model-parallel = the inner one), collectives start
  // when issued.
  o.staged = true;
  TrainingGraph staged = training_graph(two_layers(), torus(), o);
  for (const Node& n : staged.graph.programs[0].nodes) {
    if (n.kind != NodeKind::Collective) continue;
    EXPECT_FALSE(staged.graph.streams[n.stream].serial);
    const Group& gr = staged.graph.groups[n.group];
    EXPECT_TRUE(gr.comms.empty());
    EXPECT_EQ(gr.dims, (std::vector<std::uint32_t>{
                           n.collective == collective::Collective::AllGather ? 0u : 1u}));
  }
  o.iterations = 0;
  EXPECT_THROW(training_graph(two_layers(), torus(), o), core::InputError);
}

TEST(TrainingGraph, DeferredOverlapIssuesEveryGradientAfterBackPropagation) {
  TrainingGraphOptions o;
  o.overlap = Overlap::None;
  const TrainingGraph g = training_graph(two_layers(), torus(), o);
  // The two weight-gradient all-reduces come after the last backward compute, layer 1 first.
  const Program& p = g.graph.programs[0];
  std::vector<std::uint32_t> wg;
  std::uint32_t last_compute = 0;
  for (std::uint32_t i = 0; i < p.nodes.size(); ++i) {
    if (g.info[i].kind == TrainingNodeInfo::Kind::Collective &&
        g.info[i].pass == Pass::WeightGradient) {
      wg.push_back(i);
    }
    if (g.info[i].kind == TrainingNodeInfo::Kind::Compute && !g.info[i].update &&
        i < g.iteration_ends[0]) {
      last_compute = i;
    }
  }
  ASSERT_EQ(wg.size(), 2u);
  EXPECT_GT(wg[0], last_compute);
  EXPECT_EQ(g.info[wg[0]].layer, 1u);
  EXPECT_EQ(g.info[wg[1]].layer, 0u);
}

}  // namespace
}  // namespace collsim::workload
