#include "cli/all_algorithms.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace collsim::cli {

void refuse_if_none_left(const std::vector<collective::AlgorithmChoice>& chosen,
                         const std::vector<std::string>& skipped, const std::string& key,
                         const std::string& collective, const std::string& platform) {
  if (!chosen.empty()) return;
  std::string why;
  for (const std::string& s : skipped) why += (why.empty() ? "" : "; ") + s;
  throw core::InputError(fmt::format("{}: all: no algorithm can run {} on {}{}{}", key, collective,
                                     platform, why.empty() ? "" : "; skipped ", why));
}

}  // namespace collsim::cli
