// MultiTree (ISCA'21) Fig. 11 trends with collsim's training loop: data-parallel iterations on
// the 8x8 torus (Table III links, 16 samples per NPU, 16 x 32x32 systolic arrays at 1 GHz,
// 32-bit gradients), the flow backend, Ring and 2D-Ring (the hierarchical collective's baseline
// schedule on a torus). examples/training/multitree-fig11.yaml is the same setting.
#include <gtest/gtest.h>

#include <algorithm>

#include "compute/systolic.hpp"
#include "topology/builders.hpp"
#include "workload/model_zoo.hpp"
#include "jobs/training.hpp"

namespace collsim::workload {
namespace {

using namespace collsim::jobs;  // NOLINT: the drivers under test

TrainingResult train(const Workload& w, const topology::Topology& t, const char* algorithm,
                     Overlap overlap) {
  TrainingOptions o;
  o.algorithm = collective::parse_algorithm(algorithm, "t");
  o.overlap = overlap;
  return run_training(t, network::find_backend("flow", "b"), w, o);
}

double share(const TrainingResult& r) {
  return static_cast<double>(r.exposed.ps) / static_cast<double>(r.total.ps);
}

TEST(TrainingValidation, MultiTreeFig11CommunicationShareAndOverlap) {
  const auto torus =
      topology::from_compact("torus:8x8", core::Bandwidth{16e9}, core::Time::from_ns(150));
  const compute::Systolic arrays({32, 32, 16, 1e9, {}});
  for (const char* model : {"alexnet", "googlenet", "resnet50", "transformer"}) {
    const Workload w = data_parallel(find_model(model, "t"), arrays, BuildOptions{16, 4});
    const TrainingResult ring = train(w, torus, "ring", Overlap::None);
    const TrainingResult ring_layer = train(w, torus, "ring", Overlap::Layer);
    const TrainingResult ring2d = train(w, torus, "hierarchical", Overlap::None);
    const TrainingResult ring2d_layer = train(w, torus, "hierarchical", Overlap::Layer);
    // Sec. VI-C: communication is 30% to 88% of Ring's non-overlapped iteration across the
    // models (5 points of tolerance: collsim's compute model is SCALE-Sim's formula, not the
    // authors' extended SCALE-Sim).
    EXPECT_GT(share(ring), 0.25) << model;
    EXPECT_LT(share(ring), 0.93) << model;
    // Fig. 11b: layer-wise overlap hides part of it; Fig. 9: 2D-Ring beats Ring on the torus.
    EXPECT_LT(ring_layer.total.ps, ring.total.ps) << model;
    EXPECT_LE(ring2d_layer.total.ps, ring2d.total.ps) << model;
    EXPECT_LT(ring2d.exposed.ps, ring.exposed.ps) << model;
    EXPECT_EQ(ring2d.compute.ps, ring.compute.ps) << model;
  }
  // NCF, the recommendation model, is the most communication-bound: its embeddings cost no
  // systolic-array time (the paper's range tops out at 88%; collsim's NCF is above 95%).
  const Workload ncf = data_parallel(find_model("ncf", "t"), arrays, BuildOptions{16, 4});
  const double ncf_share = share(train(ncf, torus, "ring", Overlap::None));
  EXPECT_GT(ncf_share, 0.88);
  const Workload alexnet = data_parallel(find_model("alexnet", "t"), arrays, BuildOptions{16, 4});
  EXPECT_GT(ncf_share, share(train(alexnet, torus, "ring", Overlap::None)));
}

// Fig. 11: MultiTree takes less training time than Ring on every model, most on the
// communication-bound ones (paper: up to 81% less; collsim's direct-network MultiTree without the
// NI model: 67% for AlexNet, 73% for NCF, docs/training.md), and never more than Ring.
TEST(TrainingValidation, MultiTreeFig11TrainingTimeAgainstRing) {
  const auto torus =
      topology::from_compact("torus:8x8", core::Bandwidth{16e9}, core::Time::from_ns(150));
  const compute::Systolic arrays({32, 32, 16, 1e9, {}});
  double best = 0;
  for (const char* model : {"alexnet", "googlenet", "resnet50", "transformer", "ncf"}) {
    const Workload w = data_parallel(find_model(model, "t"), arrays, BuildOptions{16, 4});
    const TrainingResult ring = train(w, torus, "ring", Overlap::None);
    const TrainingResult mt = train(w, torus, "multitree", Overlap::None);
    EXPECT_LT(mt.total.ps, ring.total.ps) << model;
    // Fig. 11b: the double binary tree is the slowest; 2D-Ring between Ring and MultiTree.
    const TrainingResult dbt = train(w, torus, "double-binary-tree", Overlap::None);
    const TrainingResult r2d = train(w, torus, "ring-2d", Overlap::None);
    EXPECT_GT(dbt.total.ps, ring.total.ps) << model;
    EXPECT_LT(r2d.total.ps, ring.total.ps) << model;
    EXPECT_GE(r2d.total.ps, mt.total.ps) << model;
    EXPECT_EQ(mt.compute.ps, ring.compute.ps) << model;
    best = std::max(best, 1.0 - double(mt.total.ps) / double(ring.total.ps));
  }
  EXPECT_GT(best, 0.6);   // the communication-bound end
  EXPECT_LT(best, 0.85);  // not beyond the paper's 81% by more than its tolerance
}

}  // namespace
}  // namespace collsim::workload
