#include "core/suggest.hpp"

#include <algorithm>
#include <numeric>

namespace collsim::core {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const auto same = [](char x, char y) {
    return x == y || ((x == '_' || x == '-') && (y == '_' || y == '-'));
  };
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string closest(std::string_view word, const std::vector<std::string_view>& candidates) {
  if (word.empty()) return {};
  std::string_view best;
  std::size_t best_d = std::string_view::npos;
  for (std::string_view c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_d) best = c, best_d = d;
  }
  const std::size_t limit = std::min<std::size_t>(2, std::max<std::size_t>(1, word.size() / 3));
  if (best_d != std::string_view::npos && best_d <= limit) return std::string(best);
  // A unique prefix: `--algo` for `--algorithms`.
  std::string_view only;
  std::size_t n = 0;
  for (std::string_view c : candidates) {
    if (word.size() >= 3 && c.starts_with(word)) only = c, ++n;
  }
  return n == 1 ? std::string(only) : std::string();
}

std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates) {
  const std::string c = closest(word, candidates);
  return c.empty() ? std::string() : "; did you mean " + c + "?";
}

}  // namespace collsim::core
