#pragma once
// CLI11's parse errors in collsim's style: the option first, then the reason in plain words
// ("--chunks: \"4294967296\" is not a whole number from 0 to 4294967295" rather than "Could not
// convert: --chunks = 4294967296").
#include <string>

namespace CLI {
class App;
}

namespace collsim::cli {

/// A subcommand collsim does not have ("unknown command \"colective\"; did you mean `collsim
/// collective`?"), or an option of the subcommand that it does not have ("--topolgy"), with the
/// closest it has ("unknown option --topolgy of `collsim collective`; did you mean --topology?"),
/// or "" when
/// every `--name` in `argv` is one of the subcommand's (CLI11 then parses as usual). Only long
/// options are checked; values after `--` are left alone.
std::string unknown_option(const CLI::App& app, int argc, const char* const* argv);

/// The message of a CLI::ParseError rewritten; messages of other forms come back unchanged.
std::string rewrite_parse_error(const std::string& what);

}  // namespace collsim::cli
