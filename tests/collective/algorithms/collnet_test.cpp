// CollNet Direct (algorithms/collnet.cpp) over SHARP leaves (railfat:NxG:sharp=...): the
// verifier proves its programs, and the flow backend runs it within the closed-form bounds of
// the resources it crosses, the switch's SHARP rate among them (docs/nccl.md "collnet").
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "collective/algorithm.hpp"
#include "collective/nccl/model.hpp"
#include "collective/ir/verifier.hpp"
#include "core/error.hpp"
#include "jobs/collective_sweep.hpp"
#include "network/backend.hpp"
#include "topology/builders.hpp"
#include "topology/gpu_systems/gpu_system.hpp"

namespace collsim::collective {
namespace {

topology::Topology railfat(const std::string& spec) {
  return topology::from_compact(spec, core::Bandwidth{1e9}, core::Time{});
}

Program collnet(const topology::Topology& t, std::uint32_t chunks,
                const std::string& algo = "collnet:slices=3") {
  return build_program(parse_algorithm(algo, "a"), t, Collective::AllReduce,
                       core::Bytes{1 << 20}, chunks);
}

jobs::ResultRow run(const topology::Topology& t, const char* backend, const std::string& algo,
                    std::uint64_t bytes) {
  jobs::CollectiveJob job;
  job.collective = Collective::AllReduce;
  job.sizes = {core::Bytes{bytes}};
  job.algorithms = {parse_algorithm(algo, "t")};
  return jobs::run_collective_job("p", t, network::find_backend(backend, "t"), job).at(0);
}

TEST(CollNet, VerifiesOnEvenAndOddNodeCountsAndNodeSizes) {
  for (const char* shape : {"2x8", "3x4", "5x2", "7x3", "4x8:reduce=system"}) {
    const auto t = railfat(std::string("railfat:") + shape + ":sharp=line");
    for (std::uint32_t chunks : {1u, 2u}) {
      const Verdict v = verify(collnet(t, chunks));
      EXPECT_TRUE(v.ok) << shape << " chunks " << chunks << ": " << v.reason;
    }
  }
}

TEST(CollNet, VerifierCatchesAnAllGatherBeforeTheSwitchSum) {
  // Rank 1 sends its shard to the node before the switch's reduction across nodes is posted to
  // come back: the others get shard 1 reduced over node 0 only.
  const auto t = railfat("railfat:2x4:sharp=line");
  Program p = collnet(t, 1, "collnet:slices=1");
  auto& ops = p.ops[1];
  const auto first_switch = std::find_if(ops.begin(), ops.end(), [](const Op& o) {
    return o.kind == Op::Kind::SwitchReduce;
  });
  const auto gather = std::find_if(ops.begin(), ops.end(), [](const Op& o) {
    return o.kind == Op::Kind::Send && !o.reduce;
  });
  ASSERT_NE(first_switch, ops.end());
  ASSERT_NE(gather, ops.end());
  const Op g = *gather;
  ops.erase(gather);
  ops.insert(std::find_if(ops.begin(), ops.end(),
                          [](const Op& o) { return o.kind == Op::Kind::RecvSwitch; }),
             g);
  const Verdict v = verify(p);
  ASSERT_FALSE(v.ok);
  EXPECT_NE(v.reason.find("reduced over 4 of 8"), std::string::npos) << v.reason;
}

TEST(CollNet, RefusedWithoutSharpLeavesOrWithARailOverSeveralLeaves) {
  for (const char* spec : {"railfat:2x8", "railfat:2x8:reduce=system", "nvswitch:8:system=h100",
                           "railfat:6x2:leaf=4:sharp=line", "railfat:2x4:planes=2:sharp=line"}) {
    const auto t = railfat(spec);
    try {
      (void)collnet(t, 1);
      ADD_FAILURE() << spec << ": built";
    } catch (const core::InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("algorithm collnet"), std::string::npos) << what;
      EXPECT_NE(what.find("SHARP"), std::string::npos) << what;
    }
  }
  EXPECT_THROW((void)railfat("railfat:2x8:sharp_latency=1us"), core::InputError);
  EXPECT_THROW((void)railfat("railfat:2x8:sharp=fast"), core::InputError);
}

TEST(CollNet, PacketBackendRefuses) {
  const auto t = railfat("railfat:2x4:sharp=line");
  try {
    (void)run(t, "packet", "collnet:slices=2", 1 << 16);
    ADD_FAILURE() << "ran";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("packet backend has no in-network reduction"),
              std::string::npos)
        << e.what();
  }
}

// The bound of the resources CollNet Direct crosses on railfat:Nxg (h100: B = 450 GB/s, b =
// 50 GB/s) with SHARP at `sharp` bytes/s per leaf port: the NVLink of a GPU carries 2 (g-1)/g S
// each way (direct reduce-scatter and all-gather), its NIC and leaf port (N+1)/N S/g each way
// (the switch's reduction and multicast of shard j) at min(b, sharp).
double lower_bound(double nodes, double g, double s, double sharp) {
  return std::max(2 * (g - 1) / g * s / 450e9, (nodes + 1) / nodes * s / g / std::min(50e9, sharp));
}

TEST(CollNet, FlowWithinTheClosedFormBoundsOnTwoAndFourNodesOfEightH100s) {
  // At line rate NVLink sets the bound, 4.18 ms at 1 GiB (NICs: 4.03 ms on 2 nodes, 3.36 on 4);
  // with SHARP at 20 GB/s per port the switch does: (N+1)/N S/(g 20 GB/s), 10.1 and 8.4 ms.
  // Above the bound by the pipeline's fill and drain, at most 4 stages of the 32 slices.
  const double s = 1ull << 30;
  for (std::uint32_t nodes : {2u, 4u}) {
    for (const char* sharp : {"line", "20GB/s"}) {
      const auto t =
          railfat("railfat:" + std::to_string(nodes) + "x8:sharp=" + std::string(sharp));
      const auto row = run(t, "flow", "collnet", static_cast<std::uint64_t>(s));
      const double lb = lower_bound(nodes, 8, s, std::string(sharp) == "line" ? 50e9 : 20e9);
      EXPECT_GT(row.time.seconds() / lb, 1.0) << nodes << " " << sharp;
      EXPECT_LT(row.time.seconds() / lb, 1.0 + 4.0 / 32) << nodes << " " << sharp;
    }
  }
  EXPECT_NEAR(lower_bound(2, 8, s, 50e9), 1.75 * s / 450e9, 1e-12);
  EXPECT_NEAR(lower_bound(4, 8, s, 20e9), 1.25 * s / 8 / 20e9, 1e-12);
}

TEST(CollNet, FlowOrderAgainstNvlsTreeFollowsTheBounds) {
  // 2 nodes: nvls-tree is bound by its switch ports at 3.16 ms (at most 6.25% above), below
  // CollNet's 4.18 ms; 4 nodes: nvls-tree's NICs carry 2 S/g (5.37 ms), CollNet's NVLink bound
  // (4.18 ms, at most 12.5% above) is lower: CollNet wins.
  const double s = 1ull << 30;
  for (std::uint32_t nodes : {2u, 4u}) {
    const auto t =
        railfat("railfat:" + std::to_string(nodes) + "x8:reduce=system:sharp=line");
    const auto cn = run(t, "flow", "collnet", static_cast<std::uint64_t>(s));
    const auto tree = run(t, "flow", "nvls-tree", static_cast<std::uint64_t>(s));
    if (nodes == 2) {
      EXPECT_LT(tree.time.seconds(), cn.time.seconds());
    } else {
      EXPECT_LT(cn.time.seconds(), tree.time.seconds());
    }
  }
}

nccl::Estimate nccl_estimate(const char* algo, nccl::Op op, std::uint32_t gpus,
                             std::uint32_t nodes, double bytes) {
  const nccl::Context ctx{topology::find_gpu_system("h100", "t"), {gpus, nodes}, {}};
  return nccl::estimate(algo, op, bytes, ctx);
}

TEST(NcclCollNet, ClosedFormIsTheLinkBoundWithNcclsTunerLatency) {
  // 4 nodes of 8 H100s: NVLink B g / (2 (g-1)) = B x 8/14 (B = η x 18 x 20.6 GB/s, 201 GB/s)
  // below the NICs' g b = 8 x 0.94 x 50 = 376 GB/s; latency (NCCL 2.29 collnet.cc)
  // 2 (3.7 + 7 x 0.4) + 31 = 44 us, + α.
  const double bytes = 1 << 30;
  const nccl::Calibration cal;
  const double b = cal.efficiency * 18 * 20.6e9;
  const auto e = nccl_estimate("collnet", nccl::Op::AllReduce, 8, 4, bytes);
  EXPECT_NEAR(e.seconds / (cal.overhead_s + 44e-6 + bytes / (b * 8 / 14)), 1.0, 1e-9);
  // One GPU per node: the NIC alone; latency 31 us.
  const auto one = nccl_estimate("collnet", nccl::Op::AllReduce, 1, 4, bytes);
  EXPECT_NEAR(one.seconds / (cal.overhead_s + 31e-6 + bytes / (0.94 * 50e9)), 1.0, 1e-9);
}

TEST(NcclCollNet, OnlyWhenNamedAcrossNodesForAllReduce) {
  // Faster than the ring and nvls-tree on 4 nodes at 1 GiB, yet `nccl` never takes it (NCCL
  // needs NCCL_COLLNET_ENABLE=1 and the SHARP plugin).
  const double bytes = 1 << 30;
  const double cn = nccl_estimate("collnet", nccl::Op::AllReduce, 8, 4, bytes).seconds;
  const auto chosen = nccl_estimate("nccl", nccl::Op::AllReduce, 8, 4, bytes);
  EXPECT_LT(cn, chosen.seconds);
  EXPECT_NE(chosen.algorithm->name, "collnet");
  EXPECT_THROW(nccl_estimate("collnet", nccl::Op::AllReduce, 8, 1, bytes), core::InputError);
  EXPECT_THROW(nccl_estimate("collnet", nccl::Op::AllGather, 8, 4, bytes), core::InputError);
}

TEST(NcclCollNet, ChainIsHalfTheNvlinkRateAndSlowerThanDirectOnH100) {
  // Chain: every GPU's NVLink carries 2 S each way: B/2, below Direct's B g / (2 (g-1));
  // latency 2 x 7 x 2.8 + 30 = 69.2 us, + α.
  const double bytes = 1 << 30;
  const nccl::Calibration cal;
  const double b = cal.efficiency * 18 * 20.6e9;
  const auto chain = nccl_estimate("collnet-chain", nccl::Op::AllReduce, 8, 4, bytes);
  EXPECT_NEAR(chain.seconds / (cal.overhead_s + 69.2e-6 + bytes / (b / 2)), 1.0, 1e-9);
  EXPECT_GT(chain.seconds, nccl_estimate("collnet", nccl::Op::AllReduce, 8, 4, bytes).seconds);
  EXPECT_NE(nccl_estimate("nccl", nccl::Op::AllReduce, 8, 4, bytes).algorithm->name,
            "collnet-chain");
}

}  // namespace
}  // namespace collsim::collective
