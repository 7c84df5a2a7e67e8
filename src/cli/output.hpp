#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "jobs/result.hpp"

namespace collsim::cli {

/// "a,b,c" -> {"a", "b", "c"} (command-line lists; an empty item stays, to be refused by name).
std::vector<std::string> split_commas(const std::string& list);

/// Before anything is simulated: every output file of `opt` can be written (its folder exists),
/// else core::InputError naming the option (report/output_file.hpp).
void check_output_paths(const OutputOptions& opt);

/// Render rows in the chosen format to `out`, or atomically to the --output file.
void emit(const std::vector<jobs::ResultRow>& rows, const OutputOptions& opt, std::ostream& out);

}  // namespace collsim::cli
