#include "report/output_file.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/error.hpp"

namespace collsim::report {

namespace fs = std::filesystem;

void check_output_path(const std::string& path, std::string_view option) {
  if (path.empty()) return;
  const auto refuse = [&](const std::string& why) {
    throw core::InputError(fmt::format("{}: cannot write \"{}\": {}", option, path, why));
  };
  std::error_code ec;
  if (fs::is_directory(path, ec)) refuse("it is a folder; give a file name");
  const fs::path folder = fs::path(path).parent_path();
  const std::string shown = folder.empty() ? "." : folder.string();
  if (!folder.empty() && !fs::exists(folder, ec)) {
    refuse(fmt::format("no folder \"{}\" (create it first)", shown));
  }
  if (!folder.empty() && !fs::is_directory(folder, ec)) {
    refuse(fmt::format("\"{}\" is not a folder", shown));
  }
  if (::access(shown.c_str(), W_OK | X_OK) != 0) {
    refuse(fmt::format("folder \"{}\": {}", shown, std::strerror(errno)));
  }
}

std::string make_temp_beside(const std::string& path, std::string_view option) {
  // mkstemp: a fresh name, so no other file (not even PATH.tmp) is overwritten.
  std::string name = path + ".tmp.XXXXXX";
  std::vector<char> buf(name.begin(), name.end());
  buf.push_back('\0');
  const int fd = ::mkstemp(buf.data());
  if (fd < 0) throw core::InputError(fmt::format("{}: cannot write \"{}\"", option, path));
  // mkstemp makes the file 0600; give it the mode a plain new file gets (0666 less the umask).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  ::close(fd);
  return std::string(buf.data());
}

void commit_temp(const std::string& temp, const std::string& path, std::string_view option) {
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(temp.c_str());
    throw core::InputError(
        fmt::format("{}: cannot write \"{}\": {}", option, path, std::strerror(err)));
  }
}

}  // namespace collsim::report
