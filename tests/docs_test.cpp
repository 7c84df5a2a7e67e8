// Citations in code and docs: they point at files in this repository (docs/design.md, by section)
// or at papers by name, venue and section, never at files that only exist on one machine.
#include "test_paths.hpp"
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path kRoot = COLLSIM_SOURCE_DIR;

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The repository's text: sources, tests, docs, examples, benchmarks and the top-level files
// (golden outputs are program output, not prose).
std::vector<fs::path> text_files() {
  std::vector<fs::path> out{kRoot / "README.md", kRoot / "CMakeLists.txt", kRoot / "Makefile"};
  for (const char* dir : {"src", "tests", "docs", "examples", "bench"}) {
    for (const auto& e : fs::recursive_directory_iterator(kRoot / dir)) {
      if (!e.is_regular_file()) continue;
      if (e.path().parent_path().filename() == "golden") continue;
      out.push_back(e.path());
    }
  }
  return out;
}

TEST(Docs, NothingCitesFilesOutsideTheRepository) {
  // Split so that this file does not cite them itself.
  const std::vector<std::string> outside = {std::string("DESIGN") + ".md",
                                            std::string("shared") + "/",
                                            std::string("multitree") + ".txt",
                                            std::string("themis") + ".txt",
                                            std::string("ace") + ".txt",
                                            std::string("wrht") + ".txt",
                                            std::string("hierarchical-torus") + ".txt",
                                            std::string("reference-implementations") + ".md"};
  const auto files = text_files();
  EXPECT_GT(files.size(), 50u);
  for (const fs::path& f : files) {
    const std::string text = read(f);
    for (const std::string& s : outside) {
      EXPECT_EQ(text.find(s), std::string::npos) << fs::relative(f, kRoot) << " cites " << s;
    }
  }
}

// `docs/design.md "Section"` in a comment, possibly wrapped over two comment lines: the quoted
// name with line breaks and comment markers turned into single spaces.
std::vector<std::string> cited_sections(const std::string& text) {
  const std::string marker = std::string("docs/design.md") + " \"";
  std::vector<std::string> out;
  for (std::size_t at = text.find(marker); at != std::string::npos;
       at = text.find(marker, at + 1)) {
    const std::size_t start = at + marker.size();
    const std::size_t end = text.find('"', start);
    if (end == std::string::npos) break;
    std::string name;
    bool space = false;
    for (std::size_t i = start; i < end; ++i) {
      const char c = text[i];
      if (c == '\n' || c == ' ' || c == '/' || c == '#') {
        space = !name.empty();
        continue;
      }
      if (space) name += ' ';
      space = false;
      name += c;
    }
    out.push_back(name);
  }
  return out;
}

TEST(Docs, EverySectionCitedFromTheCodeIsInDesignMd) {
  const std::string design = read(kRoot / "docs" / "design.md");
  ASSERT_FALSE(design.empty());
  int cited = 0;
  for (const fs::path& f : text_files()) {
    if (f.filename() == "docs_test.cpp") continue;
    for (const std::string& name : cited_sections(read(f))) {
      ++cited;
      EXPECT_NE(design.find(name), std::string::npos)
          << fs::relative(f, kRoot) << " cites docs/design.md \"" << name << "\", not there";
    }
  }
  // units.hpp, parse.hpp, engine.hpp, program.hpp (2), verifier.hpp, backend.hpp, executor.hpp,
  // algorithm.hpp, scenario.hpp, result.hpp, topology.hpp.
  EXPECT_GE(cited, 12);
}

TEST(Docs, CitedSectionNamesAreReadAcrossCommentLines) {
  EXPECT_EQ(cited_sections("x (docs/design.md \"Config\n// parsed once\"). y"),
            std::vector<std::string>{"Config parsed once"});
  EXPECT_EQ(cited_sections("docs/design.md \"Units\" and docs/design.md \"Layers\""),
            (std::vector<std::string>{"Units", "Layers"}));
}

}  // namespace
