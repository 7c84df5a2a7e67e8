// The model zoo (workload/model_zoo.hpp): published parameter totals, the matrix products of a
// convolution and a linear layer worked by hand, the data-parallel workload, and errors.
#include "workload/model_zoo.hpp"

#include <gtest/gtest.h>

#include "compute/compute.hpp"
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
                                         "a model of the zoo; did you mean resnet50?; models: alexnet, bert-large"),
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

namespace collsim::workload {
namespace {

TEST(ModelZoo, TensorParallelGroupTakesTheLeadingDimensionsUpTo128) {
  // Themis Sec. 5.2: "model-parallel across the first dimensions up to 128 NPUs".
  EXPECT_EQ(model_parallel_group(128, {16, 8, 8}), 128u);
  EXPECT_EQ(model_parallel_group(128, {16, 64}), 16u);
  EXPECT_EQ(model_parallel_group(128, {4, 4, 8, 8}), 128u);
  EXPECT_EQ(model_parallel_group(128, {8, 16, 8}), 128u);
  EXPECT_EQ(model_parallel_group(128, {256, 4}), 1u);
  EXPECT_EQ(model_parallel_group(100, {1024}), 64u);  // the largest divisor up to 100
  EXPECT_EQ(model_parallel_group(128, {1024}), 128u);
}

TEST(ModelZoo, Transformer1TIsMegatronsTrillionParameterConfiguration) {
  // Narayanan et al. 2021 Table 1: 128 layers, d 25600, vocab 51200, 2048 tokens: 1.008 T.
  const Model m = find_model("transformer-1t", "t");
  EXPECT_EQ(m.params, 1008038758400u);
  EXPECT_EQ(m.model_parallel, 128u);
  EXPECT_TRUE(m.recompute);
}

TEST(ModelZoo, TensorParallelSplitsWorkAndAllReducesActivationsInTheGroup) {
  // One block, d = 8, 4 tokens, vocab 16, batch 2, 2-byte elements, M = 4; roofline with memory
  // unbounded, so a pass takes its FLOPs / M at 1 TFLOP/s.
  const std::string text =
      "name: tiny\nparams: 1032\nrecompute: true\nmodel_parallel: 4\nlayers:\n"
      "  - [wte, embedding, 128, 0, 32, \"4x8\"]\n"
      "  - [h.0.attn.qkv_proj, linear, 216, 768, 96, \"4x24\"]\n"
      "  - [h.0.attn.out_proj, linear, 72, 256, 32, \"4x8\"]\n"
      "  - [h.0.mlp.fc1, linear, 288, 1024, 128, \"4x32\"]\n"
      "  - [h.0.mlp.fc2, linear, 264, 1024, 32, \"4x8\"]\n"
      "  - [ln_f, layernorm, 64, 0, 32, \"4x8\"]\n";
  const Model m = parse_model(text, "tiny.yaml");
  const auto compute = compute::make_compute_model("roofline:peak=1,memory=1000000TB/s", "c");
  BuildOptions o{2, 2, 4};
  const Workload w = build_workload(m, *compute, o);
  ASSERT_EQ(w.layers.size(), 5u);  // wte, qkv, out_proj, fc1, fc2 (+ ln_f)
  EXPECT_EQ(w.model_parallel_npus, 4u);
  const core::Bytes act{2 * 32 * 2};  // batch x 4 x 8 elements x 2 bytes
  // Embedding: forward all-reduce of its output (vocabulary parallel), weights over DP groups.
  EXPECT_EQ(w.layers[0].comm[0].scope, Scope::ModelParallel);
  EXPECT_EQ(w.layers[0].comm[0].size, act);
  EXPECT_EQ(w.layers[0].comm[2].size.count, 128u / 4 * 2);
  EXPECT_EQ(w.layers[0].comm[2].scope, Scope::DataParallel);
  // qkv (column parallel): no forward all-reduce; input gradients all-reduced.
  EXPECT_FALSE(w.layers[1].comm[0].collective);
  EXPECT_EQ(w.layers[1].comm[1].size, act);
  EXPECT_EQ(w.layers[1].comm[1].scope, Scope::ModelParallel);
  // out_proj (row parallel): forward all-reduce, and again when recomputed in back-propagation.
  EXPECT_EQ(w.layers[2].comm[0].size, act);
  EXPECT_EQ(w.layers[2].comm[1].size, act);
  // fc2 carries ln_f's parameters too: (264 + 64) / 4 x 2 bytes.
  EXPECT_EQ(w.layers[4].comm[2].size.count, (264u + 64) / 4 * 2);
  // Compute: fc1 forward 2 x 2 x 1024 FLOPs / 4 = 1024 FLOPs at 1 TFLOP/s = 1.024 ns; the input
  // gradient the same plus the recomputed forward.
  EXPECT_EQ(w.layers[3].compute[0].ps, 1024);
  EXPECT_EQ(w.layers[3].compute[1].ps, 2048);
  EXPECT_EQ(w.layers[3].compute[2].ps, 1024);
  validate(w, 8);
  // A group of one NPU (the platform's first dimension is larger than model_parallel) and a
  // model without Megatron's layers are refused.
  EXPECT_THROW(tensor_parallel(m, *compute, BuildOptions{2, 2, 1}), core::InputError);
  EXPECT_THROW(tensor_parallel(find_model("alexnet", "t"), *compute, o), core::InputError);
  EXPECT_THROW(parse_model("name: x\nparams: 1\nmodel_parallel: 1\nlayers:\n"
                           "  - [a, linear, 1, 1, 1, \"1\"]\n",
                           "x"),
               core::InputError);
  EXPECT_THROW(parse_model("name: x\nparams: 1\nrecompute: maybe\nlayers:\n"
                           "  - [a, linear, 1, 1, 1, \"1\"]\n",
                           "x"),
               core::InputError);
}

}  // namespace
}  // namespace collsim::workload
