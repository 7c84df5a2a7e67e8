#pragma once
// "Did you mean": the closest of a list of names to a misspelt one, for error messages
// (`--topolgy` -> `--topology`, `scheduling_policy` -> `scheduling-policy`).
#include <string>
#include <string_view>
#include <vector>

namespace collsim::core {

/// Edit distance (insertions, deletions, substitutions and swaps of two neighbours cost one; '_'
/// for '-' costs nothing) between `a` and `b`.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word` if it is close enough to be a typo (distance at most 2, and
/// at most a third of the word's length, or `word` is a prefix of exactly one candidate); ""
/// otherwise. Ties go to the first candidate.
std::string closest(std::string_view word, const std::vector<std::string_view>& candidates);

/// "; did you mean X?" for closest(word, candidates), or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates);
/// The same for candidates listed as one string, "ring, direct, halving-doubling" (the "valid:"
/// lists of error messages).
std::string did_you_mean_in(std::string_view word, std::string_view list);

}  // namespace collsim::core
