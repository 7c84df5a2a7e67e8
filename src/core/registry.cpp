#include "core/registry.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/suggest.hpp"

namespace collsim::core {

void throw_unknown(std::string_view field, std::string_view what, std::string_view name,
                   std::string_view names) {
  throw InputError(fmt::format("{}: unknown {} \"{}\"{}; valid: {}", field, what, name,
                               did_you_mean_in(name, names), names));
}

std::string help_entry(std::string_view name, std::size_t width,
                       std::initializer_list<std::string_view> lines) {
  std::string out;
  for (std::string_view line : lines) {
    out += fmt::format("  {:<{}} {}\n", out.empty() ? name : std::string_view(), width, line);
  }
  return out;
}

}  // namespace collsim::core
