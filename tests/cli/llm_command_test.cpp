// `collsim llm CONFIG.yaml`: every key and value of issue 33's list runs, on one node and across
// two, with 8 or 4 NICs per node; CSV has iteration_time_ms and the cluster is named on standard
// error and in the JSON only; --strict-memory turns the memory warning into exit 2.
#include <gtest/gtest.h>

#include <algorithm>
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
  // Work beyond --max-messages is refused before it is simulated.
  const auto lim = collsim("llm examples/llm/sc21-gpt3-1.7b.yaml --max-messages 1000");
  EXPECT_EQ(lim.status, 2);
  EXPECT_NE(lim.err.find("more than 1000 messages on the flow backend (--max-messages 1000)"),
            std::string::npos)
      << lim.err;
  EXPECT_EQ(collsim("llm examples/llm/sc21-gpt3-1.7b.yaml --max-messages 1e6 -q").status, 0);
  const auto act = collsim("llm examples/llm/sc21-gpt3-1.7b.yaml --activity /tmp/x.csv");
  EXPECT_EQ(act.status, 2);
  EXPECT_NE(act.err.find("--activity: "), std::string::npos) << act.err;
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
  // The ring-attention exchange runs (cp 4) and is reported; on NVSwitch it hides behind the
  // attention compute it overlaps, so its exposed time may be zero.
  EXPECT_NE(c.out.find("\"cp\": 4"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("\"cp_exposed\": "), std::string::npos) << c.out;
}

}  // namespace
}  // namespace collsim::test

namespace collsim::test {
namespace {

std::string column(const std::string& csv, std::size_t row, const std::string& name) {
  std::vector<std::vector<std::string>> cells;
  std::size_t at = 0;
  while (at < csv.size()) {
    const std::size_t end = csv.find('\n', at);
    const std::string line = csv.substr(at, end - at);
    std::vector<std::string> c;
    std::size_t p = 0;
    while (true) {
      const std::size_t q = line.find(',', p);
      c.push_back(line.substr(p, q - p));
      if (q == std::string::npos) break;
      p = q + 1;
    }
    cells.push_back(c);
    at = end == std::string::npos ? csv.size() : end + 1;
  }
  for (std::size_t i = 0; i < cells[0].size(); ++i) {
    if (cells[0][i] == name) return cells.at(row + 1).at(i);
  }
  return "";
}

// The scenario's platforms simulate every group of a collective and every TP rank's pipeline
// message; the standard cluster one of each (the groups' symmetry). On the same machine they agree.
TEST(LlmCommand, ScenarioJobsOnTheStandardClustersShapeGiveTheSymmetricRunsNumbers) {
  const auto s = collsim("run examples/llm/scenario.yaml --format csv -q");
  ASSERT_EQ(s.status, 0) << s.err;
  const auto one = collsim("llm examples/llm/sc21-gpt3-1.7b.yaml --format csv -q");
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(column(s.out, 0, "config"), "dgx-a100-8nic flow jobs[0]");
  EXPECT_EQ(column(s.out, 0, "iteration_time_ms"), column(one.out, 0, "iteration_time_ms"));
  const std::string llama = write(
      "llama.yaml", "model: {preset: llama2-7b}\nparallel: {tp: 4, pp: 2, dp: 4, micro_batch: 1, "
                    "global_batch: 64, sequence_parallel: true, zero: 1, recompute: selective}\n"
                    "system: {gpu: a100-80gb, nics_per_node: 4}\n");
  const auto four = collsim("llm '" + llama + "' --format csv -q");
  ASSERT_EQ(four.status, 0) << four.err;
  EXPECT_EQ(column(s.out, 3, "config"), "dgx-a100-4nic flow jobs[1]");
  EXPECT_EQ(column(s.out, 3, "iteration_time_ms"), column(four.out, 0, "iteration_time_ms"));
  EXPECT_NE(column(s.out, 1, "iteration_time_ms"), column(s.out, 3, "iteration_time_ms"));
  // An llm job with another kind of job is refused by name.
  const auto mixed = collsim(
      "run '" + write("mixed.yaml", "platform: {topology: switch:8, link_bandwidth: 100 GB/s, "
                                    "link_latency: 1 us}\njobs:\n  - llm: '" + llama +
                                    "'\n  - {collective: all-reduce, sizes: 1MiB, "
                                    "algorithms: ring}\n") +
      "'");
  EXPECT_EQ(mixed.status, 2);
  EXPECT_NE(mixed.err.find("jobs[1]: a scenario's jobs are all llm jobs or none"),
            std::string::npos)
      << mixed.err;
}

}  // namespace
}  // namespace collsim::test

namespace collsim::test {
namespace {

TEST(LlmCommand, JobsRunConfigsOnThreadsWithTheBytesOfOne) {
  // Three configs of unequal cost on two threads: rows and notes in input order, as one thread.
  std::string configs;
  int i = 0;
  for (const char* split : {"tp: 8, pp: 2, dp: 2", "tp: 2, pp: 1, dp: 1", "tp: 4, pp: 4, dp: 1"}) {
    const std::string p = std::string(split) + ", micro_batch: 1, global_batch: 8";
    configs += " '" + write("jobs" + std::to_string(i++) + ".yaml", dense(p, "{gpu: h100}")) + "'";
  }
  const auto one = collsim("llm" + configs + " --format csv -j 1");
  const auto two = collsim("llm" + configs + " --format csv -j 2");
  ASSERT_EQ(one.status, 0) << one.err;
  ASSERT_EQ(two.status, 0) << two.err;
  EXPECT_EQ(std::count(one.out.begin(), one.out.end(), '\n'), 4) << one.out;  // header + 3
  EXPECT_EQ(one.out, two.out);
  EXPECT_EQ(one.err, two.err);
}

}  // namespace
}  // namespace collsim::test

namespace collsim::test {
namespace {

TEST(LlmCommand, BreakdownPrintsEveryStagesKernelClasses) {
  const std::string c = write("bd.yaml", dense("tp: 2, pp: 2, dp: 1, micro_batch: 1, "
                                               "global_batch: 4, recompute: selective",
                                               "{gpu: a100-80gb}"));
  const auto csv = collsim("llm '" + c + "' --breakdown --format csv -q");
  ASSERT_EQ(csv.status, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("config,stage,class,time_ms,share\n", 0), 0u) << csv.out;
  // 2 stages x 11 classes.
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 1 + 2 * 11) << csv.out;
  EXPECT_NE(csv.out.find(",1,loss,"), std::string::npos);
  const auto table = collsim("llm '" + c + "' --breakdown -q");
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("stage 1:"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("gemm"), std::string::npos);
}

TEST(LlmCommand, JobOnlyConfigNeedsSearchAndSearchRanksItsSplits) {
  const std::string job = write(
      "job.yaml", "model: {layers: 8, hidden: 1024, heads: 16, ffn_hidden: 4096, seq_len: 2048, "
                  "vocab: 50257}\nparallel: {global_batch: 16, zero: 1, recompute: selective}\n"
                  "system: {gpu: a100-80gb, gpus: 8}\n");
  const auto plain = collsim("llm '" + job + "' -q");
  EXPECT_EQ(plain.status, 2);
  EXPECT_NE(plain.err.find("run it with --search"), std::string::npos) << plain.err;
  const auto one = collsim("llm '" + job + "' --search --top 3 --format csv -j 1");
  const auto two = collsim("llm '" + job + "' --search --top 3 --format csv -j 2");
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(one.out, two.out);
  EXPECT_EQ(std::count(one.out.begin(), one.out.end(), '\n'), 4) << one.out;
  EXPECT_NE(one.err.find("fit in memory"), std::string::npos) << one.err;
  // The first row is the fastest.
  EXPECT_LE(std::stod(column(one.out, 0, "iteration_time_ms")),
            std::stod(column(one.out, 1, "iteration_time_ms")));
  // A split inconsistent with system.gpus, and bad new keys, are refused by name.
  const auto bad = collsim("llm '" + write("bad2.yaml", "model: {preset: gpt3-1.7b}\nparallel: "
                                                        "{tp: 2, pp: 1, dp: 2, micro_batch: 1, "
                                                        "global_batch: 4}\nsystem: {gpu: a100, "
                                                        "gpus: 8}\n") + "'");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("system.gpus: 8 GPUs, but tp x cp x dp x pp = 4"), std::string::npos)
      << bad.err;
  const auto pe = collsim("llm '" + write("pe.yaml", "model: {preset: gpt3-1.7b, "
                                                      "position_embedding: alibi}\nparallel: "
                                                      "{tp: 1, pp: 1, dp: 1, micro_batch: 1, "
                                                      "global_batch: 1}\nsystem: {gpu: a100}\n") +
                          "'");
  EXPECT_EQ(pe.status, 2);
  EXPECT_NE(pe.err.find("model.position_embedding: must be learned or rope"), std::string::npos)
      << pe.err;
  const auto none = collsim("llm '" + write("none.yaml", "model: {preset: gpt3-175b}\nparallel: "
                                                          "{global_batch: 8}\nsystem: {gpu: "
                                                          "a100, gpus: 8}\n") +
                            "' --search");
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("fits in"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace collsim::test
