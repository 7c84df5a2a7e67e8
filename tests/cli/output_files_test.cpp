// Issue 36, item 9: output files are all or nothing. Every output path is checked before anything
// is simulated, and a command that ends in exit 2 leaves existing files as they were.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_run.hpp"
#include "core/error.hpp"
#include "report/output_file.hpp"
#include "report/writers.hpp"

namespace collsim {
namespace {

using test::collsim;
using test::Result;

// One folder per test: CTest runs the tests of this file in parallel processes.
std::filesystem::path fresh_dir() {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto dir = std::filesystem::temp_directory_path() /
                   (std::string("collsim_output_files_test_") + test->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::size_t files_in(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

TEST(OutputFiles, ExistingFilesSurviveAnErrorFoundAfterTheRuns) {
  const auto dir = fresh_dir();
  for (const char* f : {"t.json", "out.txt", "act.csv"}) std::ofstream(dir / f) << "KEEP";
  // The window is refused after the run, when the activity is rendered.
  const Result r =
      collsim("collective -t torus:4x4 -a hierarchical -s 1MiB -q --trace '" +
              (dir / "t.json").string() + "' --output '" + (dir / "out.txt").string() +
              "' --activity '" + (dir / "act.csv").string() + "' --activity-window '1 ps'");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--activity-window"), std::string::npos) << r.err;
  for (const char* f : {"t.json", "out.txt", "act.csv"}) EXPECT_EQ(slurp(dir / f), "KEEP") << f;
  EXPECT_EQ(files_in(dir), 3u) << "a temporary file was left behind";
}

TEST(OutputFiles, MissingFolderIsReportedBeforeSimulating) {
  const auto dir = fresh_dir();
  for (const std::string opt : {"--output", "--trace", "--activity", "--lightpaths"}) {
    const std::string path = (dir / "sub" / "x").string();
    // --progress: a run that started would draw its progress line.
    const Result r =
        collsim("collective -t ring:4 -a ring -s 1KiB --progress " + opt + " '" + path + "'");
    EXPECT_EQ(r.status, 2) << opt << ": " << r.err;
    EXPECT_NE(r.err.find(opt + ": cannot write \"" + path + "\": no folder \"" +
                         (dir / "sub").string() + "\""),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("[1/1]"), std::string::npos) << "simulated before refusing: " << r.err;
  }
  const Result folder = collsim("collective -t ring:4 -s 1KiB -o '" + dir.string() + "'");
  EXPECT_EQ(folder.status, 2);
  EXPECT_NE(folder.err.find("it is a folder"), std::string::npos) << folder.err;
  const Result plot =
      collsim("plot examples/default.yaml -o '" + (dir / "sub" / "x.png").string() + "'");
  EXPECT_EQ(plot.status, 2) << plot.err;
  EXPECT_NE(plot.err.find("--output: cannot write"), std::string::npos) << plot.err;
  const Result train =
      collsim("train -w resnet50 -t ring:4 -a ring -o '" + (dir / "sub" / "t.csv").string() + "'");
  EXPECT_EQ(train.status, 2) << train.err;
  EXPECT_NE(train.err.find("--output: cannot write"), std::string::npos) << train.err;
  EXPECT_EQ(files_in(dir), 0u);
}

TEST(OutputFiles, WritesGoThroughATemporaryFileAndKeepTheUsualMode) {
  const auto dir = fresh_dir();
  const auto path = dir / "x.txt";
  std::ofstream(dir / "x.txt.tmp") << "NOT MINE";  // the old fixed temporary name is not used
  report::write_file_atomically(path.string(), "hello\n", "--output");
  EXPECT_EQ(slurp(path), "hello\n");
  EXPECT_EQ(slurp(dir / "x.txt.tmp"), "NOT MINE");
  EXPECT_EQ(files_in(dir), 2u);
  const auto perms = std::filesystem::status(path).permissions();
  EXPECT_NE(perms & std::filesystem::perms::owner_read, std::filesystem::perms::none);
  EXPECT_THROW(report::check_output_path((dir / "no" / "x").string(), "--trace"), core::InputError);
  EXPECT_NO_THROW(report::check_output_path("", "--trace"));
  EXPECT_NO_THROW(report::check_output_path("relative-file-in-cwd.csv", "--output"));
}

TEST(OutputFiles, ATraceIsBoundedByTheSumOfItsRuns) {
  // The trace keeps every message of every run: 6 runs of 24 messages (ring and direct
  // all-reduce on 4 NPUs, 3 sizes) pass a limit of 100 one by one, but their trace of 144 does
  // not. Refused before anything runs; no file is made.
  const auto path = std::filesystem::temp_directory_path() / "collsim_trace_sum.json";
  std::filesystem::remove(path);
  const auto r = test::collsim("collective -t ring:4 -a ring,direct -s 1KiB,2KiB,4KiB --trace '" +
                               path.string() + "' --max-messages 100");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--trace of 6 runs: it keeps every message of every run: about 144 "
                       "messages, over the limit of 100"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_EQ(test::collsim("collective -t ring:4 -a ring,direct -s 1KiB,2KiB,4KiB "
                          "--max-messages 100 -q")
                .status,
            0);
}

}  // namespace
}  // namespace collsim
