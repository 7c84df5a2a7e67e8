// Compute models (compute/): hand-counted systolic cycles (SCALE-Sim OS fold: 2R + C + k - 2),
// the roofline's two regimes, and the --compute parser.
#include <gtest/gtest.h>

#include "compute/roofline.hpp"
#include "compute/systolic.hpp"
#include "core/error.hpp"

namespace collsim::compute {
namespace {

TEST(Systolic, FoldsAndCycles) {
  const Systolic one({32, 32, 1, 1e9, {}});
  EXPECT_EQ(one.cycles({32, 32, 32}), 2u * 32 + 32 + 32 - 2);    // one fold: 126
  EXPECT_EQ(one.cycles({64, 32, 10}), 2u * (64 + 32 + 10 - 2));  // two folds in a row: 208
  EXPECT_EQ(one.cycles({33, 1, 1}), 2u * (64 + 32 + 1 - 2));     // a partial fold costs a fold
  EXPECT_EQ(one.cycles({0, 32, 32}), 0u);
  const Systolic sixteen({32, 32, 16, 1e9, {}});  // MultiTree Table III
  EXPECT_EQ(sixteen.cycles({64, 32, 10}), 104u);  // the two folds on two arrays at once
  // 100 x 70 outputs: 4 x 3 = 12 folds, one round on 16 arrays: 64 + 32 + 5 - 2 = 99 cycles.
  EXPECT_EQ(sixteen.cycles({100, 70, 5}), 99u);
  // 17 x 32 folds of 32 x 32 ... 544 folds: 34 rounds.
  EXPECT_EQ(sixteen.cycles({17 * 32, 32 * 32, 7}), 34u * (64 + 32 + 7 - 2));
  // A pass: its GEMMs in sequence; at 1 GHz a cycle is 1 ns, at 700 MHz 1/0.7 ns.
  PassWork w;
  w.gemms = {{32, 32, 32}, {64, 32, 10}};
  EXPECT_EQ(one.time(w).ps, (126 + 208) * 1000);
  const Systolic ace({256, 256, 1, 700e6, {}});
  w.gemms = {{256, 256, 256}};  // 2 x 256 + 256 + 256 - 2 = 1022 cycles = 1460 ns
  EXPECT_EQ(ace.time(w).ps, 1460000);
  EXPECT_THROW(Systolic({0, 32, 1, 1e9, {}}), core::InputError);
}

TEST(Roofline, ComputeOrMemoryBound) {
  const Roofline a100({312e12, core::Bandwidth{2039e9}});
  PassWork w;
  w.flops = 312e6;  // 1 us at 312 TFLOP/s
  w.bytes = 1000;
  EXPECT_EQ(a100.time(w).ps, 1000000);
  w.bytes = 2 * 2039e3;  // 2 us of memory traffic
  EXPECT_EQ(a100.time(w).ps, 2000000);
  EXPECT_THROW(Roofline({0, core::Bandwidth{1e9}}), core::InputError);
}

TEST(ComputeModel, FromText) {
  PassWork w;
  w.gemms = {{32, 32, 32}};
  w.flops = 2.0 * 32 * 32 * 32;
  EXPECT_EQ(make_compute_model("systolic", "c")->time(w).ps, 126000);  // MultiTree defaults
  EXPECT_EQ(make_compute_model("systolic:rows=256,cols=256,arrays=1,clock=700MHz", "c")->describe(),
            "systolic 1 x 256x256 @ 700 MHz (output stationary)");
  EXPECT_EQ(make_compute_model("roofline:peak=65.536,memory=1 TB/s", "c")->time(w).ps, 1000);
  auto error = [](const char* spec) {
    try {
      make_compute_model(spec, "--compute");
    } catch (const core::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("gpu").find("--compute: unknown compute model \"gpu\""), std::string::npos);
  EXPECT_NE(error("systolic:rows=0").find("--compute: rows: \"0\" must be a whole number >= 1"),
            std::string::npos);
  EXPECT_NE(error("systolic:depth=3").find("systolic has no parameter \"depth\""),
            std::string::npos);
  EXPECT_NE(error("roofline:peak=fast").find("--compute: peak"), std::string::npos);
  EXPECT_NE(error("systolic:rows").find("is not key=value"), std::string::npos);
}

}  // namespace
}  // namespace collsim::compute
