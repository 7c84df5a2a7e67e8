// switch-fc-hierarchical-torus trends with collsim's models (flow backend, Table II links): the
// single-package collectives of Figs. 9-10 and the training speedups of Fig. 11 over the
// hierarchical torus. examples/switch-fc/ holds the same settings; docs/switch-fc.md the numbers.
#include "runtime/execute.hpp"
#include "test_paths.hpp"
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "collective/algorithm.hpp"
#include "network/flow.hpp"
#include "scheduler/executor.hpp"
#include "topology/builders.hpp"
#include "workload/astra_text.hpp"
#include "jobs/training.hpp"

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

// Fig. 9: 1 MB (1 MiB) on one package; time per k against the ring package.
TEST(SwitchFcValidation, Fig9AllReduceAndAllToAllOnOnePackage) {
  const std::uint64_t mb = 1 << 20;
  for (std::uint32_t n : {4u, 8u}) {
    SCOPED_TRACE(n);
    const std::string ring = fmt::format("htorus:1:{}", n);
    const double ring_ar = seconds(ring, "ring", Collective::AllReduce, mb);
    const double ring_a2a = seconds(ring, "direct", Collective::AllToAll, mb);
    std::vector<double> ar(n + 1), a2a(n + 1);
    for (std::uint32_t k = 1; k <= n; ++k) {
      const std::string sw = fmt::format("swfc:1:{}:{}", n, k);
      ar[k] = seconds(sw, "package-doubling", Collective::AllReduce, mb);
      a2a[k] = seconds(sw, "direct", Collective::AllToAll, mb);
      if (k > 1) {
        EXPECT_LT(ar[k], ar[k - 1]) << k;  // every switch more takes a share of the transfer
        EXPECT_LE(a2a[k], a2a[k - 1] * (1 + 1e-9)) << k;
      }
      // From 2 switches both beat the ring package (the paper sweeps k = 2..n).
      if (k >= 2) {
        EXPECT_LT(ar[k], ring_ar) << k;
        EXPECT_LT(a2a[k], ring_a2a) << k;
      }
    }
    // One switch: the whole partial sum log2 n times over one link loses to the ring.
    EXPECT_GT(ar[1], ring_ar);
    // Largest reductions. Paper: all-reduce 65.82% (4) and 75.89% (8), all-to-all 73.59% and
    // 93.11%; collsim's bound is 1 - log2(n) / (k 2 (n-1)/n) for the all-reduce and
    // 1 - 1 / (n/2) for the all-to-all's direct steps over n - 1 switches.
    const double ar_cut = 1 - ar[n] / ring_ar, a2a_cut = 1 - a2a[n] / ring_a2a;
    EXPECT_NEAR(ar_cut, n == 4 ? 0.6582 : 0.7589, 0.04);
    EXPECT_GT(a2a_cut, n == 4 ? 0.7359 : 0.9311);
    // Sweet spots (3 for 4 NPUs, 4 for 8): the all-to-all stops improving there, n - 1 peers
    // over k switches taking ceil((n-1)/k) rounds (8 NPUs: 2 rounds from k = 4 to 6).
    if (n == 4) {
      EXPECT_NEAR(a2a[3], a2a[4], 1e-3 * a2a[3]);
      EXPECT_LT(a2a[3], 0.8 * a2a[2]);
    } else {
      EXPECT_NEAR(a2a[4], a2a[6], 1e-3 * a2a[4]);
      EXPECT_LT(a2a[4], 0.8 * a2a[3]);
    }
  }
}

// Fig. 10: the switch-based package is faster than the ring at every size.
TEST(SwitchFcValidation, Fig10AllReduceFasterThanTheRingAtEverySize) {
  for (const auto& [n, k] : {std::pair{4u, 3u}, std::pair{8u, 4u}}) {
    for (std::uint64_t bytes : {512ull << 10, 1ull << 20, 2ull << 20, 4ull << 20}) {
      EXPECT_LT(seconds(fmt::format("swfc:1:{}:{}", n, k), "package-doubling",
                        Collective::AllReduce, bytes),
                0.6 * seconds(fmt::format("htorus:1:{}", n), "ring", Collective::AllReduce, bytes))
          << n << " " << bytes;
    }
  }
}

double training(const std::string& workload, const std::string& topo, const char* algo) {
  const auto t = make(topo);
  std::vector<std::uint32_t> dims;
  for (const auto& d : t.dimensions()) dims.push_back(d.spec.size);
  const auto w = workload::read_astra_text(
      std::string(COLLSIM_SOURCE_DIR) + "/examples/switch-fc/workloads/" + workload + ".txt", dims);
  jobs::TrainingOptions o;
  o.algorithm = collective::parse_algorithm(algo, "a");
  o.chunks = 16;
  o.iterations = 2;
  return jobs::run_training(t, network::find_backend("flow", "b"), w, o).total.seconds();
}

// Fig. 11: two iterations on 4 packages of 4 (k = 3) and of 8 (k = 4) NPUs against the
// hierarchical torus. Paper: 1.16x-2.68x, DLRM gains most (most on 8 NPUs per package),
// MLP_ModelParallel 1.22x -> 1.41x from 4 to 8 NPUs per package.
TEST(SwitchFcValidation, Fig11TrainingSpeedupsOverTheHierarchicalTorus) {
  const char* workloads[] = {"DLRM_HybridParallel", "MLP_ModelParallel",
                             "MLP_HybridParallel_Data_Model"};
  double speedup[2][3];
  for (int size = 0; size < 2; ++size) {
    const std::string sw = size == 0 ? "swfc:4:4:3" : "swfc:4:8:4";
    const std::string ht = size == 0 ? "htorus:4:4" : "htorus:4:8";
    for (int w = 0; w < 3; ++w) {
      speedup[size][w] =
          training(workloads[w], ht, "hierarchical") / training(workloads[w], sw, "hierarchical");
      EXPECT_GT(speedup[size][w], 1.02) << workloads[w] << " " << sw;
      // The paper's order (a full all-reduce per dimension) is slower than RS/AG on the
      // switch-based platform, never faster.
      EXPECT_LE(training(workloads[w], sw, "hierarchical"),
                training(workloads[w], sw, "hierarchical:schedule=per-dim-all-reduce") * 1.001)
          << workloads[w] << " " << sw;
    }
  }
  for (int w = 0; w < 3; ++w) EXPECT_GT(speedup[1][w], speedup[0][w]) << workloads[w];
  // DLRM (all-to-all) gains most, most of all on 8 NPUs per package.
  EXPECT_GT(speedup[1][0], speedup[1][1]);
  EXPECT_GT(speedup[1][0], speedup[1][2]);
  EXPECT_GT(speedup[1][0], 2.0);
  EXPECT_GT(speedup[1][1], 1.2);
}

}  // namespace
}  // namespace collsim
