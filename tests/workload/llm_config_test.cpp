// workload/llm_config: the `collsim llm` config keys, defaults, presets and errors.
#include "workload/llm_config.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"

namespace collsim::workload {
namespace {

const char* kMinimal =
    "model: {layers: 24, hidden: 2048, heads: 16, ffn_hidden: 8192, seq_len: 2048, vocab: 50257}\n"
    "parallel: {tp: 2, pp: 2, dp: 2, micro_batch: 1, global_batch: 8}\n"
    "system: {gpu: a100-80gb}\n";

std::string error_of(const std::string& text) {
  try {
    parse_llm_config(text, "c.yaml");
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(LlmConfig, OnlyTheSizesTheSplitAndTheGpuAreRequiredTheRestDefaults) {
  const LlmConfig c = parse_llm_config(kMinimal, "c.yaml");
  EXPECT_EQ(c.model.kv_heads, 16u);  // = heads
  EXPECT_EQ(c.model.experts, 0u);
  EXPECT_EQ(c.parallel.ep, 1u);
  EXPECT_EQ(c.parallel.cp, 1u);
  EXPECT_EQ(c.parallel.vpp, 1u);
  EXPECT_FALSE(c.parallel.sequence_parallel);
  EXPECT_EQ(c.parallel.zero, Zero::None);
  EXPECT_EQ(c.parallel.recompute, Recompute::None);
  EXPECT_EQ(c.system.gpus_per_node, 8u);
  EXPECT_EQ(c.parallel.gpus(), 8u);
  EXPECT_EQ(c.parallel.micro_batches(), 4u);  // 8 / (dp 2 x micro-batch 1)
  EXPECT_FALSE(c.system.platform.has_value());
}

TEST(LlmConfig, EveryListedKeyAndValueIsAccepted) {
  const LlmConfig c = parse_llm_config(
      "model: {layers: 96, hidden: 12288, heads: 96, kv_heads: 96, ffn_hidden: 49152,\n"
      "         seq_len: 2048, vocab: 51200, experts: 0, top_k: 2}\n"
      "parallel: {tp: 8, pp: 8, dp: 16, ep: 1, cp: 1, vpp: 1, micro_batch: 1, global_batch: 1536,\n"
      "           sequence_parallel: true, zero: 1, recompute: selective}\n"
      "system: {gpu: a100-80gb, gpus_per_node: 8, nics_per_node: 4, nic_bandwidth: 200 Gb/s}\n",
      "c.yaml");
  EXPECT_EQ(c.parallel.zero, Zero::One);
  EXPECT_EQ(c.parallel.recompute, Recompute::Selective);
  EXPECT_TRUE(c.parallel.sequence_parallel);
  EXPECT_EQ(c.system.nics_per_node, 4u);
  EXPECT_DOUBLE_EQ(c.system.nic_bandwidth->bytes_per_s, 25e9);
  EXPECT_EQ(c.parallel.gpus(), 1024u);
  for (const char* z : {"0", "1", "2", "3", "fsdp"}) {
    std::string t = kMinimal;
    t.replace(t.find("global_batch: 8}"), 16, std::string("global_batch: 8, zero: ") + z + "}");
    EXPECT_EQ(error_of(t), "") << z;
  }
}

TEST(LlmConfig, PresetsCarryTheirSourcesAndPublishedSizes) {
  const LlmModel& g = find_llm_preset("gpt3-175b", "model.preset");
  EXPECT_EQ(g.layers, 96u);
  EXPECT_EQ(g.hidden, 12288u);
  const LlmModel& l = find_llm_preset("llama2-70b", "model.preset");
  EXPECT_EQ(l.kv_heads, 8u);  // grouped-query attention
  EXPECT_TRUE(l.gated_mlp);
  const LlmModel& m = find_llm_preset("mixtral-8x7b", "model.preset");
  EXPECT_EQ(m.experts, 8u);
  EXPECT_EQ(m.top_k, 2u);
  for (const LlmModel& p : llm_presets()) EXPECT_FALSE(p.source.empty()) << p.name;
  EXPECT_THROW(find_llm_preset("gpt3-17b", "model.preset"), core::InputError);
  const LlmConfig c = parse_llm_config(
      "model: {preset: gpt3-1.7b}\nparallel: {tp: 1, pp: 1, dp: 32, micro_batch: 16, "
      "global_batch: 512}\nsystem: {gpu: a100-80gb}\n",
      "c.yaml");
  EXPECT_EQ(c.model.hidden, 2304u);
}

TEST(LlmConfig, VocabularyIsPaddedAsMegatronPadsIt) {
  EXPECT_EQ(padded_vocab(50257, 1), 50304u);  // GPT-2 BPE: the familiar 50,304
  EXPECT_EQ(padded_vocab(50257, 8), 51200u);
  EXPECT_EQ(padded_vocab(32000, 3), 32256u);  // tp need not divide the vocabulary
  EXPECT_EQ(padded_vocab(51200, 8), 51200u);
}

TEST(LlmConfig, ErrorsNameTheKeyAndTheReason) {
  EXPECT_NE(error_of(std::string(kMinimal) + "extra: 1\n").find("extra: unknown key"),
            std::string::npos);
  std::string t = kMinimal;
  t.replace(t.find("tp: 2"), 5, "tq: 2");
  EXPECT_NE(error_of(t).find("parallel.tq: unknown key; did you mean tp?"), std::string::npos)
      << error_of(t);
  t = kMinimal;
  t.replace(t.find("global_batch: 8"), 15, "global_batch: 7");
  EXPECT_NE(error_of(t).find("parallel.global_batch: must be a multiple of dp x micro_batch"),
            std::string::npos);
  t = kMinimal;
  t.replace(t.find("global_batch: 8}"), 16, "global_batch: 8, recompute: some}");
  EXPECT_NE(error_of(t).find("parallel.recompute: must be none, selective or full"),
            std::string::npos);
  t = kMinimal;
  t.replace(t.find("tp: 2"), 5, "tp: 32");
  EXPECT_NE(error_of(t).find("c.yaml:2: parallel.tp: heads (16) must be divisible by tp (32)"),
            std::string::npos)
      << error_of(t);
  t = kMinimal;
  t.replace(t.find("global_batch: 8}"), 16, "global_batch: 8, ep: 2}");
  EXPECT_NE(error_of(t).find("a dense model (experts: 0) takes ep 1"), std::string::npos);
  t = kMinimal;
  t.replace(t.find("{gpu: a100-80gb}"), 16, "{gpu: a100-80gb, nic_bandwidth: 200}");
  EXPECT_NE(error_of(t).find("system.nic_bandwidth"), std::string::npos) << error_of(t);
  t = kMinimal;
  t.replace(t.find("vocab: 50257"), 12, "vocab: x");
  EXPECT_NE(error_of(t).find("model.vocab: must be a whole number"), std::string::npos);
  EXPECT_NE(error_of("model: {preset: gpt3-1.7b}\nparallel: {tp: 1}\nsystem: {gpu: a100}\n")
                .find("parallel.pp: missing (required)"),
            std::string::npos);
}

}  // namespace
}  // namespace collsim::workload
