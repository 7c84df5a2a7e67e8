// `collsim llm CONFIG.yaml`: every key and value of issue 33's list runs, on one node and across
// two, with 8 or 4 NICs per node; CSV has iteration_time_ms and the cluster is named on standard
// error and in the JSON only; --strict-memory turns the memory warning into exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_run.hpp"

namespace collsim::test {
namespace {

std::string write(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "collsim_llm_test";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

std::string dense(const std::string& parallel, const std::string& system) {
  return "model: {layers: 8, hidden: 1024, heads: 16, kv_heads: 16, ffn_hidden: 4096, "
         "seq_len: 1024, vocab: 50257, experts: 0, top_k: 2}\n"
         "parallel: {" + parallel + "}\nsystem: " + system + "\n";
}

TEST(LlmCommand, EveryListedKeyAndValueRunsOnOneNodeAndAcrossTwo) {
  const std::string node = "{gpu: a100-80gb, gpus_per_node: 8}";
  const std::string nics4 =
      "{gpu: a100-80gb, gpus_per_node: 8, nics_per_node: 4, nic_bandwidth: 200 Gb/s}";
  int i = 0;
  for (const std::string& sys : {node, nics4}) {
    for (const char* split : {"tp: 2, pp: 1, dp: 1", "tp: 2, pp: 2, dp: 1", "tp: 1, pp: 2, dp: 3",
                              "tp: 8, pp: 1, dp: 1", "tp: 16, pp: 1, dp: 1",
                              "tp: 4, pp: 2, dp: 2"}) {
      for (const char* rest :
           {"zero: 0, recompute: full, sequence_parallel: true",
            "zero: 1, recompute: selective, sequence_parallel: false"}) {
        const std::string p = std::string(split) +
                              ", ep: 1, cp: 1, vpp: 1, micro_batch: 1, global_batch: 12, " + rest;
        const auto r = collsim("llm '" + write("c" + std::to_string(i++) + ".yaml", dense(p, sys)) +
                               "' --format csv");
        ASSERT_EQ(r.status, 0) << p << "\n" << r.err;
        EXPECT_EQ(r.out.rfind("config,model,gpu,gpus,", 0), 0u) << r.out;
        EXPECT_NE(r.out.find("iteration_time_ms"), std::string::npos);
        EXPECT_NE(r.err.find("node"), std::string::npos) << r.err;  // the cluster, on stderr
        EXPECT_EQ(r.out.find("NVSwitch"), std::string::npos);       // not in the CSV
      }
    }
  }
}

TEST(LlmCommand, JsonNamesTheClusterAndStrictMemoryRefusesWhatDoesNotFit) {
  const std::string fits = write("fits.yaml", dense("tp: 2, pp: 1, dp: 2, micro_batch: 1, "
                                                    "global_batch: 4",
                                                    "{gpu: h100}"));
  const auto j = collsim("llm '" + fits + "' --format json -q");
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_NE(j.out.find("\"cluster\": \"1 node of 4 x h100-sxm"), std::string::npos) << j.out;
  EXPECT_NE(j.out.find("\"iteration_time_ms\""), std::string::npos);
  const std::string big = write(
      "big.yaml", "model: {preset: gpt3-175b}\nparallel: {tp: 8, pp: 1, dp: 1, micro_batch: 1, "
                  "global_batch: 8}\nsystem: {gpu: a100-80gb}\n");
  const auto warn = collsim("llm '" + big + "' --format csv");
  EXPECT_EQ(warn.status, 0) << warn.err;
  EXPECT_NE(warn.err.find("warning: "), std::string::npos) << warn.err;
  const auto strict = collsim("llm '" + big + "' --format csv --strict-memory");
  EXPECT_EQ(strict.status, 2);
  EXPECT_NE(strict.err.find("--strict-memory: "), std::string::npos) << strict.err;
  EXPECT_EQ(strict.out, "");
  const auto bad = collsim("llm '" + write("bad.yaml", "model: {preset: gpt3-1.7b}\n") + "'");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("parallel: missing (required)"), std::string::npos) << bad.err;
}

TEST(LlmCommand, MoeWithSkewAndContextParallelRunAndShowTheirExposedTime) {
  const std::string moe = write(
      "moe.yaml", "model: {preset: mixtral-8x7b, layers: 8}\nparallel: {tp: 2, pp: 2, dp: 4, "
                  "ep: 4, micro_batch: 1, global_batch: 16, sequence_parallel: true, zero: 1, "
                  "recompute: selective, ep_skew: 1.5}\nsystem: {gpu: h100}\n");
  const auto r = collsim("llm '" + moe + "' --format json -q");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("\"ep_exposed\": 0.0,"), std::string::npos) << r.out;
  const std::string cp = write(
      "cp.yaml", "model: {preset: llama3-8b, layers: 8}\nparallel: {tp: 2, pp: 1, dp: 2, cp: 4, "
                 "micro_batch: 1, global_batch: 4, sequence_parallel: true}\n"
                 "system: {gpu: h100}\n");
  const auto c = collsim("llm '" + cp + "' --format json -q");
  ASSERT_EQ(c.status, 0) << c.err;
}

}  // namespace
}  // namespace collsim::test
