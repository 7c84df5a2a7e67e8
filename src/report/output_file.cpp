#include "report/output_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/error.hpp"

namespace collsim::report {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void refuse(std::string_view option, const std::string& path, const std::string& why) {
  throw core::InputError(fmt::format("{}: cannot write \"{}\": {}", option, path, why));
}

// /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: the descriptor N, else -1. Opening these
// names again would truncate a file the shell appends to, or start at its beginning.
int descriptor_of(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0) {
      int fd = -1;
      const char* begin = path.data() + prefix.size();
      const char* end = path.data() + path.size();
      const auto [p, ec] = std::from_chars(begin, end, fd);
      if (ec == std::errc() && p == end) return fd;
    }
  }
  return -1;
}

// `path` with every symbolic link of its last component followed (a dangling link: the path it
// names, which will be made).
std::string follow_links(const std::string& path, std::string_view option) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::vector<char> buf(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 255) + 1);
    const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size());
    if (n < 0) refuse(option, path, std::strerror(errno));
    const std::string target(buf.data(), static_cast<std::size_t>(n));
    p = target.starts_with('/') ? target : (fs::path(p).parent_path() / target).string();
  }
  refuse(option, path, "too many levels of symbolic links");
}

// A new empty file beside `path` (so that rename() is atomic), open for writing; its name in
// `temp`. mkstemp: a fresh name, so no other file (not even another run's) is overwritten.
int make_temp(const std::string& path, std::string& temp) {
  std::string name = path + ".tmp.XXXXXX";
  std::vector<char> buf(name.begin(), name.end());
  buf.push_back('\0');
  const int fd = ::mkostemp(buf.data(), O_CLOEXEC);
  if (fd < 0) return -1;
  // mkstemp makes the file 0600; give it the mode a plain new file gets (0666 less the umask).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  temp.assign(buf.data());
  return fd;
}

}  // namespace

OutputTarget resolve_output(const std::string& path, std::string_view option) {
  OutputTarget t;
  if (const int fd = descriptor_of(path); fd >= 0) {
    if (::fcntl(fd, F_GETFD) < 0) refuse(option, path, fmt::format("descriptor {} is not open", fd));
    t.kind = OutputTarget::Kind::Descriptor;
    t.fd = fd;
    t.path = path;
    return t;
  }
  t.path = follow_links(path, option);
  struct stat st {};
  if (::stat(t.path.c_str(), &st) == 0) {
    if (S_ISREG(st.st_mode)) return t;
    if (S_ISDIR(st.st_mode)) refuse(option, path, "it is a folder; give a file name");
    if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
      t.kind = OutputTarget::Kind::Stream;
      return t;
    }
    refuse(option, path,
           S_ISBLK(st.st_mode)
               ? "it is a block device (a disk); collsim writes files, FIFOs and character devices"
               : "it is a socket; collsim writes files, FIFOs and character devices");
  }
  if (errno != ENOENT) refuse(option, path, std::strerror(errno));
  const fs::path folder = fs::path(t.path).parent_path();
  const std::string shown = folder.empty() ? "." : folder.string();
  std::error_code ec;
  if (!folder.empty() && !fs::exists(folder, ec)) {
    refuse(option, path, fmt::format("no folder \"{}\" (create it first)", shown));
  }
  if (!folder.empty() && !fs::is_directory(folder, ec)) {
    refuse(option, path, fmt::format("\"{}\" is not a folder", shown));
  }
  return t;
}

void check_output_path(const std::string& path, std::string_view option) {
  if (path.empty()) return;
  const OutputTarget t = resolve_output(path, option);
  if (t.kind == OutputTarget::Kind::Stream) {
    if (::access(t.path.c_str(), W_OK) != 0) refuse(option, path, std::strerror(errno));
    return;
  }
  if (t.kind != OutputTarget::Kind::Replace) return;
  // What writing will do, so that the answer holds for root and read-only file systems too.
  std::string temp;
  const int fd = make_temp(t.path, temp);
  if (fd < 0) {
    const int err = errno;
    const fs::path folder = fs::path(t.path).parent_path();
    refuse(option, path,
           fmt::format("no file can be made in folder \"{}\" ({})",
                       folder.empty() ? "." : folder.string(), std::strerror(err)));
  }
  ::close(fd);
  ::unlink(temp.c_str());
}

OutputFile::OutputFile(const std::string& path, std::string_view option, OnSignal on_signal,
                       std::string closing)
    : shown_(path),
      option_(option),
      target_(resolve_output(path, option)),
      on_signal_(on_signal),
      closing_(std::move(closing)),
      hook_([this] { at_signal(); }) {}

OutputFile::~OutputFile() { discard(); }

std::string OutputFile::partial_path() const {
  return target_.kind == OutputTarget::Kind::Replace ? target_.path + ".partial" : shown_;
}

void OutputFile::open_locked() {
  if (fd_ >= 0) return;
  switch (target_.kind) {
    case OutputTarget::Kind::Replace:
      fd_ = make_temp(target_.path, temp_);
      break;
    case OutputTarget::Kind::Stream:
      // No O_TRUNC: a FIFO or device is written in place. A FIFO waits here for its reader.
      do {
        fd_ = ::open(target_.path.c_str(), O_WRONLY | O_CLOEXEC);
      } while (fd_ < 0 && errno == EINTR);
      break;
    case OutputTarget::Kind::Descriptor:
      fd_ = target_.fd;
      break;
  }
  if (fd_ < 0) refuse(option_, shown_, std::strerror(errno));
}

void OutputFile::drain_locked() {
  std::size_t at = 0;
  while (at < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + at, buffer_.size() - at);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      buffer_.clear();
      throw core::InputError(
          fmt::format("{}: writing \"{}\" failed: {}", option_, shown_, std::strerror(err)));
    }
    at += static_cast<std::size_t>(n);
  }
  buffer_.clear();
}

void OutputFile::close_locked() noexcept {
  if (fd_ >= 0 && target_.kind != OutputTarget::Kind::Descriptor) ::close(fd_);
  fd_ = -1;
}

void OutputFile::write(std::string_view text) {
  const std::lock_guard<Mutex> lock(mu_);
  if (done_) return;
  buffer_.append(text);
  if (buffer_.size() >= (std::size_t{1} << 16)) {
    open_locked();
    drain_locked();
  }
}

void OutputFile::flush() {
  const std::lock_guard<Mutex> lock(mu_);
  if (done_ || target_.kind == OutputTarget::Kind::Replace) return;
  open_locked();
  drain_locked();
}

void OutputFile::finish_locked(const std::string& name) {
  try {
    open_locked();
    drain_locked();
  } catch (...) {
    close_locked();
    if (!temp_.empty()) ::unlink(temp_.c_str());
    throw;
  }
  if (target_.kind != OutputTarget::Kind::Replace) {
    close_locked();
    return;
  }
  const int closed = ::close(fd_);
  const int close_err = errno;
  fd_ = -1;
  if (closed != 0 || std::rename(temp_.c_str(), name.c_str()) != 0) {
    const int err = closed != 0 ? close_err : errno;
    ::unlink(temp_.c_str());
    refuse(option_, name == target_.path ? shown_ : name, std::strerror(err));
  }
}

void OutputFile::commit() {
  const std::lock_guard<Mutex> lock(mu_);
  if (done_) return;
  done_ = true;
  buffer_ += closing_;
  finish_locked(target_.path);
}

void OutputFile::keep_partial() {
  const std::lock_guard<Mutex> lock(mu_);
  if (done_) return;
  done_ = true;
  if (fd_ < 0 && buffer_.empty()) return;
  finish_locked(partial_path());
}

void OutputFile::discard() noexcept {
  const std::lock_guard<Mutex> lock(mu_);
  if (done_) return;
  done_ = true;
  buffer_.clear();
  if (target_.kind == OutputTarget::Kind::Replace) {
    close_locked();
    if (!temp_.empty()) ::unlink(temp_.c_str());
    return;
  }
  if (fd_ < 0) {
    struct stat st {};
    if (target_.kind == OutputTarget::Kind::Stream && ::stat(target_.path.c_str(), &st) == 0 &&
        S_ISFIFO(st.st_mode)) {
      // A reader already waiting on the FIFO gets its end of file rather than waiting on.
      fd_ = ::open(target_.path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    }
  }
  close_locked();
}

void OutputFile::at_signal() noexcept {
  // Held through commit / keep_partial / discard below (a recursive mutex). A file's owner
  // finishes what it holds the lock for; a stream's owner may hold it in a write() a FIFO's
  // reader does not take: the watchdog then leaves the stream as it is rather than wait, and
  // the process still ends.
  std::unique_lock<Mutex> held(mu_, std::defer_lock);
  if (target_.kind == OutputTarget::Kind::Replace) {
    held.lock();
  } else if (!held.try_lock_for(std::chrono::milliseconds(200))) {
    return;
  }
  {
    // The watchdog must not wait for a FIFO's reader: a stream not yet open is opened only if
    // one is there, and written without waiting (what a full pipe does not take is lost).
    if (!done_ && target_.kind == OutputTarget::Kind::Stream && fd_ < 0) {
      fd_ = ::open(target_.path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (fd_ < 0) {
        done_ = true;
        return;
      }
    } else if (!done_ && fd_ >= 0 && target_.kind != OutputTarget::Kind::Replace) {
      const int flags = ::fcntl(fd_, F_GETFL);
      if (flags >= 0 && target_.kind == OutputTarget::Kind::Stream) {
        ::fcntl(fd_, F_SETFL, flags | O_NONBLOCK);
      }
    }
  }
  try {
    switch (on_signal_) {
      case OnSignal::Commit:
        commit();
        break;
      case OnSignal::KeepPartial:
        keep_partial();
        break;
      case OnSignal::Discard:
        discard();
        break;
    }
  } catch (...) {  // the process ends next: nobody to report to
  }
}

}  // namespace collsim::report
