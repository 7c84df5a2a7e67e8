// ACE (MICRO'20) trends at reduced size (examples/ace/ has the full settings; docs/ace.md the
// numbers): the same collective on the same network is slower when the NPU drives it, ACE
// recovers most of the gap, and training keeps less compute and memory bandwidth under baseline.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>

#include "compute/systolic.hpp"
#include "jobs/collective_sweep.hpp"
#include "topology/builders.hpp"
#include "workload/model_zoo.hpp"
#include "jobs/training.hpp"

#include "paper_settings.hpp"

namespace collsim {
namespace {

using collective::Collective;

topology::DimSpec ring(std::uint32_t n, double gbps, std::int64_t ns) {
  return test::ring_dim(n, gbps, ns);
}

// The alltoall platforms' outer dimension: 4 fully connected switches, 25 GB/s 200 ns per link.
topology::DimSpec four_switches() {
  topology::DimSpec s = ring(4, 25, 200);
  s.kind = topology::DimKind::Switch;
  s.links_per_npu = 4;
  return s;
}

// Table 5 / Table 7: L x V x H torus, 200 GB/s 90 ns in the package, 25 GB/s 200 ns across.
topology::Topology torus(std::uint32_t l, std::uint32_t v, std::uint32_t h) {
  return topology::hierarchical({ring(l, 200, 90), ring(v, 25, 200), ring(h, 25, 200)});
}

// Time (us) of one hierarchical collective per endpoint, flow backend, 94% link efficiency.
std::map<std::string, double> times(const topology::Topology& t, Collective c, std::uint64_t size,
                                    const char* algorithm = "hierarchical:active_chunks=4") {
  std::map<std::string, double> out;
  for (const char* e : {"ideal", "baseline", "ace"}) {
    jobs::CollectiveJob job;
    job.collective = c;
    job.sizes = {core::Bytes{size}};
    job.algorithms = {collective::parse_algorithm(algorithm, "t")};
    job.chunks = 16;
    job.endpoint = &endpoint::find_endpoint(e, "t");
    job.endpoint_params.link_efficiency = 0.94;
    job.endpoint_params.ideal_engine = true;
    const auto rows = run_collective_job("p", t, network::find_backend("flow", "b"), job);
    out[e] = rows.at(0).time.us();
  }
  return out;
}

std::string row(const std::map<std::string, double>& t) {
  return "baseline " + std::to_string(t.at("baseline")) + " ACE " + std::to_string(t.at("ace")) +
         " ideal " + std::to_string(t.at("ideal")) + " us";
}

TEST(AceValidation, Fig9AllReduceOnTheTorusKnownDeviationIdealCloseToAce) {
  // 1 MiB on 4x2x2, Table 5's order (collsim: baseline 28.4, ACE 15.5, ideal 14.9 us).
  // Paper, averaged over its sizes: ACE 1.51x faster than baseline, ideal 1.43x faster than
  // ACE; collsim's 1.83x at this size is above the paper's average (docs/ace.md).
  // Known deviation: ideal is ACE's engine and admission without its costs (docs/ace.md,
  // "Ideal"), so it runs as many chunk-stages as ACE's state machines allow, and they, not the
  // costs, bind ACE: ACE is only a few percent slower than ideal, not the paper's 1.43x.
  const auto t = times(torus(4, 2, 2), Collective::AllReduce, 1 << 20,
                       "hierarchical:active_chunks=4:schedule=ace");
  EXPECT_LE(t.at("ideal"), t.at("ace")) << row(t);
  EXPECT_GT(t.at("baseline") / t.at("ace"), 1.3) << row(t);
  EXPECT_LT(t.at("baseline") / t.at("ace"), 2.6) << row(t);
  EXPECT_GT(t.at("ace") / t.at("ideal"), 1.01) << row(t);
  EXPECT_LT(t.at("ace") / t.at("ideal"), 1.5) << row(t);
}

TEST(AceValidation, Fig12AllReduceOnAlltoallPackagesIsWhereAceGainsMost) {
  // L x P = 4 x 4: a ring in the package, 4 fully connected switches between packages.
  const auto t = topology::hierarchical({ring(4, 200, 90), four_switches()});
  const auto ar =
      times(t, Collective::AllReduce, 1 << 20, "hierarchical:active_chunks=4:dim1=direct");
  // collsim: 2.9x (36.7 vs 12.7 us); paper 1.55x on average over its sizes (the band holds
  // both: collsim's gain at 1 MiB is above the paper's average, docs/ace.md).
  EXPECT_GT(ar.at("baseline") / ar.at("ace"), 1.3) << row(ar);
  EXPECT_LT(ar.at("baseline") / ar.at("ace"), 3.0) << row(ar);
  const auto a2a = times(t, Collective::AllToAll, 1 << 20);
  // All-to-all reduces nothing: ACE saves only the buses. Paper 1.20x; collsim 1.06x (10.8 vs
  // 10.2 us), a known deviation: the baseline pays LogGP once per algorithm message (ASTRA-sim
  // 1.0, issue 48), so its buses cost little beside the links (docs/ace.md, Fig. 13).
  EXPECT_GT(a2a.at("baseline") / a2a.at("ace"), 1.02) << row(a2a);
  EXPECT_LT(a2a.at("baseline") / a2a.at("ace"), 1.8) << row(a2a);
  EXPECT_LT(a2a.at("baseline") / a2a.at("ace"), ar.at("baseline") / ar.at("ace"));
}

TEST(AceValidation, Fig14TrainingOrderingFollowsWhatEachEndpointLeavesTraining) {
  // ResNet-50, 32 samples per NPU, one 256x256 array at 700 MHz bounded by 900 GB/s of memory.
  const compute::SystolicParams sp{256, 256, 1, 700e6, core::Bandwidth{900e9}};
  const auto t = torus(4, 2, 2);
  std::map<std::string, core::Time> total;
  for (const char* e : {"ideal", "baseline", "baseline++", "ace"}) {
    const endpoint::EndpointInfo& info = endpoint::find_endpoint(e, "t");
    const endpoint::EndpointParams params;
    const auto share =
        info.training_share ? info.training_share(params) : endpoint::TrainingShare{};
    const auto compute = compute::Systolic(sp).scaled(share.compute, share.memory);
    const auto w = workload::data_parallel(workload::find_model("resnet50", "t"), *compute,
                                           workload::BuildOptions{32, 4});
    jobs::TrainingOptions o;
    o.algorithm = collective::parse_algorithm("hierarchical:active_chunks=4", "t");
    o.chunks = 4;
    o.order = jobs::IssueOrder::Lifo;
    o.endpoint = &info;
    total[e] = jobs::run_training(t, network::find_backend("analytical", "b"), w, o).total;
  }
  // ideal <= ACE <= baseline++ <= baseline; ACE and baseline++ keep the same compute and memory
  // (Sec. 5), so they differ only by the buses. Baseline loses 5% of compute and 20% of memory:
  // at least 1/0.95 slower where compute dominates, as it does with this systolic model.
  EXPECT_LE(total.at("ideal").ps, total.at("ace").ps);
  EXPECT_LE(total.at("ace").ps, total.at("baseline++").ps);
  EXPECT_LE(total.at("baseline++").ps, total.at("baseline").ps);
  // Paper: 2.71x (Fig. 14); collsim's compute hides the communication (docs/ace.md).
  const double gain =
      static_cast<double>(total.at("baseline").ps) / static_cast<double>(total.at("ace").ps);
  EXPECT_GT(gain, 1.0 / 0.95);
  EXPECT_LT(gain, 3.0);
}

// Time (us) per endpoint of one collective as ACE's scenarios set the endpoints (94% links,
// ideal running ACE's schedule at no cost after the TX DMA: ideal_engine).
std::map<std::string, double> all_endpoints(const topology::Topology& t, Collective c,
                                            std::uint64_t size, const std::string& algorithm,
                                            std::uint32_t chunks) {
  std::map<std::string, double> out;
  for (const char* e : {"ideal", "baseline", "baseline++", "ace"}) {
    jobs::CollectiveJob job;
    job.collective = c;
    job.sizes = {core::Bytes{size}};
    job.algorithms = {collective::parse_algorithm(algorithm, "t")};
    job.chunks = chunks;
    job.endpoint = &endpoint::find_endpoint(e, "t");
    job.endpoint_params.link_efficiency = 0.94;
    job.endpoint_params.ideal_engine = true;
    const auto rows = run_collective_job("p", t, network::find_backend("flow", "b"), job);
    out[e] = rows.at(0).time.us();
  }
  return out;
}

// The paper's platforms at reduced sizes (the 4x2x2 torus of Figs. 9-10 and the 4 x 4 alltoall
// platform of Figs. 12-13; 256 KiB and 1 MiB), all-reduce and all-to-all, `hierarchical` at its
// defaults and at the scenarios' settings, 16 chunks, the endpoints as ACE's scenarios set them:
// ideal <= ACE <= baseline++ <= baseline with no tolerance (docs/ace.md has every full-size row).
TEST(AceValidation, EndpointsOrderIdealAceBaselinePlusBaselineOnThePapersPlatforms) {
  const std::vector<topology::Topology> platforms{
      torus(4, 2, 2), topology::hierarchical({ring(4, 200, 90), four_switches()})};
  for (std::size_t k = 0; k < platforms.size(); ++k) {
    const auto& t = platforms[k];
    for (const Collective c : {Collective::AllReduce, Collective::AllToAll}) {
      const std::string scenario = k == 1 && c == Collective::AllReduce
                                       ? "hierarchical:active_chunks=4:dim1=direct"
                                       : "hierarchical:active_chunks=4";
      for (const std::string& algorithm : {std::string("hierarchical"), scenario}) {
        for (const std::uint64_t size : {std::uint64_t{256} << 10, std::uint64_t{1} << 20}) {
          const auto r = all_endpoints(t, c, size, algorithm, 16);
          const std::string what = t.name() + " " + collective::to_string(c) + " " +
                                   algorithm + " " + std::to_string(size);
          EXPECT_LE(r.at("ideal"), r.at("ace")) << what;
          EXPECT_LE(r.at("ace"), r.at("baseline++")) << what;
          EXPECT_LE(r.at("baseline++"), r.at("baseline")) << what;
        }
      }
    }
  }
}

// Random small hierarchical platforms (a package ring of 2 or 4 NPUs at 200 GB/s, then one or
// two inter-package rings of 2 or 4, or a switch of 4, at 25 GB/s), sizes and collectives, at
// the hierarchical algorithm's defaults and at the scenarios' settings. A known deviation of the
// flow model, whose max-min sharing is not monotone in when chunk-stages start (docs/ace.md,
// "Where collsim differs"): on a few small platforms ideal loses up to 4% to ACE, and ACE up to
// 3% to the NPU-driven buses, where the time saved (ideal: reductions and RX DMA; ACE: buses)
// lets more chunk-stages of the bottleneck dimension start together and share its links in
// lockstep (of 336 small-platform rows: ideal slower in 3, at most 3.3%, 2 x 4 x 2 all-reduce of
// 1 MiB in 64 chunks; ACE slower in 2, at most 2.7%, 4 x 2 all-to-all of 1 MiB). baseline++
// moves messages as baseline does (it differs in what training keeps): no tolerance.
TEST(AceValidation, EndpointsOrderKnownDeviationUpTo4PercentWhereStagesShareLinksInLockstep) {
  std::mt19937 rng(30);
  const auto pick = [&rng](std::uint32_t n) { return static_cast<std::uint32_t>(rng() % n); };
  for (int trial = 0; trial < 8; ++trial) {
    std::vector<topology::DimSpec> dims{ring(pick(2) ? 4 : 2, 200, 90)};
    const std::uint32_t outer = 1 + pick(2);
    bool sw = false;
    for (std::uint32_t d = 0; d < outer; ++d) {
      if (d == 0 && pick(3) == 0) {
        dims.push_back(four_switches());
        sw = true;
        break;
      }
      dims.push_back(ring(pick(2) ? 4 : 2, 25, 200));
    }
    const auto t = topology::hierarchical(dims);
    const std::uint64_t size = std::uint64_t{64} << 10 << (2 * pick(4));  // 64 KiB .. 4 MiB
    for (const Collective c : {Collective::AllReduce, Collective::AllToAll}) {
      const std::string scenario =
          sw && c == Collective::AllReduce ? "hierarchical:active_chunks=4:dim1=direct"
                                           : "hierarchical:active_chunks=4";
      for (const auto& [algorithm, chunks] :
           {std::pair<std::string, std::uint32_t>{"hierarchical", 64}, {scenario, 16}}) {
        const auto r = all_endpoints(t, c, size, algorithm, chunks);
        const std::string what = t.name() + " " + collective::to_string(c) + " " + algorithm +
                                 " " + std::to_string(size);
        EXPECT_LE(r.at("ideal"), r.at("ace") * 1.04) << what;
        EXPECT_LE(r.at("ace"), r.at("baseline++") * 1.03) << what;
        EXPECT_LE(r.at("baseline++"), r.at("baseline")) << what;
      }
    }
  }
}

}  // namespace
}  // namespace collsim
