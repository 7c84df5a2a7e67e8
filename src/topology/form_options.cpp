// The `:key=value` options of compact topology forms (forms.hpp CompactArgs): typed reads, each
// error naming the field, the whole spec and the key.
#include <fmt/format.h>

#include <charconv>
#include <string>

#include "core/error.hpp"
#include "core/parse.hpp"
#include "topology/forms.hpp"

namespace collsim::topology {
namespace {

[[noreturn]] void bad(const CompactArgs& a, std::string_view key, const std::string& value,
                      std::string_view want) {
  throw core::InputError(fmt::format("{}: option {}={} in \"{}\": {}", a.field, key, value,
                                     a.spec, want));
}

}  // namespace

const std::string* CompactArgs::option(std::string_view key) const {
  for (const FormOption& o : options) {
    if (o.key == key) return &o.value;
  }
  return nullptr;
}

std::uint32_t CompactArgs::option_uint(std::string_view key, std::uint32_t fallback,
                                       std::uint32_t lo, std::uint32_t hi) const {
  const std::string* v = option(key);
  if (v == nullptr) return fallback;
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  if (ec != std::errc{} || end != v->data() + v->size() || n < lo || n > hi) {
    bad(*this, key, *v, fmt::format("want a whole number from {} to {}", lo, hi));
  }
  return static_cast<std::uint32_t>(n);
}

double CompactArgs::option_number(std::string_view key, double fallback) const {
  const std::string* v = option(key);
  if (v == nullptr) return fallback;
  double x = 0;
  const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), x);
  if (ec != std::errc{} || end != v->data() + v->size() || !(x > 0) || x > 1e9) {
    bad(*this, key, *v, "want a positive decimal number, e.g. 1.5");
  }
  return x;
}

core::Bandwidth CompactArgs::option_bandwidth(std::string_view key,
                                              core::Bandwidth fallback) const {
  const std::string* v = option(key);
  if (v == nullptr) return fallback;
  return core::parse_bandwidth(*v, fmt::format("{}: option {} in \"{}\"", field, key, spec));
}

core::Time CompactArgs::option_time(std::string_view key, core::Time fallback) const {
  const std::string* v = option(key);
  if (v == nullptr) return fallback;
  return core::parse_time(*v, fmt::format("{}: option {} in \"{}\"", field, key, spec));
}

std::string_view CompactArgs::option_word(std::string_view key, std::string_view fallback,
                                          std::initializer_list<std::string_view> words) const {
  const std::string* v = option(key);
  if (v == nullptr) return fallback;
  std::string list;
  for (std::string_view w : words) {
    if (w == *v) return w;
    list += (list.empty() ? "" : ", ") + std::string(w);
  }
  bad(*this, key, *v, "want one of " + list);
}

}  // namespace collsim::topology
