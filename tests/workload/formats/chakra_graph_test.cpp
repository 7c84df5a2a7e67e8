// workload/formats/chakra_graph: a Chakra trace as a workload graph, node for node: streams,
// communicators resolved per rank, sends from the rank's own NPU, and the refusals that name
// the file and node.
#include "workload/formats/chakra_graph.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"

namespace collsim::workload::chakra {
namespace {

chakra::Node node(std::uint64_t id, NodeKind k, std::vector<std::uint64_t> deps = {}) {
  chakra::Node n;
  n.id = id;
  n.name = "n" + std::to_string(id);
  n.kind = k;
  n.data_deps = std::move(deps);
  return n;
}

// Rank r's trace: a 5 us compute, an all-reduce on group "g", then a send to (r + 1) % 2 and a
// receive from it.
RankTrace rank(std::uint32_t r) {
  RankTrace t;
  t.file = "t." + std::to_string(r) + ".et";
  chakra::Node c = node(10, NodeKind::Compute);
  c.duration_us = 5;
  chakra::Node a = node(11, NodeKind::Collective, {10});
  a.comm_type = 0;
  a.comm_size = 4096;
  a.pg_name = "g";
  chakra::Node s = node(12, NodeKind::Send, {11});
  s.comm_dst = static_cast<std::int32_t>((r + 1) % 2);
  s.comm_size = 100;
  chakra::Node v = node(13, NodeKind::Recv, {11});
  v.comm_src = static_cast<std::int32_t>((r + 1) % 2);
  v.comm_size = 100;
  t.nodes = {c, a, s, v};
  return t;
}

ReplayGraphOptions options() {
  ReplayGraphOptions o;
  o.groups["g"] = {0, 1};
  o.runnable = {collective::Collective::AllReduce};
  return o;
}

TEST(ChakraGraph, NodesKeepTheirIdsStreamsAndCommunicators) {
  const Graph g = replay_graph({rank(0), rank(1)}, {2}, 2, options());
  ASSERT_EQ(g.timelines.size(), 2u);
  ASSERT_EQ(g.programs.size(), 2u);
  const Program& p = g.programs[1];
  EXPECT_EQ(p.source, "t.1.et");
  EXPECT_EQ(p.nodes[0].id, 10u);
  EXPECT_EQ(p.nodes[0].duration, core::Time::from_ns(5 * 1000));
  EXPECT_EQ(g.streams[p.nodes[0].stream].name, "gpu");
  EXPECT_EQ(g.streams[p.nodes[1].stream].name, "comm");
  EXPECT_TRUE(g.streams[p.nodes[1].stream].serial);
  EXPECT_EQ(p.nodes[2].src, kSelf);
  EXPECT_EQ(p.nodes[2].dst, 0u);
  EXPECT_EQ(p.nodes[3].src, 0u);
  EXPECT_EQ(g.streams[p.nodes[3].stream].name, "none");  // receives take no slot
  // Both ranks' "g" is one group with both as participants.
  EXPECT_EQ(g.timelines[0].group_of(g.programs[0].nodes[1].group),
            g.timelines[1].group_of(p.nodes[1].group));
  const Group& gr = g.groups[g.timelines[0].group_of(0)];
  EXPECT_EQ(gr.name, "pg:g");
  EXPECT_EQ(gr.participants, (std::vector<std::uint32_t>{0, 1}));
}

TEST(ChakraGraph, OneTraceForEveryNpuSharesItsProgram) {
  ReplayGraphOptions o = options();
  o.serial = false;
  RankTrace every = rank(0);
  every.nodes.resize(2);  // compute and collective: the sends name NPU 1, not every NPU's peer
  const Graph g = replay_graph({every}, {2}, 2, o);
  ASSERT_EQ(g.programs.size(), 1u);
  ASSERT_EQ(g.timelines.size(), 2u);
  EXPECT_EQ(g.timelines[1].program, 0u);
  EXPECT_EQ(g.timelines[1].npu, 1u);
  EXPECT_FALSE(g.streams[g.programs[0].nodes[1].stream].serial);
}

TEST(ChakraGraph, RefusalsNameTheFileAndNode) {
  const auto refused = [](std::vector<RankTrace> t, ReplayGraphOptions o, std::uint32_t n) {
    try {
      replay_graph(t, {n}, n, o);
    } catch (const core::InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  ReplayGraphOptions o = options();
  o.groups.erase("g");
  EXPECT_NE(refused({rank(0), rank(1)}, o, 2)
                .find("t.0.et: node 1 (id 11, n11): pg_name \"g\" is not a group"),
            std::string::npos);
  o = options();
  o.runnable.clear();
  EXPECT_NE(refused({rank(0), rank(1)}, o, 2).find("no algorithm for all-reduce"),
            std::string::npos);
  EXPECT_NE(refused({rank(0), rank(1), rank(0)}, options(), 2)
                .find("3 ranks (files) for a platform of 2 NPUs"),
            std::string::npos);
  RankTrace self = rank(0);
  self.nodes[2].comm_dst = 0;
  EXPECT_NE(refused({self, rank(1)}, options(), 2)
                .find("t.0.et: node 2 (id 12, n12): comm_dst 0 is not another rank of the 2 NPUs"),
            std::string::npos);
  RankTrace mem = rank(0);
  mem.nodes[0].kind = NodeKind::MemLoad;
  EXPECT_NE(refused({mem, rank(1)}, options(), 2).find("NO_MEMORY_EXPANSION"), std::string::npos);
}

}  // namespace
}  // namespace collsim::workload::chakra
