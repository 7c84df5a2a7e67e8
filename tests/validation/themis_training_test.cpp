// Themis (ISCA'22) Fig. 12 trends on one of its platforms (3D-SW_SW_SW_homo, 16 x 8 x 8 NPUs,
// Table 2) at reduced length: one iteration instead of three. The full reproduction (six
// platforms, four models, three iterations) is examples/themis/fig12-training.yaml and
// docs/themis.md; there collsim's ResNet-152 and DLRM sit far from the paper (their per-layer
// collectives are latency-bound at 64 chunks), so only the trends that hold are asserted here.
#include <gtest/gtest.h>

#include "network/backend.hpp"
#include "topology/builders.hpp"
#include "workload/load.hpp"
#include "jobs/training.hpp"

namespace collsim::workload {
namespace {

using namespace collsim::jobs;  // NOLINT: the drivers under test

using topology::DimKind;
using topology::DimSpec;

topology::Topology homo() {
  // Table 2's latency is NPU-to-NPU: half per switch hop.
  const auto sw = [](std::uint32_t size, double gbps, std::uint32_t links, double ns) {
    return DimSpec{DimKind::Switch, size, core::Bandwidth{gbps * 1e9 / 8},
                   core::Time::from_ns(ns / 2), links};
  };
  return topology::hierarchical({sw(16, 200, 4, 700), sw(8, 200, 4, 700), sw(8, 800, 1, 1700)});
}

struct Runs {
  TrainingResult baseline, themis, ideal;
};

Runs train(const std::string& model, std::uint32_t batch) {
  const auto t = homo();
  LoadOptions lo;
  lo.compute = "roofline";
  lo.batch = batch;
  lo.bytes_per_element = 2;
  const Workload w = load_workload(model, t, lo, "workload");
  Runs r;
  TrainingResult* out[] = {&r.baseline, &r.themis, &r.ideal};
  const char* algorithms[] = {"hierarchical:active_chunks=4",
                              "hierarchical:schedule=themis:intra=scf:active_chunks=4", nullptr};
  for (int i = 0; i < 3; ++i) {
    TrainingOptions o;
    o.chunks = 64;
    o.ideal = algorithms[i] == nullptr;
    if (algorithms[i]) o.algorithm = collective::parse_algorithm(algorithms[i], "t");
    *out[i] = run_training(t, network::find_backend("flow", "b"), w, o);
  }
  return r;
}

TEST(ThemisTrainingValidation, Transformer1TIsBoundByModelParallelCommunicationThemisHelps) {
  const Runs r = train("transformer-1t", 16);
  // Sec. 6.2: model-parallel communication dominates Transformer-1T's exposed time.
  for (const TrainingResult* x : {&r.baseline, &r.themis}) {
    EXPECT_GT((x->exposed - x->exposed_weight_gradient).ps, 10 * x->exposed_weight_gradient.ps);
  }
  // Themis shortens the iteration (paper: 1.25x on average, 1.53x at most; at least 1.15x here)
  // and the ideal system (Table 3) bounds it.
  const double themis = r.baseline.total.seconds() / r.themis.total.seconds();
  EXPECT_GT(themis, 1.15);
  EXPECT_LT(r.ideal.total.ps, r.themis.total.ps);
  EXPECT_EQ(r.baseline.compute.ps, r.themis.compute.ps);
}

TEST(ThemisTrainingValidation, ResNet152IsDataParallelAndThemisIsNeverSlower) {
  const Runs r = train("resnet152", 32);
  // Pure data parallelism: only weight-gradient (data-parallel) communication is exposed.
  EXPECT_EQ(r.baseline.exposed.ps, r.baseline.exposed_weight_gradient.ps);
  EXPECT_GT(r.baseline.exposed.ps, 0);
  // Themis+SCF at most 1% slower than the baseline (paper: always faster), ideal fastest.
  EXPECT_LE(r.themis.total.seconds(), r.baseline.total.seconds() * 1.01);
  EXPECT_LE(r.ideal.total.ps, r.themis.total.ps);
}

}  // namespace
}  // namespace collsim::workload
