// The model zoo (workload/model_zoo.hpp): published parameter totals, the matrix products of a
// convolution and a linear layer worked by hand, the data-parallel workload, and errors.
#include "workload/model_zoo.hpp"

#include <gtest/gtest.h>

#include "compute/systolic.hpp"
#include "core/error.hpp"

namespace collsim::workload {
namespace {

TEST(ModelZoo, ParameterTotalsMatchThePublishedOnes) {
  // Published totals (1% unless stated): torchvision's counts and the papers' tables.
  const std::pair<const char*, double> published[] = {
      {"resnet50", 25.6e6},    {"vgg16", 138e6},      {"alexnet", 61e6}, {"resnet152", 60.2e6},
      {"transformer", 63.1e6}, {"bert-large", 335e6}, {"gnmt", 160e6}};
  for (const auto& [name, total] : published) {
    const Model m = find_model(name, "t");
    EXPECT_NEAR(static_cast<double>(m.params), total, 0.01 * total) << name;
  }
  // GoogLeNet: the paper's Table 1 sums to 6.8 M from rounded entries (its conv1 lists 2.7 K
  // where 7 x 7 x 3 x 64 = 9.4 K); the structure has 7.0 M, 3% above.
  EXPECT_NEAR(static_cast<double>(find_model("googlenet", "t").params), 6.8e6, 0.03 * 6.8e6);
  // NCF: its embeddings (138,493 users and 26,744 items, 64 + 128 wide) and MLP, summed by hand.
  EXPECT_EQ(find_model("ncf", "t").params,
            (138493u + 26744u) * (64 + 128) + 65792 + 32896 + 8256 + 129);
  EXPECT_GE(model_names().size(), 11u);
}

TEST(ModelZoo, MatrixProductsOfAConvolutionAndALinearLayer) {
  // ResNet-50 conv1: 7 x 7 x 3 -> 64 filters on 112 x 112 outputs; batch 16:
  //   forward (16 x 12544) x 147 by 147 x 64; input gradient (16 x 12544) x 64 by 64 x 147;
  //   weight gradient 147 x (16 x 12544) by (16 x 12544) x 64.
  const Model m = find_model("resnet50", "t");
  const auto work = layer_work(m, BuildOptions{16, 4});
  ASSERT_EQ(work.size(), 54u);  // 53 convolutions and the classifier, as ASTRA-sim counts them
  const LayerWork& conv1 = work[0];
  EXPECT_EQ(conv1.name, "conv1");
  ASSERT_EQ(conv1.pass[0].gemms.size(), 1u);
  EXPECT_EQ(conv1.pass[0].gemms[0].m, 16u * 12544);
  EXPECT_EQ(conv1.pass[0].gemms[0].n, 64u);
  EXPECT_EQ(conv1.pass[0].gemms[0].k, 147u);
  EXPECT_EQ(conv1.pass[1].gemms[0].n, 147u);
  EXPECT_EQ(conv1.pass[1].gemms[0].k, 64u);
  EXPECT_EQ(conv1.pass[2].gemms[0].m, 147u);
  EXPECT_EQ(conv1.pass[2].gemms[0].k, 16u * 12544);
  EXPECT_DOUBLE_EQ(conv1.pass[0].flops, 2.0 * 16 * 118013952);
  // conv1 carries bn1, relu and maxpool: 9408 + 128 parameters.
  EXPECT_EQ(conv1.params, 9408u + 128u);
  // The classifier: 2048 -> 1000, one output position: (16 x 1) x 2048 by 2048 x 1000.
  const LayerWork& fc = work.back();
  EXPECT_EQ(fc.pass[0].gemms[0].m, 16u);
  EXPECT_EQ(fc.pass[0].gemms[0].n, 1000u);
  EXPECT_EQ(fc.pass[0].gemms[0].k, 2048u);
  EXPECT_EQ(fc.params, 2049000u);
  // On MultiTree's arrays (16 x 32x32, 1 GHz) conv1's forward pass is
  // 6272 x 2 folds / 16 arrays = 784 rounds of 2 x 32 + 32 + 147 - 2 = 241 cycles.
  const compute::Systolic s({32, 32, 16, 1e9, {}});
  EXPECT_EQ(s.time(conv1.pass[0]).ps, 784 * 241 * 1000);
}

TEST(ModelZoo, DataParallelAllReducesEveryParameterOnce) {
  const Model m = find_model("resnet50", "t");
  const compute::Systolic s({32, 32, 16, 1e9, {}});
  const Workload w = data_parallel(m, s, BuildOptions{16, 4});
  EXPECT_EQ(w.layers.size(), 54u);
  std::uint64_t bytes = 0;
  for (const Layer& l : w.layers) {
    ASSERT_TRUE(l.comm[2].collective);
    EXPECT_EQ(*l.comm[2].collective, collective::Collective::AllReduce);
    EXPECT_EQ(l.comm[2].scope, Scope::All);
    EXPECT_FALSE(l.comm[0].collective);
    bytes += l.comm[2].size.count;
  }
  EXPECT_EQ(bytes, 25557032u * 4);
  EXPECT_EQ(w.layers[0].compute[0].ps, 784 * 241 * 1000);
}

TEST(ModelZoo, DlrmIsHybridParallel) {
  // Themis Sec. 5.2: embedding tables model parallel, MLPs data parallel. 26 tables of 128
  // dimensions, 512 samples per NPU, FP16: an all-to-all of 512 x 3328 x 2 = 3,407,872 bytes per
  // NPU, needed by the interaction (after 3 bottom-MLP layers: layer 4).
  const Model m = find_model("dlrm", "t");
  const compute::Systolic s({32, 32, 16, 1e9, {}});
  const Workload w = build_workload(m, s, BuildOptions{512, 2});
  ASSERT_EQ(w.layers.size(), 1u + 3 + 1 + 5);
  EXPECT_EQ(w.layers[0].name, "embeddings");
  EXPECT_EQ(w.layers[0].comm[0].collective, collective::Collective::AllToAll);
  EXPECT_EQ(w.layers[0].comm[0].size.count, 3407872u);
  EXPECT_TRUE(w.layers[0].comm[0].overlapped);
  EXPECT_EQ(w.layers[0].comm[0].needed_before, 4u);
  EXPECT_EQ(w.layers[4].name, "interaction(dot)");
  EXPECT_TRUE(w.layers[0].comm[1].overlapped);
  EXPECT_FALSE(w.layers[0].comm[2].collective);
  std::uint64_t mlp = 0, all_reduce = 0;
  for (const ModelRow& r : m.rows) mlp += r.type == "embedding_bag" ? 0 : r.params;
  for (const Layer& l : w.layers) all_reduce += l.comm[2].collective ? l.comm[2].size.count : 0;
  EXPECT_EQ(all_reduce, mlp * 2);
  validate(w, 64);
  EXPECT_THROW(hybrid_dlrm(find_model("alexnet", "t"), s, BuildOptions{}), core::InputError);
}

TEST(ModelZoo, Errors) {
  try {
    find_model("resnet51", "--workload");
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--workload: \"resnet51\" is neither a workload file nor "
                                         "a model of the zoo; models: alexnet, bert-large"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NE(std::string([] {
              try {
                parse_model("name: x\nparams: 5\nlayers:\n  - [a, conv, 4, 1, 1, \"1x1x1\"]\n",
                            "x.yaml");
              } catch (const core::InputError& e) {
                return std::string(e.what());
              }
              return std::string();
            }())
                .find("x.yaml:2: params: the layers have 4 parameters, the file says 5"),
            std::string::npos);
  EXPECT_THROW(parse_model("name: x\nparams: 1\nlayers:\n  - [a, conv, 1, 1, 1, \"1xq\"]\n", "x"),
               core::InputError);
  EXPECT_THROW(parse_model("name: x\nparams: 1\nlayers:\n  - [a, conv, 1]\n", "x"),
               core::InputError);
  const compute::Systolic s({32, 32, 16, 1e9, {}});
  EXPECT_THROW(data_parallel(find_model("dlrm", "t"), s, BuildOptions{}), core::InputError);
  EXPECT_THROW(data_parallel(find_model("alexnet", "t"), s, BuildOptions{0, 4}), core::InputError);
}

}  // namespace
}  // namespace collsim::workload
