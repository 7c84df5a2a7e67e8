// --export-chakra: a run's workload graph written as Chakra traces and run again by `collsim
// train --workload PREFIX` on the topology the first run states, to the same iteration time; the
// files read with the protobuf schema alone.
#include <google/protobuf/io/coded_stream.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_run.hpp"
#include "workload/formats/chakra_et.pb.h"

namespace collsim {
namespace {

using test::collsim;
using test::Result;
namespace pb = collsim::chakra::et;

std::filesystem::path scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "collsim_export_chakra_test" /
                   std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  return dir / name;
}

double json_number(const std::string& out, const char* key) {
  const nlohmann::json j = nlohmann::json::parse(out);
  return j["runs"][0][key].get<double>();
}

// The training report's total row (its last) in CSV: the column named `column`.
double csv_column(const std::string& csv, const std::string& column) {
  std::istringstream in(csv);
  std::string header, row, line;
  std::getline(in, header);
  while (std::getline(in, line)) {
    if (!line.empty()) row = line;
  }
  const auto split = [](const std::string& s) {
    std::vector<std::string> v;
    std::string cur;
    for (char c : s) {
      if (c == ',') {
        v.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    v.push_back(cur);
    return v;
  };
  const auto h = split(header), r = split(row);
  for (std::size_t i = 0; i < h.size(); ++i) {
    if (h[i] == column) return std::stod(r.at(i));
  }
  ADD_FAILURE() << column << " not in " << header;
  return 0;
}

// Every node of a trace file, parsed with the schema alone: a GlobalMetadata, then Nodes, each
// length-delimited.
std::vector<pb::Node> read(const std::filesystem::path& file, pb::GlobalMetadata* meta) {
  std::ifstream f(file, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string data = ss.str();
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(data.data()),
                                            static_cast<int>(data.size()));
  std::vector<pb::Node> nodes;
  bool first = true;
  while (static_cast<std::size_t>(in.CurrentPosition()) < data.size()) {
    std::uint32_t len = 0;
    EXPECT_TRUE(in.ReadVarint32(&len));
    const auto limit = in.PushLimit(static_cast<int>(len));
    if (first) {
      EXPECT_TRUE(meta->ParseFromCodedStream(&in));
      first = false;
    } else {
      nodes.emplace_back();
      EXPECT_TRUE(nodes.back().ParseFromCodedStream(&in));
    }
    in.PopLimit(limit);
  }
  return nodes;
}

TEST(ExportChakra, LlmIterationRunsAgainFromItsTracesToTheSameTime) {
  // Two nodes of 2 GPUs: tp 2 inside a node, two pipeline stages across nodes, two micro-batches.
  const auto cfg = scratch("llm.yaml");
  std::ofstream(cfg) << "model: {layers: 4, hidden: 1024, heads: 16, ffn_hidden: 4096, "
                        "seq_len: 1024, vocab: 1024}\n"
                        "parallel: {tp: 2, pp: 2, dp: 1, micro_batch: 1, global_batch: 2, "
                        "sequence_parallel: true}\n"
                        "system: {gpu: a100-80gb, gpus_per_node: 2}\n";
  const std::string prefix = scratch("out/w").string();
  const Result llm = collsim("llm '" + cfg.string() + "' --format json --export-chakra '" +
                             prefix + "'");
  ASSERT_EQ(llm.status, 0) << llm.err;
  const double ms = json_number(llm.out, "iteration_time_ms");
  const std::string topology =
      nlohmann::json::parse(llm.out)["runs"][0]["topology"].get<std::string>();
  EXPECT_EQ(topology, "hier:sw2xsw2:bw=300GB/s,100GB/s:lat=500ns,2000ns");
  const Result again = collsim("train --workload '" + prefix + "' --topology '" + topology +
                               "' -a ring --format csv -q");
  ASSERT_EQ(again.status, 0) << again.err;
  const double back = csv_column(again.out, "iteration_ns") / 1e6;
  EXPECT_NEAR(back / ms, 1.0, 1e-3) << back << " vs " << ms;

  // Rank 3 (tp 1 of stage 1) with the schema alone: compute, its TP collectives on its group,
  // activations from rank 1 and gradients back to it.
  pb::GlobalMetadata meta;
  const auto nodes = read(prefix + ".3.et", &meta);
  EXPECT_EQ(meta.version(), "0.0.4");
  int comp = 0, coll = 0, send = 0, recv = 0;
  for (const pb::Node& n : nodes) {
    comp += n.type() == pb::COMP_NODE;
    coll += n.type() == pb::COMM_COLL_NODE;
    send += n.type() == pb::COMM_SEND_NODE;
    recv += n.type() == pb::COMM_RECV_NODE;
    for (const auto& a : n.attr()) {
      if (n.type() == pb::COMM_SEND_NODE && a.name() == "comm_dst") {
        EXPECT_EQ(a.int64_val(), 1);
      }
      if (n.type() == pb::COMM_RECV_NODE && a.name() == "comm_src") {
        EXPECT_EQ(a.int64_val(), 1);
      }
    }
  }
  EXPECT_GT(comp, 0);
  // 2 layers x 2 micro-batches x (4 TP forward + 4 backward), the 2 gradient buckets' and the
  // tied embedding's all-reduces... at least the TP ones.
  EXPECT_GE(coll, 2 * 2 * 8);
  EXPECT_EQ(send, 2);  // the gradients of 2 micro-batches back to stage 0
  EXPECT_EQ(recv, 2);  // their activations
  EXPECT_TRUE(std::filesystem::exists(prefix + ".comm_groups.json"));
}

TEST(ExportChakra, TrainingRunsAgainFromItsTracesToTheSameTime) {
  const std::string prefix = scratch("train/toy").string();
  const std::string run = "--topology torus:4x4 -a ring --format csv -q";
  const Result first = collsim("train --workload examples/training/toy.yaml " + run +
                               " --iterations 2 --export-chakra '" + prefix + "'");
  ASSERT_EQ(first.status, 0) << first.err;
  const Result again = collsim("train --workload '" + prefix + "' " + run);
  ASSERT_EQ(again.status, 0) << again.err;
  // Both iterations are in the traces: the second run is one "iteration" of twice the time.
  const double a = 2 * csv_column(first.out, "iteration_ns");
  const double b = csv_column(again.out, "iteration_ns");
  EXPECT_NEAR(b / a, 1.0, 1e-3) << a << " " << b;
  // 16 NPUs, 16 traces.
  EXPECT_TRUE(std::filesystem::exists(prefix + ".15.et"));
  EXPECT_FALSE(std::filesystem::exists(prefix + ".16.et"));
}

TEST(ExportChakra, RefusesWhatItCannotWriteBeforeRunning) {
  const Result two = collsim("train --workload examples/training/toy.yaml --topology torus:4x4 "
                             "-a ring,direct --export-chakra '" + scratch("x/w").string() + "'");
  EXPECT_EQ(two.status, 2);
  EXPECT_NE(two.err.find("--export-chakra: writes one run's workload; this has 2 runs"),
            std::string::npos)
      << two.err;
  const auto file = scratch("a-file");
  std::ofstream(file) << "x";
  const Result dir = collsim("train --workload examples/training/toy.yaml --topology torus:4x4 "
                             "-a ring --export-chakra '" + (file / "w").string() + "'");
  EXPECT_EQ(dir.status, 2);
  EXPECT_NE(dir.err.find("is not a folder"), std::string::npos) << dir.err;
}

}  // namespace
}  // namespace collsim
