#pragma once
// Output files (issues 36 and 52): every path is checked before anything is simulated, and then
// written one of three ways, decided by what the path is:
//   - a regular file or a new path: written under a unique temporary name in its folder (mkstemp)
//     and renamed over the path at the end, so an error leaves an existing file as it was and two
//     runs writing one path leave one complete file, the last to finish;
//   - a FIFO or character device (/dev/null, a named pipe): written in place, as a stream; never
//     replaced;
//   - /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written to that descriptor (with its
//     offset and append mode, as the shell opened it).
// A symbolic link is followed: its target is written (replaced or streamed as above), the link
// stays. A folder, block device or socket is refused. Errors are core::InputError naming the
// option.
#include <mutex>
#include <string>
#include <string_view>

#include "core/interrupt.hpp"

namespace collsim::report {

/// How a path is written.
struct OutputTarget {
  enum class Kind { Replace, Stream, Descriptor };
  Kind kind = Kind::Replace;
  std::string path;  ///< Replace: the file to replace (symbolic links followed); Stream: to open
  int fd = -1;       ///< Descriptor: the descriptor written
};

/// What `path` is and how it will be written. Throws core::InputError ("--output: cannot write
/// \"sub/x.csv\": no folder \"sub\" (create it first)") for a folder, block device, socket, a
/// missing folder, a loop of symbolic links.
OutputTarget resolve_output(const std::string& path, std::string_view option);

/// Before any work: throws core::InputError when `path` cannot be written as resolve_output says,
/// found the way writing will find it (a temporary file is made in its folder and removed: this
/// holds for root too, on a read-only file system or in /proc). An empty path (no such output)
/// passes.
void check_output_path(const std::string& path, std::string_view option);

/// One output being written. Thread-safe; written text is buffered and reaches the path at
/// commit() (Replace) or as the buffer fills and at flush() (Stream, Descriptor). Opened at the
/// first write, flush or commit: a run that fails before leaves nothing behind.
class OutputFile {
 public:
  /// What happens to the output when the process is ended at a signal before its owner finished
  /// it (core::ExitHook; the orderly paths call commit, keep_partial or discard themselves).
  enum class OnSignal {
    Commit,       ///< `closing` is appended and the file takes its name (a trace as far as it got)
    KeepPartial,  ///< the file takes the name PATH.partial (CSV rows as they finished)
    Discard,      ///< the temporary file is removed
  };
  /// `closing`: text commit() appends (a JSON document's closing brackets).
  OutputFile(const std::string& path, std::string_view option,
             OnSignal on_signal = OnSignal::Discard, std::string closing = {});
  /// Discards what is not committed; never throws.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// Appends `text` whole (the exit hook never cuts one call's text). Throws core::InputError
  /// when writing fails (a full disk).
  void write(std::string_view text);
  /// Streams: what is buffered reaches the path now.
  void flush();
  /// Appends `closing`, then the path holds everything written. Throws core::InputError.
  void commit();
  /// Replace: what was written goes to partial_path() (nothing is made when nothing was
  /// written); streams: flushed. Throws core::InputError.
  void keep_partial();
  /// Nothing of this output stays (what a stream was given stays given).
  void discard() noexcept;

  const OutputTarget& target() const { return target_; }
  /// Where keep_partial() puts the rows: PATH.partial, or the stream itself.
  std::string partial_path() const;

 private:
  void open_locked();
  void drain_locked();
  void close_locked() noexcept;
  // Writes what is buffered and closes; Replace: the temporary file takes the name `name`.
  void finish_locked(const std::string& name);
  void at_signal() noexcept;

  std::string shown_;  ///< the path as given, for messages
  std::string option_;
  OutputTarget target_;
  OnSignal on_signal_;
  std::string closing_;
  using Mutex = std::recursive_timed_mutex;  ///< recursive: at_signal() holds it through commit()
  Mutex mu_;
  std::string buffer_;
  std::string temp_;  ///< Replace: the temporary file, once open
  int fd_ = -1;
  bool done_ = false;
  core::ExitHook hook_;  ///< last: unregistered before anything it uses goes away
};

}  // namespace collsim::report
