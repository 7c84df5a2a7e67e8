#pragma once
// Running the collsim binary from tests as a user would: exit status, standard output and
// standard error.
#include "test_paths.hpp"
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace collsim::test {

struct Result {
  int status = -1;
  std::string out;
  std::string err;
};

// Run collsim with `args` (shell words) from the source directory.
inline Result collsim(const std::string& args) {
  const auto dir = std::filesystem::temp_directory_path() / "collsim_cli_test";
  std::filesystem::create_directories(dir);
  const std::string err_file = (dir / ("stderr_" + std::to_string(::getpid()))).string();
  const std::string cmd = std::string("cd '") + COLLSIM_SOURCE_DIR + "' && '" + COLLSIM_BINARY +
                          "' " + args + " 2>'" + err_file + "'";
  Result r;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  const int raw = ::pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  std::ifstream e(err_file);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  std::filesystem::remove(err_file);
  return r;
}

// CPU seconds of every child waited for so far (the collsim() runs above, through their shell):
// tests bound a command's cost by its CPU time, which a busy machine does not change, never by
// wall-clock time.
inline double children_cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_CHILDREN, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

// `text` with its first `from` replaced by `to` (no std::regex: GCC 12 warns inside it at -O1).
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

}  // namespace collsim::test
