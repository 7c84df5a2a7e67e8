// NVLS-tree (algorithms/nvls_tree.cpp): NVLS inside each node through the node's reducing switch,
// a double binary tree between nodes. The verifier proves its programs (one reducing switch per
// node: program.hpp rank_switch), and the flow backend runs it within the closed-form bounds of
// the resources it crosses (docs/nccl.md, "nvls-tree" under "NVLS, NVLS-tree, CollNet and PAT on
// the simulated backends").
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "collective/algorithm.hpp"
#include "collective/algorithms/double_binary_tree.hpp"
#include "collective/ir/verifier.hpp"
#include "core/error.hpp"
#include "jobs/collective_sweep.hpp"
#include "network/backend.hpp"
#include "topology/builders.hpp"

namespace collsim::collective {
namespace {

// The railfat links are their own (the h100 preset: NVLink 450 GB/s, NIC 50 GB/s).
topology::Topology railfat(const std::string& spec) {
  return topology::from_compact(spec, core::Bandwidth{1e9}, core::Time{});
}

Program tree(const topology::Topology& t, std::uint64_t bytes, std::uint32_t chunks,
             const std::string& algo = "nvls-tree:slices=3") {
  return build_program(parse_algorithm(algo, "a"), t, Collective::AllReduce, core::Bytes{bytes},
                       chunks);
}

jobs::ResultRow run(const topology::Topology& t, const char* backend, const std::string& algo,
                    std::uint64_t bytes) {
  jobs::CollectiveJob job;
  job.collective = Collective::AllReduce;
  job.sizes = {core::Bytes{bytes}};
  job.algorithms = {parse_algorithm(algo, "t")};
  return jobs::run_collective_job("p", t, network::find_backend(backend, "t"), job).at(0);
}

TEST(NvlsTree, VerifiesOnEvenAndOddNodeCountsAndNodeSizes) {
  for (const char* shape : {"2x8", "3x8", "5x8", "4x2", "7x3", "6x4"}) {
    const auto t = railfat(std::string("railfat:") + shape + ":reduce=system");
    for (std::uint32_t chunks : {1u, 2u}) {
      const Program p = tree(t, 1 << 20, chunks);
      const Verdict v = verify(p);
      EXPECT_TRUE(v.ok) << shape << " chunks " << chunks << ": " << v.reason;
    }
  }
}

TEST(NvlsTree, VerifierCatchesAMulticastBeforeTheTreeBroughtTheSum) {
  // Rank 8 (node 1, a leaf of tree 0 on 2 nodes) multicasts slice 0 of its shard before its
  // parent's sum comes back: the others of node 1 get the shard reduced over node 1 only.
  const auto t = railfat("railfat:2x8:reduce=system");
  Program p = tree(t, 1 << 20, 1, "nvls-tree:slices=1");
  auto& ops = p.ops[p.lane(8, 0)];
  const auto mc = std::find_if(ops.begin(), ops.end(),
                               [](const Op& o) { return o.kind == Op::Kind::Multicast; });
  const auto up = std::find_if(ops.begin(), ops.end(), [](const Op& o) {
    return o.kind == Op::Kind::Send && o.reduce;
  });
  ASSERT_NE(mc, ops.end());
  ASSERT_NE(up, ops.end());
  const Op m = *mc;
  ops.erase(mc);
  ops.insert(up, m);  // before the up-send, so before the parent's sum is posted to come back
  const Verdict v = verify(p);
  ASSERT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("reduced over 8 of 16"), std::string::npos) << v.reason;
}

TEST(NvlsTree, VerifierRefusesASwitchReductionToAnotherNode) {
  const auto t = railfat("railfat:2x4:reduce=system");
  Program p = tree(t, 1 << 20, 1, "nvls-tree:slices=1");
  for (Op& o : p.ops[p.lane(0, 0)]) {
    if (o.kind == Op::Kind::SwitchReduce) {
      o.peer = 5;  // node 1
      break;
    }
  }
  const Verdict v = verify(p);
  ASSERT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("peer on another switch"), std::string::npos) << v.reason;
}

TEST(NvlsTree, RefusedWithoutAReducingSwitchPerNodeAndOnOneNode) {
  for (const char* spec : {"railfat:2x8", "switch:8", "nvswitch:8:system=h100"}) {
    const auto t = topology::from_compact(spec, core::Bandwidth{1e9}, core::Time{});
    try {
      (void)tree(t, 1 << 20, 1);
      ADD_FAILURE() << spec << ": built";
    } catch (const core::InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("algorithm nvls-tree"), std::string::npos) << what;
      EXPECT_NE(what.find(std::string(spec).starts_with("nvswitch") ? "inside one: nvls"
                                                                      : "in-network reduction"),
                std::string::npos)
          << what;
    }
  }
  EXPECT_THROW((void)railfat("railfat:2x8:system=a100:reduce=system"), core::InputError);
}

TEST(NvlsTree, PacketBackendRefuses) {
  const auto t = railfat("railfat:2x4:reduce=system");
  try {
    (void)run(t, "packet", "nvls-tree:slices=2", 1 << 16);
    ADD_FAILURE() << "ran";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("packet backend has no in-network reduction"),
              std::string::npos)
        << e.what();
  }
}

// The closed-form lower bound of the resources nvls-tree crosses on railfat:Nx8:reduce=system
// (h100: NVLink B = 450 GB/s, NVLS efficiency rho = 0.85, NIC b = 50 GB/s): every switch port
// carries (g+1)/g S each way at rho B; the NIC of local rank j of node a carries, per tree, half
// a shard h = S / 2g per tree edge at a (its degree: children + parent) each way.
double lower_bound(std::uint32_t nodes, std::uint32_t g, double s) {
  const DoubleBinaryTree trees = double_binary_tree(nodes);
  std::uint32_t worst = 0;
  for (std::uint32_t a = 0; a < nodes; ++a) {
    std::uint32_t degree = 0;
    for (const auto& parent : trees.parent) {
      for (std::uint32_t c = 0; c < nodes; ++c) degree += parent[c] == a ? 1 : 0;
      degree += parent[a] == UINT32_MAX ? 0 : 1;
    }
    worst = std::max(worst, degree);
  }
  const double nic = worst * s / (2.0 * g) / 50e9;
  const double port = (g + 1.0) / g * s / (0.85 * 450e9);
  return std::max(nic, port);
}

TEST(NvlsTree, FlowWithinTheClosedFormBoundsOnTwoAndFourNodesOfEightH100s) {
  // 2 nodes: each node is one tree's root and the other's leaf, degree 2: the NIC moves S/g,
  // 2.68 ms at 1 GiB, below the switch ports' 9/8 S/(rho B) = 3.16 ms: NVLS-bound.
  // 4 nodes: an inner node of one tree (degree 3) is a leaf of the other: 2 S/g, 5.37 ms:
  // NIC-bound. Above the bound by the pipeline's fill and drain: at most (2 height + 2) of
  // the 64 slices (height 1 and 2: 6% and 9%).
  const double s = 1ull << 30;
  for (std::uint32_t nodes : {2u, 4u}) {
    const auto t = railfat("railfat:" + std::to_string(nodes) + "x8:reduce=system");
    const auto row = run(t, "flow", "nvls-tree", static_cast<std::uint64_t>(s));
    const double lb = lower_bound(nodes, 8, s);
    const double height = nodes == 2 ? 1 : 2;
    EXPECT_GT(row.time.seconds() / lb, 1.0) << nodes;
    EXPECT_LT(row.time.seconds() / lb, 1.0 + (2 * height + 2) / 64) << nodes;
  }
  EXPECT_NEAR(lower_bound(2, 8, s), 9.0 / 8 * s / (0.85 * 450e9), 1e-12);
  EXPECT_NEAR(lower_bound(4, 8, s), 2 * s / 8 / 50e9, 1e-12);
}

TEST(NvlsTree, FlowBeatsTheRingAndTheHierarchicalAllReduceAsTheRatesPredict) {
  // On railfat the ring (rank order) crosses each node boundary through one NIC: every ring
  // step waits for 1/n of S over one 50 GB/s NIC, 2(n-1)/n S / b in all. The hierarchical
  // all-reduce (halving-doubling in the node, then along each rail, then back) runs its stages
  // one after another: 2 (g-1)/g S/B + 2 (N-1)/N S/(g b). nvls-tree's bound is above; the
  // predicted order, nvls-tree < hierarchical < ring, holds with the margins the bounds leave.
  const double s = 1ull << 30;
  for (std::uint32_t nodes : {2u, 4u}) {
    const auto t = railfat("railfat:" + std::to_string(nodes) + "x8:reduce=system");
    const double n = nodes * 8.0;
    const double ring_cf = 2 * (n - 1) / n * s / 50e9;
    const double hier_cf = 2 * 7.0 / 8 * s / 450e9 + 2 * (nodes - 1.0) / nodes * s / 8 / 50e9;
    const double tree_hi = lower_bound(nodes, 8, s) * (nodes == 2 ? 1.0625 : 1.09375);
    ASSERT_LT(tree_hi, hier_cf) << nodes;
    const auto tree = run(t, "flow", "nvls-tree", static_cast<std::uint64_t>(s));
    const auto ring = run(t, "flow", "ring", static_cast<std::uint64_t>(s));
    const auto hier = run(t, "flow", "hierarchical", static_cast<std::uint64_t>(s));
    EXPECT_NEAR(ring.time.seconds() / ring_cf, 1.0, 0.01) << nodes;
    EXPECT_NEAR(hier.time.seconds() / hier_cf, 1.0, 0.02) << nodes;
    EXPECT_LT(tree.time.seconds(), hier.time.seconds()) << nodes;
    EXPECT_LT(hier.time.seconds(), ring.time.seconds()) << nodes;
  }
}

}  // namespace
}  // namespace collsim::collective
