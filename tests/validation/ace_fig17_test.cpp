// ACE (MICRO'20) Fig. 17 at reduced size (examples/ace/fig17.yaml has the full settings,
// docs/ace.md the numbers): network bandwidth utilization of baseline, baseline++ and ACE
// normalized to ideal's, read as comm time (ideal) / comm time (endpoint) for the same bytes.
// One iteration of ASTRA-sim 1.0's Resnet50_DataParallel.txt on the 16-NPU torus 4x2x2.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "endpoint/endpoint.hpp"
#include "jobs/training.hpp"
#include "network/backend.hpp"
#include "paper_settings.hpp"
#include "test_paths.hpp"
#include "topology/builders.hpp"
#include "workload/load.hpp"

namespace collsim {
namespace {

topology::DimSpec ring(std::uint32_t n, double gbps, std::int64_t ns) {
  return test::ring_dim(n, gbps, ns);
}

// Per endpoint: the training run's communication time (a collective running), in seconds.
std::map<std::string, double> comm_seconds() {
  const auto t = topology::hierarchical({ring(4, 200, 90), ring(2, 25, 200), ring(2, 25, 200)});
  std::map<std::string, double> out;
  for (const char* e : {"ideal", "baseline", "baseline++", "ace"}) {
    const endpoint::EndpointInfo& info = endpoint::find_endpoint(e, "t");
    jobs::TrainingOptions o;
    o.algorithm = collective::parse_algorithm("hierarchical:active_chunks=4", "t");
    o.chunks = 4;
    o.order = jobs::IssueOrder::Lifo;
    o.endpoint = &info;
    o.endpoint_params.link_efficiency = 0.94;
    o.endpoint_params.ideal_engine = true;
    workload::LoadOptions lo;
    if (info.training_share) {
      const auto share = info.training_share(o.endpoint_params);
      lo.compute_share = share.compute;
      lo.memory_share = share.memory;
    }
    const auto w = workload::load_workload(
        std::string(COLLSIM_SOURCE_DIR) + "/examples/ace/Resnet50_DataParallel.txt", t, lo, "w");
    out[e] = jobs::run_training(t, network::find_backend("flow", "b"), w, o).comm.seconds();
  }
  return out;
}

TEST(AceValidation, Fig17NetworkUtilizationNormalizedToIdealKnownDeviationBaselineNearIdeal) {
  const auto c = comm_seconds();
  const double base = c.at("ideal") / c.at("baseline");
  const double plus = c.at("ideal") / c.at("baseline++");
  const double ace = c.at("ideal") / c.at("ace");
  // Paper (averaged over ResNet-50 and GNMT and the tori): baseline 37.8% of ideal, ACE 74.6%,
  // ACE 1.97x baseline. collsim here: about 91% and 100%, ACE 1.09x baseline. Known deviation
  // (docs/ace.md, Fig. 17): the baseline pays LogGP once per algorithm message, as ASTRA-sim 1.0
  // does (issue 48), so its buses add little to ResNet-50's 4-chunk all-reduces, and ideal shares
  // ACE's admission, so ACE is at ideal's. The order still holds: baseline below ACE below ideal.
  EXPECT_GT(base, 0.80);
  EXPECT_LT(base, ace);
  EXPECT_GT(ace, 0.95);
  EXPECT_LE(ace, 1.0 + 1e-9);
  EXPECT_GT(ace / base, 1.03);
  EXPECT_LT(ace / base, 1.97);  // below the paper's ratio: the deviation named above
  // baseline++ moves messages as baseline does: the same utilization within a few percent.
  EXPECT_NEAR(plus, base, 0.05 * base);
}

}  // namespace
}  // namespace collsim
