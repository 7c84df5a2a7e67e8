#pragma once
// Output files all or nothing (issue 36): every path is checked before anything is simulated, and
// every file is written under a temporary name in its own folder and renamed at the end, so an
// error leaves an existing file as it was. Errors are core::InputError naming the option.
#include <string>
#include <string_view>

namespace collsim::report {

/// Throws core::InputError ("--output: cannot write \"sub/x.csv\": no folder \"sub\" (create it
/// first)") when `path` cannot be written: its folder is missing, is not a folder or is not
/// writable, or `path` is a folder. An empty path (no such output) passes.
void check_output_path(const std::string& path, std::string_view option);

/// A new, empty temporary file in the folder of `path` (so that rename() is atomic); returns its
/// name. Throws core::InputError naming `option` when it cannot be made.
std::string make_temp_beside(const std::string& path, std::string_view option);

/// Give the temporary file `temp` its final name `path` (replacing any file there); on failure
/// removes `temp` and throws core::InputError naming `option`.
void commit_temp(const std::string& temp, const std::string& path, std::string_view option);

}  // namespace collsim::report
