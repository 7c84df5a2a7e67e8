// ASTRA-sim text workloads (workload/astra_text.hpp): fields, units, scopes per parallelism, and
// errors naming the line and field; every real file of ASTRA-sim 1.0 loads and runs where
// COLLSIM_ASTRA_WORKLOADS names their directory.
#include "workload/astra_text.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"
#include "real_inputs.hpp"
#include "test_paths.hpp"
#include "topology/builders.hpp"
#include "jobs/training.hpp"

namespace collsim::workload {
namespace {

using namespace collsim::jobs;  // NOLINT: the drivers under test

using collective::Collective;

std::string error_of(const std::string& text, std::vector<std::uint32_t> dims = {4, 4}) {
  try {
    parse_astra_text(text, "w.txt", dims);
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(AstraText, HybridDataModelFixture) {
  // tests/data/workloads/hybrid_data_model.txt: tabs, spaces, a CRLF line and a blank line.
  const Workload w = read_astra_text(
      std::string(COLLSIM_SOURCE_DIR) + "/tests/data/workloads/hybrid_data_model.txt", {4, 4});
  EXPECT_EQ(w.name, "hybrid_data_model");
  EXPECT_EQ(w.model_parallel_npus, 4u);  // P0: model parallel within the innermost dimension
  ASSERT_EQ(w.layers.size(), 3u);
  const Layer& a = w.layers[0];
  EXPECT_EQ(a.name, "fc1");
  EXPECT_EQ(a.compute[0].ps, 100000);  // 100 cycles at 1 GHz
  EXPECT_EQ(a.compute[1].ps, 200000);
  EXPECT_EQ(a.compute[2].ps, 300000);
  EXPECT_EQ(a.update.ps, 10000);
  EXPECT_EQ(a.comm[0].collective, Collective::AllGather);
  EXPECT_EQ(a.comm[0].scope, Scope::ModelParallel);
  EXPECT_EQ(a.comm[1].collective, Collective::ReduceScatter);
  EXPECT_EQ(a.comm[2].collective, Collective::AllReduce);
  EXPECT_EQ(a.comm[2].size.count, 8192u);
  EXPECT_EQ(a.comm[2].scope, Scope::DataParallel);
  EXPECT_FALSE(w.layers[1].comm[0].collective);
  EXPECT_EQ(w.layers[1].compute[2].ps, 3000000);
  EXPECT_EQ(w.layers[2].comm[1].collective, Collective::AllToAll);
  // Another clock: 700 MHz, so 100 cycles = 142857 ps (rounded).
  const Workload slow = parse_astra_text("DATA\n1\nl -1 100 NONE 0 0 NONE 0 0 ALLREDUCE 64 0\n",
                                         "d.txt", {8}, AstraTextOptions{700e6});
  EXPECT_EQ(slow.layers[0].compute[0].ps, 142857);
  EXPECT_EQ(slow.layers[0].comm[2].scope, Scope::All);
}

TEST(AstraText, ScopesOfEveryParallelism) {
  const std::string body = "1\nl -1 1 ALLGATHER 64 1 ALLREDUCE 64 1 ALLREDUCE 64 1\n";
  const Workload model_data = parse_astra_text("HYBRID_MODEL_DATA\n" + body, "m.txt", {4, 4});
  EXPECT_EQ(model_data.model_parallel_npus, 4u);
  EXPECT_EQ(model_data.layers[0].comm[0].scope, Scope::DataParallel);  // the strided groups
  EXPECT_EQ(model_data.layers[0].comm[2].scope, Scope::ModelParallel);
  const Workload tr =
      parse_astra_text("HYBRID_TRANSFORMER\tmodel_parallel_NPU_group: 8\n" + body, "t.txt", {4, 4});
  EXPECT_EQ(tr.model_parallel_npus, 8u);
  EXPECT_EQ(tr.layers[0].comm[0].scope, Scope::ModelParallel);
  EXPECT_EQ(tr.layers[0].comm[2].scope, Scope::DataParallel);
  const Workload model = parse_astra_text("MODEL\n" + body, "m.txt", {4, 4});
  EXPECT_EQ(model.layers[0].comm[0].scope, Scope::All);
  const Workload custom = parse_astra_text(
      "HYBRID_CUSTOMIZED\n2\na -1 1 ALLGATHER 64 1 NONE 0 1 ALLREDUCE 64 1 HYBRID_DATA_MODEL\n"
      "b -1 1 ALLGATHER 64 1 NONE 0 1 ALLREDUCE 64 1 DATA\n",
      "c.txt", {4, 4});
  EXPECT_EQ(custom.layers[0].comm[0].scope, Scope::ModelParallel);
  EXPECT_EQ(custom.layers[0].comm[2].scope, Scope::DataParallel);
  EXPECT_EQ(custom.layers[1].comm[0].scope, Scope::All);
  // HYBRID_DLRM 1: the embedding all-to-all (layer 0) is needed before layer 2.
  const Workload dlrm = parse_astra_text(
      "HYBRID_DLRM 1\n3\nemb -1 1 ALLTOALL 64 1 ALLTOALL 64 1 NONE 0 1\n"
      "bot -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 64 1\ntop -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 64 1\n",
      "d.txt", {4, 4});
  EXPECT_TRUE(dlrm.layers[0].comm[0].overlapped);
  EXPECT_EQ(dlrm.layers[0].comm[0].needed_before, 2u);
  EXPECT_TRUE(dlrm.layers[0].comm[1].overlapped);
  EXPECT_FALSE(dlrm.layers[1].comm[2].overlapped);
}

TEST(AstraText, ErrorsNameTheLineAndField) {
  EXPECT_EQ(error_of(""),
            "w.txt:1: empty file: expected the parallelism (DATA, MODEL, HYBRID_...)");
  EXPECT_NE(
      error_of("PIPELINE\n1\n").find("w.txt:1: parallelism: unknown parallelism \"PIPELINE\""),
      std::string::npos);
  EXPECT_NE(error_of("DATA\nmany\n").find("w.txt:2: number of layers: \"many\""),
            std::string::npos);
  EXPECT_NE(error_of("DATA\n2\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n")
                .find("the file declares 2 layers but has 1"),
            std::string::npos);
  EXPECT_NE(
      error_of("DATA\n1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 1\nm -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n")
          .find("w.txt:4: more layer lines than the 1 declared"),
      std::string::npos);
  EXPECT_NE(error_of("DATA\n1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE\n")
                .find("w.txt:3: layer l: missing field wg_comm_size"),
            std::string::npos);
  EXPECT_NE(error_of("DATA\n1\nl -1 1 BCAST 4 1 NONE 0 1 NONE 0 1\n")
                .find("w.txt:3: fwd_comm_type: unknown collective \"BCAST\""),
            std::string::npos);
  EXPECT_NE(error_of("DATA\n1\nl -1 -5 NONE 0 1 NONE 0 1 NONE 0 1\n")
                .find("fwd_compute: \"-5\" is not a whole number >= 0"),
            std::string::npos);
  EXPECT_NE(error_of("HYBRID_TRANSFORMER model_parallel_NPU_group: 3\n1\n").find("does not divide"),
            std::string::npos);
  EXPECT_NE(error_of("HYBRID_TRANSFORMER\n1\n").find("needs \"model_parallel_NPU_group: g\""),
            std::string::npos);
  EXPECT_THROW(read_astra_text("/no/such/workload.txt", {4}), core::InputError);
}

// The authors' input files are not part of the repository: COLLSIM_ASTRA_WORKLOADS names the
// directory of ASTRA-sim 1.0's workload files where a machine has them.
std::filesystem::path astra_workloads() {
  const auto d =
      test::real_inputs("COLLSIM_ASTRA_WORKLOADS", "astra_inputs/astra-sim-1.0/workload");
  return std::filesystem::is_directory(d) ? d : std::filesystem::path();
}

TEST(AstraText, EveryAstraSimWorkloadLoadsAndRuns) {
  const auto dir = astra_workloads();
  if (dir.empty()) {
    GTEST_SKIP() << test::no_real_inputs("COLLSIM_ASTRA_WORKLOADS",
                                         "astra_inputs/astra-sim-1.0/workload");
  }
  const auto topo =
      topology::from_compact("torus:4x4x4", core::Bandwidth{16e9}, core::Time::from_ns(150));
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const Workload w = read_astra_text(e.path().string(), {4, 4, 4});
    validate(w, 64);
    TrainingOptions o;
    o.algorithm = collective::parse_algorithm("ring", "t");
    const TrainingResult r = run_training(topo, network::find_backend("analytical", "b"), w, o);
    EXPECT_GT(r.total.ps, 0) << e.path();
    EXPECT_GE(r.total.ps, r.compute.ps) << e.path();
    ++files;
  }
  EXPECT_EQ(files, 10u);
}

}  // namespace
}  // namespace collsim::workload
