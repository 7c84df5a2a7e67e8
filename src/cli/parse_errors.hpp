#pragma once
// CLI11's parse errors in collsim's style: the option first, then the reason in plain words
// ("--chunks: \"4294967296\" is not a whole number from 0 to 4294967295" rather than "Could not
// convert: --chunks = 4294967296").
#include <string>

namespace collsim::cli {

/// The message of a CLI::ParseError rewritten; messages of other forms come back unchanged.
std::string rewrite_parse_error(const std::string& what);

}  // namespace collsim::cli
