// switch-fc-hierarchical-torus trends with collsim's models (flow backend, Table II links): the
// single-package collectives of Figs. 9-10 and the training speedups of Fig. 11 over the
// hierarchical torus. examples/switch-fc/ holds the same settings; docs/switch-fc.md the numbers.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "collective/algorithm.hpp"
#include "jobs/training.hpp"
#include "network/flow.hpp"
#include "runtime/execute.hpp"
#include "scheduler/executor.hpp"
#include "test_paths.hpp"
#include "topology/builders.hpp"
#include "workload/astra_text.hpp"

namespace collsim {
namespace {

using collective::Collective;

topology::Topology make(const std::string& spec) {
  return topology::from_compact(spec, core::Bandwidth{1e9}, core::Time{});
}

double seconds(const std::string& topo, const char* algo, Collective c, std::uint64_t bytes) {
  const auto t = make(topo);
  const auto p = collective::build_program(collective::parse_algorithm(algo, "a"), t, c,
                                           core::Bytes{bytes}, 1);
  core::Simulation sim;
  network::FlowBackend net(sim, t, {});
  return runtime::execute(p, net, sim).time.seconds();
}

// Fig. 9: 1 MB (1 MiB) on one package; time per k against the ring package, as the page's plain
// commands run it (flow, one chunk; the all-to-all takes the faster of `-a all`'s rows).
struct Fig9 {
  std::vector<double> ar, a2a;  // per k (index 0 unused)
  double ring_ar = 0, ring_a2a = 0;
  double ar_cut() const {
    return 100 * (1 - *std::min_element(ar.begin() + 1, ar.end()) / ring_ar);
  }
  double a2a_cut() const {
    return 100 * (1 - *std::min_element(a2a.begin() + 1, a2a.end()) / ring_a2a);
  }
};

Fig9 fig9(std::uint32_t n) {
  const std::uint64_t mb = 1 << 20;
  Fig9 f;
  const std::string ring = fmt::format("htorus:1:{}", n);
  f.ring_ar = seconds(ring, "ring", Collective::AllReduce, mb);
  f.ring_a2a = seconds(ring, "direct", Collective::AllToAll, mb);
  f.ar.assign(n + 1, 0);
  f.a2a.assign(n + 1, 0);
  for (std::uint32_t k = 1; k <= n; ++k) {
    const std::string sw = fmt::format("swfc:1:{}:{}", n, k);
    f.ar[k] = seconds(sw, "package-doubling", Collective::AllReduce, mb);
    f.a2a[k] = std::min(seconds(sw, "direct", Collective::AllToAll, mb),
                        seconds(sw, "ring", Collective::AllToAll, mb));
  }
  return f;
}

TEST(SwitchFcValidation, Fig9TrendsOnOnePackage) {
  for (std::uint32_t n : {4u, 8u}) {
    SCOPED_TRACE(n);
    const Fig9 f = fig9(n);
    for (std::uint32_t k = 2; k <= n; ++k) {
      EXPECT_LT(f.ar[k], f.ar[k - 1]) << k;  // every switch more takes a share of the transfer
      EXPECT_LE(f.a2a[k], f.a2a[k - 1] * (1 + 1e-9)) << k;
      // From 2 switches both beat the ring package (the paper sweeps k = 2..n).
      EXPECT_LT(f.ar[k], f.ring_ar) << k;
      EXPECT_LT(f.a2a[k], f.ring_a2a) << k;
    }
    // One switch: the whole partial sum log2 n times over one link loses to the ring.
    EXPECT_GT(f.ar[1], f.ring_ar);
    // Sweet spots (3 for 4 NPUs, 4 for 8): the all-to-all stops improving there, n - 1 peers
    // over k switches taking ceil((n-1)/k) rounds (8 NPUs: 2 rounds from k = 4 to 6).
    if (n == 4) {
      EXPECT_NEAR(f.a2a[3], f.a2a[4], 1e-3 * f.a2a[3]);
      EXPECT_LT(f.a2a[3], 0.8 * f.a2a[2]);
    } else {
      EXPECT_NEAR(f.a2a[4], f.a2a[6], 1e-3 * f.a2a[4]);
      EXPECT_LT(f.a2a[4], 0.8 * f.a2a[3]);
    }
  }
}

// The largest reductions over k within 5 points of the paper's, either way: all-reduce 65.82%
// (4 NPUs) and 75.89% (8), all-to-all 93.11% (8). (collsim: 65.9%, 77.7%, 95.8%.)
TEST(SwitchFcValidation, Fig9LargestReductionsWithinFivePointsOfThePaper) {
  const Fig9 four = fig9(4), eight = fig9(8);
  EXPECT_NEAR(four.ar_cut(), 65.82, 5.0);
  EXPECT_NEAR(eight.ar_cut(), 75.89, 5.0);
  EXPECT_NEAR(eight.a2a_cut(), 93.11, 5.0);
}

// Known deviation (docs/switch-fc.md, Fig. 9; docs/fidelity.md SW3): on 4 NPUs collsim's
// all-to-all reduction is about 8.5 points above the paper's 73.59%. The paper's times imply an
// all-to-all at half the rate of its all-reduce; none of the readings of ASTRA-sim 1.0's NI,
// switch routing and links in the docs' tables gives both all-to-all figures with the all-reduce
// ones, router contention included (Table II routers on the packet backend move it further from
// the paper, not nearer), so the cause is not pinned down. Bounded on both sides around
// collsim's 82.2% so that a model change that moves it shows up here.
TEST(SwitchFcValidation, Fig9AllToAllFourNpusAbovePaperKnownDeviationNoAstraReadingGivesAllFour) {
  const double cut = fig9(4).a2a_cut();
  EXPECT_GT(cut, 73.59 + 5);
  EXPECT_LT(cut, 73.59 + 11);
}

// Fig. 10: the switch-based package is faster than the ring at every size. The paper gives no
// numbers; collsim's ratio is the closed form log2 n / k against 2 (n - 1) / n plus latencies:
// 0.44 (4 NPUs, k = 3) and 0.43 (8, k = 4), a little lower at 512 KiB.
TEST(SwitchFcValidation, Fig10AllReduceFasterThanTheRingAtEverySize) {
  for (const auto& [n, k] : {std::pair{4u, 3u}, std::pair{8u, 4u}}) {
    for (std::uint64_t bytes : {512ull << 10, 1ull << 20, 2ull << 20, 4ull << 20}) {
      const double r = seconds(fmt::format("swfc:1:{}:{}", n, k), "package-doubling",
                               Collective::AllReduce, bytes) /
                       seconds(fmt::format("htorus:1:{}", n), "ring", Collective::AllReduce, bytes);
      EXPECT_GT(r, 0.35) << n << " " << bytes;
      EXPECT_LT(r, 0.5) << n << " " << bytes;
    }
  }
}

// Fig. 11 as examples/switch-fc/fig11.yaml runs it: two iterations, 4 chunks per collective and
// a 1-cycle endpoint delay (ASTRA-sim 1.0's hierarchical-torus system input).
double training(const std::string& workload, const std::string& topo, const char* algo) {
  const auto t = make(topo);
  std::vector<std::uint32_t> dims;
  for (const auto& d : t.dimensions()) dims.push_back(d.spec.size);
  const auto w = workload::read_astra_text(
      std::string(COLLSIM_SOURCE_DIR) + "/examples/switch-fc/workloads/" + workload + ".txt", dims);
  jobs::TrainingOptions o;
  o.algorithm = collective::parse_algorithm(algo, "a");
  o.chunks = 4;
  o.iterations = 2;
  o.endpoint_params.endpoint_delay = core::Time::from_ns(1);
  return jobs::run_training(t, network::find_backend("flow", "b"), w, o).total.seconds();
}

// Speedups over the hierarchical torus under the three pairings: [0] the paper's order
// (hierarchical torus RS/AG over switch-based per-dimension all-reduce), [1] per-dimension on
// both, [2] RS/AG on both; per workload (DLRM, MLP_ModelParallel, MLP_HybridParallel) and
// package size (4 NPUs with k = 3, 8 with k = 4).
struct Fig11 {
  double s[3][3][2];
};

const Fig11& fig11() {
  static const Fig11 f = [] {
    Fig11 r{};
    const char* workloads[] = {"DLRM_HybridParallel", "MLP_ModelParallel",
                               "MLP_HybridParallel_Data_Model"};
    const char* rsag = "hierarchical";
    const char* perdim = "hierarchical:schedule=per-dim-all-reduce";
    for (int size = 0; size < 2; ++size) {
      const std::string sw = size == 0 ? "swfc:4:4:3" : "swfc:4:8:4";
      const std::string ht = size == 0 ? "htorus:4:4" : "htorus:4:8";
      for (int w = 0; w < 3; ++w) {
        const double hr = training(workloads[w], ht, rsag), hp = training(workloads[w], ht, perdim);
        const double sr = training(workloads[w], sw, rsag), sp = training(workloads[w], sw, perdim);
        r.s[0][w][size] = hr / sp;
        r.s[1][w][size] = hp / sp;
        r.s[2][w][size] = hr / sr;
      }
    }
    return r;
  }();
  return f;
}

// Paper: every workload faster, more so on 8 NPUs per package, DLRM gaining most there;
// speedups 1.16x-2.68x. The smallest speedup (collsim 1.01x in the paper's order) within
// [0.8, 1.25] of the paper's 1.16x.
TEST(SwitchFcValidation, Fig11TrendsAndSmallestSpeedup) {
  double smallest = 1e9;
  for (int pairing = 0; pairing < 3; ++pairing) {
    for (int w = 0; w < 3; ++w) {
      SCOPED_TRACE(fmt::format("pairing {} workload {}", pairing, w));
      EXPECT_GT(fig11().s[pairing][w][0], 1.0);
      // RS/AG on the switch-based platform is never slower than its per-dimension all-reduce.
      if (pairing == 0) {
        EXPECT_GE(fig11().s[2][w][0], fig11().s[0][w][0] * 0.999);
        EXPECT_GE(fig11().s[2][w][1], fig11().s[0][w][1] * 0.999);
      }
      EXPECT_GT(fig11().s[pairing][w][1], fig11().s[pairing][w][0]);
      if (w > 0) {
        EXPECT_GT(fig11().s[pairing][0][1], fig11().s[pairing][w][1]);
      }
    }
  }
  for (int w = 0; w < 3; ++w)
    smallest = std::min({smallest, fig11().s[0][w][0], fig11().s[0][w][1]});
  EXPECT_GT(smallest, 0.8 * 1.16);
  EXPECT_LT(smallest, 1.25 * 1.16);
}

// The paper's span, 1.16x-2.68x, is all it gives for DLRM on 4 NPUs per package and for
// MLP_HybridParallel: every speedup of every pairing within [0.8 x 1.16, 1.25 x 2.68] (collsim
// 1.01x-2.00x on 4 NPUs, 1.30x-1.70x on 8 outside DLRM's RS/AG pairing), the one exception
// being the named deviation below (DLRM, 8 NPUs, RS/AG on both: 3.6x).
TEST(SwitchFcValidation, Fig11EverySpeedupWithinThePapersSpan) {
  for (int pairing = 0; pairing < 3; ++pairing) {
    for (int w = 0; w < 3; ++w) {
      for (int size = 0; size < 2; ++size) {
        if (pairing == 2 && w == 0 && size == 1) continue;  // the named deviation
        SCOPED_TRACE(fmt::format("pairing {} workload {} size {}", pairing, w, size));
        EXPECT_GT(fig11().s[pairing][w][size], 0.8 * 1.16);
        EXPECT_LT(fig11().s[pairing][w][size], 1.25 * 2.68);
      }
    }
  }
}

// MLP_ModelParallel: paper 1.22x (4 NPUs per package) and 1.41x (8); every pairing within
// [0.8, 1.25] of them (collsim 1.05x-1.11x and 1.30x-1.38x).
TEST(SwitchFcValidation, Fig11MlpModelParallelSpeedupsNearThePaper) {
  for (int pairing = 0; pairing < 3; ++pairing) {
    SCOPED_TRACE(pairing);
    EXPECT_GT(fig11().s[pairing][1][0], 0.8 * 1.22);
    EXPECT_LT(fig11().s[pairing][1][0], 1.25 * 1.22);
    EXPECT_GT(fig11().s[pairing][1][1], 0.8 * 1.41);
    EXPECT_LT(fig11().s[pairing][1][1], 1.25 * 1.41);
  }
}

// Known deviation (docs/switch-fc.md, Fig. 11): DLRM on 8 NPUs per package, the paper's 2.68x,
// is about a third higher with RS/AG on both platforms (collsim 3.6x: the switch-based
// all-to-all runs at its ideal rate, see Fig. 9) and about a third lower with a per-dimension
// all-reduce on the switch-based side (1.7x: whole gradients over the inter-package rings).
// Bounded on both sides around collsim's values.
TEST(SwitchFcValidation, Fig11DlrmEightNpusRsAgAbovePaperPerDimBelowPaper) {
  EXPECT_GT(fig11().s[2][0][1], 1.25 * 2.68);
  EXPECT_LT(fig11().s[2][0][1], 4.2);
  for (int pairing = 0; pairing < 2; ++pairing) {
    EXPECT_GT(fig11().s[pairing][0][1], 1.4) << pairing;
    EXPECT_LT(fig11().s[pairing][0][1], 0.8 * 2.68) << pairing;
  }
}

}  // namespace
}  // namespace collsim
