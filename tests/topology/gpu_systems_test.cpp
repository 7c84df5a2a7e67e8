// GPU system presets (topology/gpu_systems/gpu_system.hpp): the datasheet numbers, and a source
// on every one.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "topology/gpu_systems/gpu_system.hpp"

namespace collsim::topology {
namespace {

TEST(GpuSystems, DatasheetNumbers) {
  const GpuSystem& h100 = find_gpu_system("h100", "--system");
  EXPECT_DOUBLE_EQ(h100.nvlink_bandwidth.value, 18 * 25e9);  // 18 NVLink4 links x 25 GB/s
  EXPECT_DOUBLE_EQ(h100.nic_bandwidth.value, 400e9 / 8);     // 400 Gb/s
  EXPECT_EQ(h100.gpus_per_node, 8u);
  EXPECT_TRUE(h100.nvls.available());
  const GpuSystem& a100 = find_gpu_system("a100", "--system");
  EXPECT_DOUBLE_EQ(a100.nvlink_bandwidth.value, 12 * 25e9);  // 12 NVLink3 links
  EXPECT_DOUBLE_EQ(a100.nic_bandwidth.value, 200e9 / 8);     // HDR
  EXPECT_FALSE(a100.nvls.available());                        // NVSwitch gen2: no SHARP
  const GpuSystem& h200 = find_gpu_system("h200", "--system");
  EXPECT_DOUBLE_EQ(h200.nvlink_bandwidth.value, h100.nvlink_bandwidth.value);
  const GpuSystem& gb200 = find_gpu_system("gb200", "--system");
  EXPECT_EQ(gb200.gpus_per_node, 72u);
  EXPECT_DOUBLE_EQ(gb200.nvlink_bandwidth.value, 900e9);
  EXPECT_TRUE(gb200.nvls.available());
  EXPECT_LT(gb200.nvls.efficiency.value, h100.nvls.efficiency.value);  // NCCL's tuner
}

TEST(GpuSystems, EveryNumberHasASource) {
  for (const GpuSystem& s : gpu_systems()) {
    EXPECT_FALSE(s.gpus_per_node_source.empty()) << s.name;
    EXPECT_FALSE(s.nvlink_bandwidth.source.empty()) << s.name;
    EXPECT_FALSE(s.nvls.efficiency.source.empty()) << s.name;
    EXPECT_FALSE(s.nvls.latency.source.empty()) << s.name;
    EXPECT_FALSE(s.nic_bandwidth.source.empty()) << s.name;
    EXPECT_FALSE(s.nic_latency.source.empty()) << s.name;
  }
}

TEST(GpuSystems, UnknownNameListsTheValidOnes) {
  try {
    find_gpu_system("v100", "--system");
    FAIL();
  } catch (const core::InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--system"), std::string::npos);
    EXPECT_NE(what.find("h100, a100, h200, gb200"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace collsim::topology
