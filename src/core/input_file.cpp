#include "core/input_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/parse.hpp"
#include "core/units.hpp"

namespace collsim::core {
namespace {

// Closes the descriptor on every path out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string too_large(const std::string& path, std::string_view what, std::uint64_t limit,
                      bool stream) {
  std::string example = core::to_string(core::Bytes{limit * 4});
  example.erase(std::remove(example.begin(), example.end(), ' '), example.end());
  return fmt::format("{}: the {} is larger than {}, the limit for input files{}; set {}=SIZE to "
                     "raise it (e.g. {}={})",
                     path, what, core::to_string(core::Bytes{limit}),
                     stream ? " (read as a stream: it is not a regular file)" : "",
                     kInputLimitVariable, kInputLimitVariable, example);
}

}  // namespace

std::uint64_t input_limit(std::uint64_t fallback) {
  const char* given = std::getenv(kInputLimitVariable);
  if (given == nullptr || *given == '\0') return fallback;
  return core::parse_bytes(given, kInputLimitVariable).count;
}

std::string read_input(const std::string& path, std::string_view what,
                       std::uint64_t default_limit) {
  const std::uint64_t limit = input_limit(default_limit);
  const auto refuse = [&](const char* why) {
    throw core::InputError(fmt::format("{}: cannot read the {}: {}", path, what, why));
  };
  core::check_interrupt();
  // O_NONBLOCK: opening a FIFO nobody writes to would wait for a writer; reads block again below.
  const Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (f.fd < 0) refuse(std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) refuse(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) refuse("it is a folder");
  const int flags = ::fcntl(f.fd, F_GETFL);
  if (flags >= 0) ::fcntl(f.fd, F_SETFL, flags & ~O_NONBLOCK);
  const bool regular = S_ISREG(st.st_mode);
  if (regular && static_cast<std::uint64_t>(st.st_size) > limit) {
    throw core::InputError(too_large(path, what, limit, false));
  }
  std::string text;
  // A stream's length is unknown: room for the limit is reserved (address space, not memory: the
  // pages are touched only as bytes come), so the text is never copied to grow.
  text.reserve(static_cast<std::size_t>(regular ? st.st_size : limit + 1));
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  for (;;) {
    core::check_interrupt();
    // One byte past the limit tells a stream that is too long from one that ends there.
    const std::uint64_t room = limit + 1 - text.size();
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, room));
    const std::size_t at = text.size();
    text.resize(at + want);
    const ssize_t got = ::read(f.fd, text.data() + at, want);
    if (got < 0) {
      if (errno == EINTR) {
        text.resize(at);
        continue;
      }
      refuse(std::strerror(errno));
    }
    text.resize(at + static_cast<std::size_t>(got));
    if (got == 0) break;
    if (text.size() > limit) throw core::InputError(too_large(path, what, limit, !regular));
  }
  return text;
}

}  // namespace collsim::core
