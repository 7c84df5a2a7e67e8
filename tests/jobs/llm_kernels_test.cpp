// jobs/llm_kernels and the per-stage breakdown: the kernel lists' FLOPs and bytes against closed
// forms of the GPT layer (Narayanan et al. SC'21 eq. (3), Korthikanti et al. 2022 Sec. 4), and
// the breakdown summing to the iteration's compute.
#include <gtest/gtest.h>

#include <string>

#include "compute/gpu_specs.hpp"
#include "jobs/llm_cost.hpp"
#include "jobs/llm_iteration.hpp"
#include "jobs/llm_kernels.hpp"
#include "workload/llm_config.hpp"

namespace collsim::jobs {
namespace {

using workload::LlmConfig;

LlmConfig config(const std::string& model, const std::string& parallel,
                 const std::string& system = "{gpu: a100-80gb}") {
  return workload::parse_llm_config(
      "model: " + model + "\nparallel: " + parallel + "\nsystem: " + system + "\n", "test.yaml");
}

double flops(const std::vector<LlmKernel>& ks) {
  double f = 0;
  for (const LlmKernel& k : ks) f += k.work.gemm.flops();
  return f;
}
double bytes_of(const std::vector<LlmKernel>& ks, KernelClass c) {
  double b = 0;
  for (const LlmKernel& k : ks) b += k.cls == c ? k.work.bytes : 0;
  return b;
}

TEST(LlmKernels, GptLayerFlopsAndSoftmaxBytesAreTheClosedForms) {
  // Korthikanti et al. Table 3's 22B layer: h 6,144, a 64, s 2,048, b 4, t 8.
  const LlmConfig c = config("{layers: 48, hidden: 6144, heads: 64, ffn_hidden: 24576, "
                             "seq_len: 2048, vocab: 51200}",
                             "{tp: 8, pp: 1, dp: 1, micro_batch: 4, global_batch: 4}");
  const double b = 4, s = 2048, h = 6144, t = 8, a = 64;
  const auto fwd = layer_forward_kernels(c);
  // Per GPU: (24 b s h^2 + 4 b s^2 h) / t executed on tensor cores.
  EXPECT_NEAR(flops(fwd) / ((24 * b * s * h * h + 4 * b * s * s * h) / t), 1.0, 1e-12);
  // Backward: input and weight gradients, twice the forward's GEMMs.
  EXPECT_NEAR(flops(layer_backward_kernels(c)) / flops(fwd), 2.0, 1e-12);
  // The fused scale-mask-softmax reads and writes the a / t score matrices once (2 bytes each).
  EXPECT_DOUBLE_EQ(bytes_of(fwd, KernelClass::Softmax), b * (a / t) * s * s * 4);
  // Dropout: read, write and a one-byte mask.
  EXPECT_DOUBLE_EQ(bytes_of(fwd, KernelClass::Dropout), b * (a / t) * s * s * 5);
  // Selective recomputation reruns the core attention: 4 b s^2 h / t of the FLOPs.
  LlmConfig sel = c;
  sel.parallel.recompute = workload::Recompute::Selective;
  EXPECT_NEAR(flops(layer_recompute_kernels(sel)) / (4 * b * s * s * h / t), 1.0, 1e-12);
  EXPECT_TRUE(layer_recompute_kernels(c).empty());
  // Sequence parallelism runs the norms on 1 / t of the tokens.
  LlmConfig sp = c;
  sp.parallel.sequence_parallel = true;
  EXPECT_DOUBLE_EQ(bytes_of(layer_forward_kernels(sp), KernelClass::Norm) * t,
                   bytes_of(fwd, KernelClass::Norm));
}

TEST(LlmKernels, FlashAttentionRunsHalfTheCausalScoresAndStoresNone) {
  const LlmConfig c = config("{preset: llama2-7b, layers: 4}",
                             "{tp: 1, pp: 1, dp: 1, micro_batch: 1, global_batch: 1}");
  const auto fwd = layer_forward_kernels(c);
  const double s = 4096, h = 4096;
  double attn = 0, model = 0;
  for (const LlmKernel& k : fwd) {
    if (k.cls == KernelClass::Attention) {
      attn += k.work.gemm.flops();
      model += k.model_flops;
    }
  }
  EXPECT_NEAR(attn / (2 * s * s * h), 1.0, 1e-12);   // causal: half of 4 s^2 h
  EXPECT_NEAR(model / (4 * s * s * h), 1.0, 1e-12);  // eq. (3) counts them all
  EXPECT_EQ(bytes_of(fwd, KernelClass::Softmax), 0);
  EXPECT_EQ(bytes_of(fwd, KernelClass::Dropout), 0);
}

TEST(LlmBreakdown, CriticalStageSumsToTheIterationsComputeAndOptimizer) {
  for (const char* parallel :
       {"{tp: 2, pp: 4, dp: 1, micro_batch: 1, global_batch: 8, recompute: full}",
        "{tp: 2, pp: 2, vpp: 2, dp: 2, micro_batch: 2, global_batch: 16, zero: 1, "
        "recompute: selective, sequence_parallel: true}"}) {
    const LlmConfig c = config("{layers: 8, hidden: 2048, heads: 16, ffn_hidden: 8192, "
                               "seq_len: 2048, vocab: 50257}",
                               parallel);
    const LlmResult r = simulate_llm(c);
    const LlmCosts k = llm_costs(c, compute::find_gpu("a100-80gb", "gpu"), r.matmul_efficiency);
    const auto stages = llm_stage_breakdown(c, k);
    ASSERT_EQ(stages.size(), c.parallel.pp);
    const double want = (r.compute + r.optimizer).seconds();
    EXPECT_NEAR(stages[r.critical_stage].total() / want, 1.0, 1e-6) << parallel;
    // Every stage launches kernels; the first holds the embedding, the last the loss.
    EXPECT_GT(stages.front().seconds[static_cast<int>(KernelClass::Embedding)], 0);
    EXPECT_EQ(stages.front().seconds[static_cast<int>(KernelClass::Loss)], 0);
    EXPECT_GT(stages.back().seconds[static_cast<int>(KernelClass::Loss)], 0);
    EXPECT_GT(stages.back().seconds[static_cast<int>(KernelClass::Launch)], 0);
  }
}

}  // namespace
}  // namespace collsim::jobs

#include "jobs/llm_search.hpp"

namespace collsim::jobs {
namespace {

std::vector<LlmResult> serial(const std::vector<workload::LlmConfig>& batch) {
  std::vector<LlmResult> out;
  for (const auto& c : batch) out.push_back(simulate_llm(c));
  return out;
}

// The pruned search's ranking equals simulating every split that fits (a reduced space: a 1.3B
// model on 16 GPUs, tp and ZeRO held).
TEST(LlmSearch, PrunedRankingEqualsTheExhaustiveOne) {
  const LlmConfig job = workload::parse_llm_config(
      "model: {layers: 24, hidden: 2048, heads: 16, ffn_hidden: 8192, seq_len: 2048, "
      "vocab: 50257}\nparallel: {global_batch: 64, zero: 1}\n"
      "system: {gpu: a100-40gb, gpus: 16, gpu_memory: 16 GiB}\n",
      "job.yaml");
  EXPECT_FALSE(job.complete);
  LlmSearchOptions o;
  o.top = 5;
  o.run_batch = serial;
  const LlmSearchResult pruned = search_llm(job, o);
  o.exhaustive = true;
  const LlmSearchResult all = search_llm(job, o);
  ASSERT_EQ(pruned.top.size(), 5u);
  ASSERT_EQ(all.top.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(pruned.top[i].label, all.top[i].label) << i;
    EXPECT_EQ(pruned.top[i].result.iteration.ps, all.top[i].result.iteration.ps) << i;
  }
  EXPECT_EQ(all.simulated, all.fit);
  EXPECT_LT(pruned.simulated, all.simulated / 2);
  EXPECT_LT(all.fit, all.splits);  // 16 GiB prunes some
  // Every bound is below its simulated time.
  for (const LlmCandidate& c : all.top) EXPECT_LE(c.bound, c.result.iteration.seconds());
}

}  // namespace
}  // namespace collsim::jobs
