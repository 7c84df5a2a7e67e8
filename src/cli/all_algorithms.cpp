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

std::vector<std::pair<std::string, std::string>> skipped_rows(
    const std::vector<std::string>& skipped) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& s : skipped) {
    const auto at = s.find(": ");
    if (at == std::string::npos) {
      out.emplace_back(s, "");
    } else {
      out.emplace_back(s.substr(0, at), s.substr(at + 2));
    }
  }
  return out;
}

}  // namespace collsim::cli
