#pragma once
#include <iosfwd>
#include <vector>

#include "cli/commands.hpp"
#include "report/result.hpp"

namespace collsim::cli {

/// Render rows in the chosen format to `out`, or atomically to the --output file.
void emit(const std::vector<report::ResultRow>& rows, const OutputOptions& opt, std::ostream& out);

}  // namespace collsim::cli
