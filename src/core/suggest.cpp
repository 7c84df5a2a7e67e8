#include "core/suggest.hpp"

#include <algorithm>
#include <numeric>

namespace collsim::core {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const auto same = [](char x, char y) {
    return x == y || ((x == '_' || x == '-') && (y == '_' || y == '-'));
  };
  // Rows i-2, i-1 and i of the table: two swapped neighbours ("rign") cost one edit, the
  // commonest typo (optimal string alignment distance).
  std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), row(b.size() + 1);
  std::iota(prev.begin(), prev.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1,
                         prev[j - 1] + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1])) {
        row[j] = std::min(row[j], before[j - 2] + 1);
      }
    }
    std::swap(before, prev);
    std::swap(prev, row);
  }
  return prev[b.size()];
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

std::string did_you_mean_in(std::string_view word, std::string_view list) {
  std::vector<std::string_view> names;
  while (!list.empty()) {
    const std::size_t comma = list.find(", ");
    names.push_back(list.substr(0, comma));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 2);
  }
  return did_you_mean(word, names);
}

}  // namespace collsim::core
