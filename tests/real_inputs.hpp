#pragma once
// Where the tests over real inputs (ASTRA-sim's input files, Chakra traces) find them: the
// directory an environment variable names, else <sub> in the data folder of the `shared`
// directory beside the source directory, where it exists (the data set next to a checkout), else none: the test then skips and
// says why in the test summary.
#include <cstdlib>
#include <filesystem>
#include <string>

#include "test_paths.hpp"

namespace collsim::test {

inline std::filesystem::path real_inputs(const char* variable, const std::string& sub) {
  if (const char* v = std::getenv(variable); v && *v) return v;
  const auto d = std::filesystem::path(COLLSIM_SOURCE_DIR).parent_path() / "shared" / "data" / sub;
  std::error_code ec;
  return std::filesystem::is_directory(d, ec) ? d : std::filesystem::path();
}

/// The message of a skipped real-input test.
inline std::string no_real_inputs(const char* variable, const std::string& sub) {
  const auto d = std::filesystem::path("..") / "shared" / "data" / sub;
  return std::string("no real inputs: set ") + variable + " or provide " + d.string() +
         " beside the source directory";
}

}  // namespace collsim::test
