// --shard I/N and `collsim merge` (issue 35): the slices of a sweep, merged in any order, give
// the bytes of the run without --shard; wrong sets of shards are refused with status 2.
#include "jobs/shard.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "core/error.hpp"

namespace collsim::jobs {
namespace {

using test::collsim;

TEST(Shard, ParsesIOfNAndRefusesTheRest) {
  EXPECT_FALSE(parse_shard("").active());
  const Shard s = parse_shard("2/8");
  EXPECT_EQ(s.index, 2u);
  EXPECT_EQ(s.count, 8u);
  for (const char* bad : {"8/8", "1", "a/2", "1/0", "-1/2", "1/2/3", " 1/2"}) {
    EXPECT_THROW(parse_shard(bad), core::InputError) << bad;
  }
}

TEST(Shard, BlocksAreContiguousCoverEverythingAndFollowTheCost) {
  // One expensive block and many cheap ones: the expensive one gets a shard nearly to itself.
  const std::vector<double> cost = {100, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  std::size_t next = 0;
  for (std::uint32_t i = 0; i < 4; ++i) {
    const auto [first, last] = shard_blocks(cost, Shard{i, 4});
    EXPECT_EQ(first, next) << i;
    EXPECT_LE(first, last);
    next = last;
  }
  EXPECT_EQ(next, cost.size());
  EXPECT_EQ(shard_blocks(cost, Shard{0, 4}), (std::pair<std::size_t, std::size_t>{0, 1}));
  // More shards than blocks: some are empty, still contiguous.
  next = 0;
  for (std::uint32_t i = 0; i < 5; ++i) {
    const auto [first, last] = shard_blocks({1, 1}, Shard{i, 5});
    EXPECT_EQ(first, next);
    next = last;
  }
  EXPECT_EQ(next, 2u);
}

TEST(Shard, MergedShardsAreTheBytesOfTheWholeRun) {
  const auto dir = std::filesystem::temp_directory_path() / "collsim_shard_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  // Staged and flat algorithms (ideal rows), two backends, five sizes.
  const std::string args =
      "collective -t torus:4x4 -a ring,direct,hierarchical -s 64KiB,256KiB,1MiB,4MiB,16MiB "
      "-b analytical,flow --format csv -q";
  const auto whole = collsim(args);
  ASSERT_EQ(whole.status, 0) << whole.err;
  std::string files;
  for (int i = 2; i >= 0; --i) {  // given in reverse: merge orders them
    const std::string f = (dir / ("part" + std::to_string(i) + ".csv")).string();
    const auto part = collsim(args + " --jobs 2 --shard " + std::to_string(i) + "/3 -o '" + f + "'");
    ASSERT_EQ(part.status, 0) << part.err;
    files += " '" + f + "'";
  }
  const auto merged = collsim("merge" + files);
  ASSERT_EQ(merged.status, 0) << merged.err;
  EXPECT_EQ(merged.out, whole.out);
  const auto to_file = collsim("merge" + files + " -o '" + (dir / "all.csv").string() + "'");
  ASSERT_EQ(to_file.status, 0) << to_file.err;

  // A missing shard, a shard twice, a file of another sweep, not a shard at all.
  const std::string p0 = (dir / "part0.csv").string(), p1 = (dir / "part1.csv").string();
  const auto missing = collsim("merge '" + p0 + "' '" + p1 + "'");
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("shard 2/3 of sweep"), std::string::npos) << missing.err;
  const auto twice = collsim("merge '" + p0 + "' '" + p0 + "'");
  EXPECT_EQ(twice.status, 2);
  EXPECT_NE(twice.err.find("given twice"), std::string::npos) << twice.err;
  const std::string other = (dir / "other.csv").string();
  ASSERT_EQ(collsim("collective -t torus:4x4 -a ring -s 1MiB --format csv -q --shard 1/3 -o '" +
                    other + "'")
                .status,
            0);
  const auto mixed = collsim("merge '" + p0 + "' '" + other + "' '" + (dir / "part2.csv").string() + "'");
  EXPECT_EQ(mixed.status, 2);
  EXPECT_NE(mixed.err.find("shards of different sweeps"), std::string::npos) << mixed.err;
  const auto plain = collsim("merge '" + (dir / "all.csv").string() + "'");
  EXPECT_EQ(plain.status, 2);
  EXPECT_NE(plain.err.find("is not a shard's CSV"), std::string::npos) << plain.err;
  const auto table = collsim("collective -t ring:4 -s 1MiB --shard 0/2");
  EXPECT_EQ(table.status, 2);
  EXPECT_NE(table.err.find("--shard: a shard writes CSV rows"), std::string::npos) << table.err;
  std::filesystem::remove_all(dir);
}

TEST(Shard, TrainingShardsMergeToTheWholeRun) {
  const std::string args =
      "train -w examples/training/toy.yaml -t torus:4x4 -a ring,direct --overlap none,layer "
      "-b analytical -q --format csv";
  const auto whole = collsim(args);
  ASSERT_EQ(whole.status, 0) << whole.err;
  const auto dir = std::filesystem::temp_directory_path() / "collsim_shard_train";
  std::filesystem::create_directories(dir);
  std::string files;
  for (int i = 0; i < 3; ++i) {
    const std::string f = (dir / ("t" + std::to_string(i) + ".csv")).string();
    ASSERT_EQ(collsim(args + " --shard " + std::to_string(i) + "/3 -o '" + f + "'").status, 0);
    files += " '" + f + "'";
  }
  const auto merged = collsim("merge" + files);
  EXPECT_EQ(merged.out, whole.out);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace collsim::jobs
