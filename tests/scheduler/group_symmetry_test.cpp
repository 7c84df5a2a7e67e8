// Group symmetry (scheduler/group_symmetry.hpp): which platforms have interchangeable groups, what
// stops a run from using it, and that simulating one group per dimension gives exactly what
// simulating every group gives (times, message and byte counts, link metrics), for collectives
// and for training, on each backend that allows it.
#include "scheduler/group_symmetry.hpp"

#include <gtest/gtest.h>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "network/backend.hpp"
#include "jobs/collective_sweep.hpp"
#include "topology/builders.hpp"
#include "jobs/training.hpp"

namespace collsim::scheduler {
namespace {

using namespace collsim::jobs;  // NOLINT: the drivers under test

using topology::DimKind;
using topology::DimSpec;

const core::Bandwidth kBw{16e9};
const core::Time kLat = core::Time::from_ns(150);

topology::Topology platform() {
  // A Themis-like 3D platform at 4 x 4 x 2 NPUs, unequal bandwidths so that schedules differ.
  return topology::hierarchical(
      {DimSpec{DimKind::Switch, 4, core::Bandwidth{25e9}, core::Time::from_ns(350), 4},
       DimSpec{DimKind::FullyConnected, 4, core::Bandwidth{25e9}, core::Time::from_ns(700), 0},
       DimSpec{DimKind::Ring, 2, core::Bandwidth{50e9}, core::Time::from_ns(850), 0}});
}

TEST(GroupSymmetry, ProductPlatformsHaveInterchangeableGroups) {
  for (const char* spec : {"torus:4x4", "torus:4x4x2", "mesh:4x3", "hier:ring4xfc8xsw4"}) {
    const auto t = topology::from_compact(spec, kBw, kLat);
    const GroupSymmetry s = group_symmetry(t);
    EXPECT_TRUE(s.holds()) << spec << ": " << s.broken;
    // Every link of a non-first group stands for a link of the first group of its dimension.
    for (std::size_t l = 0; l < t.links().size(); ++l) {
      const auto r = s.representative[l];
      EXPECT_EQ(t.links()[r].dim, t.links()[l].dim) << spec << " link " << l;
      EXPECT_EQ(t.links()[r].bandwidth.bytes_per_s, t.links()[l].bandwidth.bytes_per_s);
    }
  }
  EXPECT_TRUE(group_symmetry(platform()).holds());
}

TEST(GroupSymmetry, LocalSwitchesWithParallelPathsBreakIt) {
  // Local switches: a message may take any of k switches (its stream picks): not checked.
  const auto swfc = topology::from_compact("swfc:4:4:4", kBw, kLat);
  EXPECT_NE(group_symmetry(swfc).broken.find("local switches"), std::string::npos)
      << group_symmetry(swfc).broken;
}

TEST(GroupSymmetry, BackendsAndEndpointsWithSharedResourcesRefuseIt) {
  const auto t = platform();
  core::Simulation sim;
  network::BackendOptions plain;
  for (const char* name : {"analytical", "queue", "flow"}) {
    auto net = network::make_backend(network::find_backend(name, "b"), sim, t, plain, "b");
    const endpoint::Ideal ideal(sim, *net);
    EXPECT_EQ(one_group_blocker(*net, ideal), "") << name;
  }
  auto packet = network::make_backend(network::find_backend("packet", "b"), sim, t, plain, "b");
  EXPECT_NE(one_group_blocker(*packet, endpoint::Ideal(sim, *packet)), "");
  network::BackendOptions capped;
  capped.npu_injection_bandwidth = core::Bandwidth{10e9};
  auto flow = network::make_backend(network::find_backend("flow", "b"), sim, t, capped, "b");
  EXPECT_NE(one_group_blocker(*flow, endpoint::Ideal(sim, *flow)), "");
  auto plain_flow = network::make_backend(network::find_backend("flow", "b"), sim, t, plain, "b");
  const auto ace = endpoint::find_endpoint("ace", "e").make(sim, *plain_flow, t, {});
  EXPECT_NE(one_group_blocker(*plain_flow, *ace), "");
}

// The work estimate decides the symmetry before a run from the registries' declarations
// (planned_blocker): each must say what its instances say.
TEST(GroupSymmetry, RegistriesDeclareWhatTheirInstancesDo) {
  const auto t = platform();
  const auto ring = topology::from_compact("optical-ring:8", kBw, kLat);
  core::Simulation sim;
  network::BackendOptions capped;
  capped.npu_injection_bandwidth = core::Bandwidth{10e9};
  for (const network::BackendInfo& info : network::backends()) {
    for (const network::BackendOptions& o : {network::BackendOptions{}, capped}) {
      std::unique_ptr<network::Backend> net;
      try {
        net = network::make_backend(info, sim, t, o, "b");
      } catch (const core::InputError&) {
        try {
          net = network::make_backend(info, sim, ring, o, "b");
        } catch (const core::InputError&) {
          continue;  // the option is not one of this backend's
        }
      }
      EXPECT_EQ(info.links_only != nullptr && info.links_only(o), net->link_contention_only())
          << info.name;
    }
  }
  auto net = network::make_backend(network::find_backend("flow", "b"), sim, t, {}, "b");
  endpoint::EndpointParams dma;
  dma.ideal_dma = true;
  dma.ideal_engine = false;  // ideal_dma belongs to the pass-through ideal
  for (const endpoint::EndpointInfo& info : endpoint::endpoints()) {
    for (const endpoint::EndpointParams& p : {endpoint::EndpointParams{}, dma}) {
      EXPECT_EQ(info.messages_independent != nullptr && info.messages_independent(p),
                info.make(sim, *net, t, p)->messages_independent())
          << info.name;
    }
  }
  EXPECT_EQ(planned_blocker(t, network::find_backend("flow", "b"), {},
                            endpoint::find_endpoint("none", "e"), {}),
            "");
  EXPECT_NE(planned_blocker(t, network::find_backend("packet", "b"), {},
                            endpoint::find_endpoint("none", "e"), {}),
            "");
  EXPECT_NE(planned_blocker(t, network::find_backend("flow", "b"), capped,
                            endpoint::find_endpoint("none", "e"), {}),
            "");
  EXPECT_NE(planned_blocker(t, network::find_backend("flow", "b"), {},
                            endpoint::find_endpoint("ace", "e"), {}),
            "");
  EXPECT_NE(planned_blocker(t, network::find_backend("flow", "b"), {},
                            endpoint::find_endpoint("none", "e"), dma),
            "");
}

TEST(GroupSymmetry, LargeDimensionsAreNotCheckedPastTheBudget) {
  // A 1024-NPU ring dimension: 2 groups x 1024 x 1023 routes of ~256 hops each, over the
  // budget: reported broken (every group runs) in about a second, not compared for minutes.
  const auto t = topology::from_compact("hier:ring1024xring2", kBw, kLat);
  const GroupSymmetry s = group_symmetry(t);
  EXPECT_NE(s.broken.find("not checked"), std::string::npos) << s.broken;
}

// The same job with groups=auto and groups=all.
std::vector<jobs::ResultRow> collective(const char* backend, const char* groups,
                                          collective::Collective c) {
  CollectiveJob job;
  job.collective = c;
  job.sizes = {core::Bytes{3 << 20}};
  job.chunks = 8;
  for (const char* a : {"hierarchical:active_chunks=2", "hierarchical:schedule=themis:intra=scf"}) {
    job.algorithms.push_back(
        collective::parse_algorithm(std::string(a) + ":groups=" + groups, "t"));
  }
  return run_collective_job("p", platform(), network::find_backend(backend, "b"), job);
}

TEST(GroupSymmetry, OneGroupPerDimensionGivesWhatEveryGroupGives) {
  for (const char* backend : {"analytical", "queue", "flow"}) {
    for (auto c : {collective::Collective::AllReduce, collective::Collective::AllToAll}) {
      const auto one = collective(backend, "auto", c);
      const auto all = collective(backend, "all", c);
      ASSERT_EQ(one.size(), all.size());
      for (std::size_t i = 0; i < one.size(); ++i) {
        SCOPED_TRACE(std::string(backend) + " " + one[i].algorithm);
        EXPECT_EQ(one[i].time.ps, all[i].time.ps);
        EXPECT_EQ(one[i].messages, all[i].messages);
        EXPECT_EQ(one[i].bytes_sent, all[i].bytes_sent);
        EXPECT_DOUBLE_EQ(one[i].max_link_utilization, all[i].max_link_utilization);
        EXPECT_DOUBLE_EQ(one[i].bw_utilization, all[i].bw_utilization);
        ASSERT_EQ(one[i].dim_utilization.size(), all[i].dim_utilization.size());
        for (std::size_t d = 0; d < one[i].dim_utilization.size(); ++d) {
          EXPECT_NEAR(one[i].dim_utilization[d], all[i].dim_utilization[d], 1e-12);
        }
      }
    }
  }
}

TEST(GroupSymmetry, HybridParallelTrainingIsUnchanged) {
  // Model-parallel collectives over dim0 (M = 4), data-parallel ones over dims 1-2, overlapping.
  workload::Workload w;
  w.name = "hybrid";
  w.model_parallel_npus = 4;
  for (int i = 0; i < 3; ++i) {
    workload::Layer l;
    l.name = "l" + std::to_string(i);
    l.compute = {core::Time::from_ns(5000), core::Time::from_ns(5000), core::Time::from_ns(5000)};
    l.comm[0] = workload::Comm{collective::Collective::AllGather, core::Bytes{1 << 18},
                               workload::Scope::ModelParallel};
    l.comm[2] = workload::Comm{collective::Collective::AllReduce, core::Bytes{1 << 21},
                               workload::Scope::DataParallel};
    w.layers.push_back(l);
  }
  for (const char* backend : {"analytical", "flow"}) {
    jobs::TrainingResult r[2];
    for (int g = 0; g < 2; ++g) {
      jobs::TrainingOptions o;
      o.chunks = 4;
      o.iterations = 2;
      o.algorithm = collective::parse_algorithm(
          std::string("hierarchical:schedule=themis:intra=scf:groups=") + (g ? "all" : "auto"),
          "t");
      r[g] = jobs::run_training(platform(), network::find_backend(backend, "b"), w, o);
    }
    EXPECT_EQ(r[0].total.ps, r[1].total.ps) << backend;
    EXPECT_EQ(r[0].exposed.ps, r[1].exposed.ps) << backend;
    EXPECT_EQ(r[0].messages, r[1].messages) << backend;
    EXPECT_EQ(r[0].bytes, r[1].bytes) << backend;
    EXPECT_GT(r[0].exposed.ps, 0) << backend;  // the communication matters in this test
  }
}

}  // namespace
}  // namespace collsim::scheduler
