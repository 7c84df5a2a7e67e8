#pragma once
// `-a all` (and `algorithms: [all]`) keeps the algorithms that can run the job; when none can, the
// job would print an empty table and exit 0, so it is refused instead.
#include <string>
#include <utility>
#include <vector>

#include "collective/algorithm.hpp"

namespace collsim::cli {

/// Throws core::InputError naming `key` (e.g. "--algorithms", "jobs[0].algorithms"), the
/// collective and platform, and every skipped algorithm with its reason ("ring: chunks: ..."),
/// when `chosen` is empty; does nothing otherwise.
void refuse_if_none_left(const std::vector<collective::AlgorithmChoice>& chosen,
                         const std::vector<std::string>& skipped, const std::string& key,
                         const std::string& collective, const std::string& platform);

/// The skipped list ("name: why") as (name, why) pairs, for the result rows of what did not run.
std::vector<std::pair<std::string, std::string>> skipped_rows(
    const std::vector<std::string>& skipped);

}  // namespace collsim::cli
