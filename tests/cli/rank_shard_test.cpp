// `mpirun -n K collsim ...` without MPI (issue 35): the ranks run in this process one after the
// other, each with its RankContext, and rank 0's composition of their outputs must be the serial
// run's bytes, also when a rank fails or a signal stops one. The MPI transport itself is tested
// by tests/mpi_sweep_test.sh (CTest Mpi.RanksWriteTheBytesOfASerialRun).
#include "cli/rank_shard.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.hpp"
#include "core/error.hpp"

namespace collsim::cli {
namespace {

std::vector<std::string> words(const std::string& args) {
  std::vector<std::string> w{"collsim"};
  std::istringstream in(args);
  for (std::string s; in >> s;) w.push_back(s);
  return w;
}

RankOutput run(const std::string& args, RankContext* context = nullptr) {
  const std::vector<std::string> w = words(args);
  std::vector<const char*> argv;
  for (const std::string& s : w) argv.push_back(s.c_str());
  std::ostringstream out, err;
  set_rank_context(context);
  RankOutput r;
  r.status = run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  set_rank_context(nullptr);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// Every rank of K in turn; `sharded` and the -o path from rank 0's context.
std::vector<RankOutput> run_ranks(const std::string& args, std::uint32_t k, bool& sharded,
                                  std::string& output) {
  std::vector<RankOutput> ranks;
  for (std::uint32_t r = 0; r < k; ++r) {
    RankContext c;
    c.ranks.rank = r, c.ranks.size = k;
    ranks.push_back(run(args, &c));
    if (r == 0) sharded = c.sharded, output = c.output;
  }
  return ranks;
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(RankShard, RanksGiveTheSerialBytesToStandardOutputAndToAFile) {
  const std::string args =
      "collective -t torus:4x4 -a ring,direct,hierarchical -s 64KiB,256KiB,1MiB,4MiB "
      "-b analytical,flow --format csv -q";
  const RankOutput serial = run(args);
  ASSERT_EQ(serial.status, 0) << serial.err;
  for (std::uint32_t k : {2u, 3u, 7u}) {
    bool sharded = false;
    std::string output;
    const auto ranks = run_ranks(args, k, sharded, output);
    EXPECT_TRUE(sharded);
    EXPECT_EQ(ranks[1].out.rfind("# collsim shard 1/", 0), 0u) << ranks[1].out;
    const ComposedOutput c = compose_rank_outputs(ranks, sharded, output);
    EXPECT_EQ(c.status, 0);
    EXPECT_EQ(c.out, serial.out) << k << " ranks";
  }
  // -o FILE: the ranks write nothing themselves, rank 0 writes the file.
  const auto dir = std::filesystem::temp_directory_path() / "collsim_rank_shard_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "r.csv").string();
  bool sharded = false;
  std::string output;
  const auto ranks = run_ranks(args + " -o " + file, 2, sharded, output);
  EXPECT_EQ(output, file);
  EXPECT_FALSE(std::filesystem::exists(file));
  std::ostringstream out, err;
  EXPECT_EQ(write_composed(compose_rank_outputs(ranks, sharded, output), output, out, err), 0);
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(read(file), serial.out);
  std::filesystem::remove_all(dir);
}

TEST(RankShard, AFailingRankKeepsTheRowsBeforeItItsErrorAndStatus) {
  // The time bound stops the 1 MiB ring run: 8 rows before it in the serial run.
  const std::string args =
      "collective -t torus:4x4 -a ring,direct -s 64KiB,128KiB,256KiB,1MiB,4MiB,16MiB "
      "--max-time 150us --format csv -q";
  const RankOutput serial = run(args);
  ASSERT_EQ(serial.status, 3);
  bool sharded = false;
  std::string output;
  const auto ranks = run_ranks(args, 3, sharded, output);
  EXPECT_EQ(ranks[0].status, 0);  // the failure is on a later rank's slice
  ComposedOutput c = compose_rank_outputs(ranks, sharded, output);
  EXPECT_EQ(c.status, 3);
  EXPECT_EQ(c.out, serial.out);
  EXPECT_EQ(c.err, serial.err);
  EXPECT_TRUE(c.partial);
  // With -o: FILE.partial and the note before the error, as the serial run says it.
  c = compose_rank_outputs(ranks, sharded, "r.csv");
  EXPECT_EQ(c.err.rfind("collsim: the rows finished before the error are in r.csv.partial\n"
                        "collsim: simulation failed: ",
                        0),
            0u)
      << c.err;
}

TEST(RankShard, AnInterruptedRankKeepsEveryFinishedRowInInputOrder) {
  const std::string args = "collective -t torus:4x4 -a ring,direct -s 64KiB,256KiB,1MiB,4MiB "
                           "--format csv -q";
  const RankOutput serial = run(args);
  bool sharded = false;
  std::string output;
  auto ranks = run_ranks(args, 2, sharded, output);
  // Rank 0 stopped after its first row (a signal), rank 1 finished.
  const std::size_t header_end = ranks[0].out.find('\n', ranks[0].out.find('\n') + 1);
  const std::size_t first_row_end = ranks[0].out.find('\n', header_end + 1);
  ranks[0].out.resize(first_row_end + 1);
  ranks[0].status = 3;
  ranks[0].interrupted = true;
  ranks[0].err = "collsim: interrupted (SIGTERM): the run in progress was stopped\n";
  const ComposedOutput c = compose_rank_outputs(ranks, sharded, output);
  EXPECT_EQ(c.status, 3);
  EXPECT_EQ(c.err, ranks[0].err);
  // The serial CSV without the rows rank 0 did not finish.
  std::vector<std::string> lines;
  std::istringstream in(serial.out);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  const std::string rank0_rows = ranks[0].out.substr(header_end + 1);
  const std::size_t rank1_rows = std::count(ranks[1].out.begin(), ranks[1].out.end(), '\n') - 2;
  std::string want = lines[0] + "\n" + rank0_rows;
  for (std::size_t i = lines.size() - rank1_rows; i < lines.size(); ++i) want += lines[i] + "\n";
  EXPECT_EQ(c.out, want);
  EXPECT_LT(c.out.size(), serial.out.size());
}

TEST(RankShard, RefusesWhatRanksCannotSplitAndSharesTheCores) {
  RankContext c;
  c.ranks.rank = 1, c.ranks.size = 4, c.ranks.local_size = 2;
  OutputOptions o;
  EXPECT_THROW(apply_rank_shard(c, o, "collective", true), core::InputError);  // table
  o.format = "csv";
  o.shard = "0/2";
  EXPECT_THROW(apply_rank_shard(c, o, "run", true), core::InputError);
  EXPECT_THROW(apply_rank_shard(c, o, "llm", false), core::InputError);
  EXPECT_THROW(apply_rank_shard(c, o, "astra", false), core::InputError);
  apply_rank_shard(c, o, "list", false);  // every rank lists, rank 0 prints
  EXPECT_FALSE(c.sharded);
  o.shard.clear();
  o.output = "x.csv";
  o.progress = true;
  apply_rank_shard(c, o, "train", true);
  EXPECT_TRUE(c.sharded);
  EXPECT_EQ(o.shard, "1/4");
  EXPECT_EQ(o.output, "");
  EXPECT_EQ(c.output, "x.csv");
  EXPECT_FALSE(o.progress);
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_EQ(o.jobs, std::max(1u, cores / 2));
  // The refusal of a build without MPI names the way out.
  const std::string m = without_mpi_message(c.ranks);
  EXPECT_NE(m.find("built without MPI"), std::string::npos) << m;
  EXPECT_NE(m.find("--shard I/4"), std::string::npos) << m;
}

TEST(RankShard, LauncherVariablesGiveTheRanks) {
  EXPECT_EQ(launched_ranks().size, 1u);  // ctest does not run under mpirun
  ::setenv("OMPI_COMM_WORLD_SIZE", "8", 1);
  ::setenv("OMPI_COMM_WORLD_RANK", "5", 1);
  ::setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1);
  const LaunchedRanks r = launched_ranks();
  ::unsetenv("OMPI_COMM_WORLD_SIZE");
  ::unsetenv("OMPI_COMM_WORLD_RANK");
  ::unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  EXPECT_EQ(r.size, 8u);
  EXPECT_EQ(r.rank, 5u);
  EXPECT_EQ(r.local_size, 2u);
}

}  // namespace
}  // namespace collsim::cli
