// Speed of Chakra trace scaling (issue 35; jobs/trace_scale.hpp): `collsim astra --scale K` in
// process, end to end (reading the .et files, cloning, replaying, the report), on a hybrid
// trace of 16 ranks on one switch (100 GB/s, 500 ns): tensor parallel 4, pipeline 2 and data
// parallel 2 (communicator groups); 4 layers per stage, each 50 us forward and 100 us
// backward compute with an 8 MiB tensor-parallel all-reduce, 4 MiB activations and gradients
// between the stages, and a 32 MiB gradient all-reduce per layer on the data-parallel group.
// Scaled K times the data-parallel groups are widened (--widen) to 2K ranks, the switch to 16K
// NPUs. (Communicator groups replay on one-dimension platforms: a hierarchical collective spans
// every dimension.) Target: K = 64 (1,024 ranks) under 10 s on one core. Results go in
// docs/performance.md.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "chakra_writer.hpp"
#include "cli/commands.hpp"
#include "workload/formats/chakra_et.pb.h"

namespace {

namespace pb = collsim::chakra::et;
namespace fs = std::filesystem;

void attr(pb::Node& n, const std::string& name, std::int64_t v) {
  auto* a = n.add_attr();
  a->set_name(name);
  a->set_int64_val(v);
}

void attr(pb::Node& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attr();
  a->set_name(name);
  a->set_string_val(v);
}

struct Builder {
  std::vector<pb::Node> nodes;
  std::uint64_t last = 0;  // the node the next one depends on
  pb::Node& add(pb::NodeType type, const std::string& name, std::uint64_t us = 0) {
    pb::Node& n = nodes.emplace_back();
    n.set_id(nodes.size());
    n.set_name(name);
    n.set_type(type);
    n.set_duration_micros(us);
    if (last != 0) n.add_data_deps(last);
    last = n.id();
    return n;
  }
  void all_reduce(const std::string& name, std::int64_t bytes, const std::string& pg) {
    pb::Node& n = add(pb::COMM_COLL_NODE, name);
    attr(n, "comm_type", pb::ALL_REDUCE);
    attr(n, "comm_size", bytes);
    attr(n, "pg_name", pg);
  }
  void p2p(bool send, std::int32_t src, std::int32_t dst, std::int64_t bytes, std::int32_t tag) {
    pb::Node& n = add(send ? pb::COMM_SEND_NODE : pb::COMM_RECV_NODE, send ? "send" : "recv");
    attr(n, "comm_size", bytes);
    attr(n, "comm_src", src);
    attr(n, "comm_dst", dst);
    attr(n, "comm_tag", tag);
  }
};

// The trace files as the tests write them (tests/chakra_writer.hpp).
void write(const fs::path& path, const std::vector<pb::Node>& nodes) {
  collsim::workload::chakra::write(path.string(), nodes);
}

// The trace's files, once: rank = tp + 4 dp + 8 pp.
const fs::path& trace_dir() {
  static const fs::path d = [] {
    const fs::path dir = fs::temp_directory_path() / "collsim_trace_scale_bench";
    fs::create_directories(dir);
    constexpr int kLayers = 4;
    std::string groups = "{";
    for (int r = 0; r < 16; ++r) {
      const int tp = r % 4, dp = (r / 4) % 2, pp = r / 8;
      const std::string tpg = fmt::format("tp{}", r / 4), dpg = fmt::format("dp{}", tp + 4 * pp);
      Builder b;
      if (pp == 1) b.p2p(false, r - 8, r, 4 << 20, 0);  // activations from stage 0
      for (int l = 0; l < kLayers; ++l) {
        b.add(pb::COMP_NODE, fmt::format("fwd{}", l), 50);
        b.all_reduce(fmt::format("fwd{} tp", l), 8 << 20, tpg);
      }
      if (pp == 0) {
        b.p2p(true, r, r + 8, 4 << 20, 0);
        b.p2p(false, r + 8, r, 4 << 20, 1);  // gradients back from stage 1
      }
      for (int l = kLayers - 1; l >= 0; --l) {
        b.add(pb::COMP_NODE, fmt::format("bwd{}", l), 100);
        b.all_reduce(fmt::format("bwd{} tp", l), 8 << 20, tpg);
        b.all_reduce(fmt::format("grad{} dp", l), 32 << 20, dpg);
      }
      if (pp == 1) b.p2p(true, r, r - 8, 4 << 20, 1);
      write(dir / fmt::format("hybrid.{}.et", r), b.nodes);
      (void)dp;
    }
    for (int r = 0; r < 4; ++r) {
      groups += fmt::format("\"tp{}\": [{}, {}, {}, {}], ", r, 4 * r, 4 * r + 1, 4 * r + 2,
                            4 * r + 3);
    }
    for (int g = 0; g < 8; ++g) {
      const int tp = g % 4, pp = g / 4;
      groups += fmt::format("\"dp{}\": [{}, {}]{}", g, tp + 8 * pp, tp + 4 + 8 * pp,
                            g == 7 ? "}" : ", ");
    }
    std::ofstream(dir / "groups.json") << groups;
    std::ofstream(dir / "net.yml")
        << "topology: [ Switch ]\nnpus_count: [ 16 ]\nbandwidth: [ 100 ]\nlatency: [ 500 ]\n";
    std::ofstream(dir / "sys.json") << R"({"all-reduce-implementation": ["ring"]})";
    return dir;
  }();
  return d;
}

void BM_ScaledTraceReplay(benchmark::State& state) {
  const fs::path& d = trace_dir();
  std::string widen = "dp0";
  for (int g = 1; g < 8; ++g) widen += fmt::format(",dp{}", g);
  std::vector<std::string> args = {
      "collsim", "astra", "--workload-configuration=" + (d / "hybrid").string(),
      "--system-configuration=" + (d / "sys.json").string(),
      "--network-configuration=" + (d / "net.yml").string(),
      "--comm-group-configuration=" + (d / "groups.json").string(),
      "--scale", std::to_string(state.range(0)), "-q", "--format", "csv", "--max-messages", "1e9"};
  if (state.range(0) > 1) args.insert(args.end(), {"--widen", widen});
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  for (auto _ : state) {
    std::ostringstream out, err;
    const int status =
        collsim::cli::run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
    if (status != 0) state.SkipWithError(err.str().c_str());
    benchmark::DoNotOptimize(out.str().size());
  }
}

BENCHMARK(BM_ScaledTraceReplay)->Arg(1)->Arg(8)->Arg(64)->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
