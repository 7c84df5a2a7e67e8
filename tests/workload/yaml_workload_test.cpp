// collsim's workload file (workload/yaml_workload.hpp): fields, units, scopes and errors.
#include "workload/yaml_workload.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/parse.hpp"

namespace collsim::workload {
namespace {

std::string error_of(const std::string& yaml) {
  try {
    parse_yaml_workload(yaml, "w.yaml");
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(YamlWorkload, LayersPassesAndScopes) {
  const Workload w = parse_yaml_workload(R"(
name: mlp
model_parallel_npus: 4
layers:
  - name: fc1
    forward: {compute: 1.5 us, collective: all-gather, size: 64 KiB, scope: model-parallel}
    weight_gradient: {compute: 3 us, collective: all-reduce, size: 1 MB, scope: data-parallel}
    update: 250 ns
  - input_gradient: {compute: 2 ms}
)",
                                         "w.yaml");
  EXPECT_EQ(w.name, "mlp");
  EXPECT_EQ(w.model_parallel_npus, 4u);
  ASSERT_EQ(w.layers.size(), 2u);
  const Layer& a = w.layers[0];
  EXPECT_EQ(a.compute[0].ps, 1500000);
  EXPECT_EQ(a.compute[1].ps, 0);
  EXPECT_EQ(a.compute[2].ps, 3000000);
  EXPECT_EQ(a.update.ps, 250000);
  EXPECT_EQ(a.comm[0].collective, collective::Collective::AllGather);
  EXPECT_EQ(a.comm[0].size.count, 65536u);
  EXPECT_EQ(a.comm[0].scope, Scope::ModelParallel);
  EXPECT_FALSE(a.comm[1].collective);
  EXPECT_EQ(a.comm[2].size.count, 1000000u);
  EXPECT_EQ(a.comm[2].scope, Scope::DataParallel);
  EXPECT_EQ(w.layers[1].name, "layer1");
  EXPECT_EQ(w.layers[1].compute[1].ps, 2000000000);
}

TEST(YamlWorkload, ErrorsNameTheLineAndKey) {
  EXPECT_EQ(error_of("layers: []"), "w.yaml:1: layers: must be a non-empty list of layers");
  EXPECT_NE(error_of("layers:\n  - forward: {compute: 1 us, colective: all-reduce}")
                .find("w.yaml:2: layers[0].forward.colective: unknown key"),
            std::string::npos);
  EXPECT_NE(error_of("layers:\n  - forward: {compute: 1, collective: all-reduce, size: 1 MiB}")
                .find("w.yaml:2: layers[0].forward.compute: \"1\" has no unit"),
            std::string::npos);
  EXPECT_NE(error_of("layers:\n  - forward: {collective: all-reduce}")
                .find("layers[0].forward.size: a collective needs a size"),
            std::string::npos);
  EXPECT_NE(error_of("layers:\n  - forward: {collective: all-reduce, size: 1 MiB, scope: rack}")
                .find("unknown scope \"rack\""),
            std::string::npos);
  EXPECT_NE(error_of("layers:\n  - forward: {collective: allreduce, size: 1 MiB}")
                .find("layers[0].forward.collective"),
            std::string::npos);
  EXPECT_THROW(read_yaml_workload("/no/such/file.yaml"), core::InputError);
}

TEST(ParseFrequency, UnitsAndErrors) {
  EXPECT_DOUBLE_EQ(core::parse_frequency("700 MHz", "clock"), 700e6);
  EXPECT_DOUBLE_EQ(core::parse_frequency("1GHz", "clock"), 1e9);
  EXPECT_DOUBLE_EQ(core::parse_frequency("2.5 kHz", "clock"), 2500);
  EXPECT_THROW(core::parse_frequency("0 GHz", "clock"), core::InputError);
  EXPECT_THROW(core::parse_frequency("1 ghz", "clock"), core::InputError);
  EXPECT_THROW(core::parse_frequency("fast", "clock"), core::InputError);
}

}  // namespace
}  // namespace collsim::workload
