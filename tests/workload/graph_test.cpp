// workload/graph: building programs and the checks every graph passes before it runs.
#include "workload/graph.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"

namespace collsim::workload {
namespace {

Graph one_program() {
  Graph g;
  g.name = "g";
  g.stream("compute");
  g.category("compute");
  g.programs.resize(1);
  g.programs[0].source = "p.et";
  g.timelines = {{0, 0, {}}};
  return g;
}

std::string refusal(const Graph& g, std::uint32_t npus) {
  try {
    validate(g, npus);
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(WorkloadGraph, BuilderKeepsDependenciesDataFirstAndIdsAsIndices) {
  Graph g = one_program();
  ProgramBuilder b(g.programs[0]);
  Node n;
  n.kind = NodeKind::Compute;
  const auto a = b.add(n, {});
  const auto c = b.add(n, {});
  const auto d = b.add(n, {a}, {c});
  const Node& x = g.programs[0].nodes[d];
  EXPECT_EQ(x.id, 2u);
  EXPECT_EQ(x.data_deps, 1u);
  EXPECT_EQ(x.ctrl_deps, 1u);
  EXPECT_EQ(g.programs[0].deps[x.deps_begin], a);
  EXPECT_EQ(g.programs[0].deps[x.deps_begin + 1], c);
  EXPECT_EQ(refusal(g, 1), "");
  EXPECT_EQ(total_nodes(g), 3u);
  g.timelines.push_back({0, 0, {}});  // a second rank sharing the program
  EXPECT_EQ(total_nodes(g), 6u);
}

TEST(WorkloadGraph, CycleIsRefusedNamingANodeOnIt) {
  Graph g = one_program();
  Program& p = g.programs[0];
  ProgramBuilder b(p);
  Node n;
  b.add(n, {});
  b.add(n, {0});
  p.deps.push_back(1);  // node 0 now also depends on node 1: 0 -> 1 -> 0
  p.nodes[0].deps_begin = static_cast<std::uint32_t>(p.deps.size() - 1);
  p.nodes[0].data_deps = 1;
  const std::string m = refusal(g, 1);
  EXPECT_NE(m.find("p.et: node 1 (id 1): on a dependency cycle with node id 0"), std::string::npos)
      << m;
  EXPECT_NE(m.find("2 of the 2 nodes can never run"), std::string::npos) << m;
}

TEST(WorkloadGraph, BadReferencesAreRefusedNamingTheNode) {
  {
    Graph g = one_program();
    Node n;
    n.kind = NodeKind::Send;
    n.src = 0;
    n.dst = 0;
    ProgramBuilder(g.programs[0]).add(n, {});
    EXPECT_NE(refusal(g, 2).find("a send from NPU 0 to itself"), std::string::npos);
  }
  {
    Graph g = one_program();
    Node n;
    n.kind = NodeKind::Recv;
    n.src = 5;
    n.dst = kSelf;
    ProgramBuilder(g.programs[0]).add(n, {});
    EXPECT_NE(refusal(g, 2).find("from NPU 5 to NPU"), std::string::npos);
  }
  {
    Graph g = one_program();
    Node n;
    n.kind = NodeKind::Collective;  // no group
    ProgramBuilder(g.programs[0]).add(n, {});
    EXPECT_NE(refusal(g, 2).find("p.et: node 0 (id 0): no group"), std::string::npos);
  }
  {
    Graph g = one_program();
    g.timelines[0].npu = 3;
    EXPECT_NE(refusal(g, 2).find("runs on NPU 3, but the platform has 2 NPUs"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace collsim::workload
