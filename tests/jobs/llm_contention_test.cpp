// One simulation per LLM iteration (issue: the workload graph): pipeline sends and data-parallel
// gradient buckets that share a NIC slow each other, by an amount derived here.
#include <gtest/gtest.h>

#include <string>

#include "compute/gpu_specs.hpp"
#include "jobs/llm_cost.hpp"
#include "jobs/llm_iteration.hpp"
#include "workload/llm_config.hpp"

namespace collsim::jobs {
namespace {

workload::LlmConfig on(const std::string& topology) {
  // Two stages of one layer, two data-parallel replicas, two micro-batches: ranks 0, 1 are
  // stage 0 (replicas 0, 1), ranks 2, 3 stage 1 (Megatron's order, tp = 1).
  return workload::parse_llm_config(
      "model: {layers: 2, hidden: 1024, heads: 16, ffn_hidden: 4096, seq_len: 1024, vocab: 128}\n"
      "parallel: {tp: 1, pp: 2, dp: 2, micro_batch: 1, global_batch: 4}\n"
      "system: {gpu: a100-80gb, platform: {topology: \"" +
          topology + "\", link_bandwidth: 10 GB/s, link_latency: 0 ns}}\n",
      "contention.yaml");
}

// On switch:4 every NPU has one link to the switch: stage 1's last gradient message to stage 0
// (2 -> 0) leaves NPU 2 on the same link as NPU 2's first ring step of its gradient bucket
// all-reduce (2 -> 3), which starts at the same instant (the bucket is ready when the last
// backward ends). On fc:4 they take the links 2 -> 0 and 2 -> 3. The activation message is
// P = s x b x h x 2 bytes = 2 MiB; the ring step is half the bucket, D / 2 = 12.6 MB > P, so under
// max-min sharing the message takes 2 P / B instead of P / B: stage 0 (the critical stage: its
// last backward and its own bucket follow) ends P / B = 209.7152 us later. Nothing else differs:
// every other transfer runs alone on its links in both.
TEST(LlmContention, PipelineSendAndGradientBucketSharingANicCostThePipelineMessage) {
  const LlmResult shared = simulate_llm(on("switch:4"));
  const LlmResult apart = simulate_llm(on("fc:4"));
  const workload::LlmConfig c = on("switch:4");
  const LlmCosts k = llm_costs(c, compute::find_gpu("a100-80gb", "gpu"), 0.59);
  ASSERT_EQ(k.pp_bytes.count, 1024u * 1024 * 2);
  const core::Time p_over_b = core::transfer_time(k.pp_bytes, core::Bandwidth{10e9});
  EXPECT_EQ(shared.iteration - apart.iteration, p_over_b);
  // The report puts it where it happened: the pipeline's exposed time.
  EXPECT_EQ(shared.pp - apart.pp, p_over_b);
  EXPECT_EQ(shared.dp, apart.dp);
  EXPECT_EQ(shared.compute, apart.compute);
}

}  // namespace
}  // namespace collsim::jobs
