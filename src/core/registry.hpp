#pragma once
// The one shape of every list of named choices a user picks from: algorithms, network backends,
// endpoint models, topology forms and dimension kinds (docs/design.md "Habits", Registry). Each
// list is a function-local static const Registry built once in its layer's registry.cpp (no
// global mutable state); an entry is declared in its own file and listed there on one line.
//
// `Info` is the layer's trait entry; the registry reads only `Info::name` (anything convertible to
// std::string_view) and, when the entry has one, `Info::aliases` (a range of string_views: other
// names it answers to, as "switch" for the sw dimension kind).
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace collsim::core {

/// Throws core::InputError `FIELD: unknown WHAT "NAME"; did you mean X?; valid: NAMES` (the hint
/// when one of NAMES is close: core/suggest.hpp).
[[noreturn]] void throw_unknown(std::string_view field, std::string_view what,
                                std::string_view name, std::string_view names);

/// One entry as `collsim list` and `collsim help NAME` print it: `name` left-aligned in a column
/// of `width` characters after two spaces, then the first line; the other lines under it with the
/// column left blank. Each line ends with '\n'.
std::string help_entry(std::string_view name, std::size_t width,
                       std::initializer_list<std::string_view> lines);

template <class Info>
class Registry {
 public:
  /// `what` names an entry in errors: "algorithm" gives `unknown algorithm "x"; valid: ...`.
  Registry(std::string_view what, std::vector<Info> entries)
      : what_(what), entries_(std::move(entries)) {}

  /// Entries in registration order (the order of `collsim list` and of every "valid:" list).
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }
  std::size_t size() const { return entries_.size(); }
  const Info& operator[](std::size_t i) const { return entries_[i]; }

  /// Whether `e` answers to `name`: its name or one of its aliases.
  static bool matches(const Info& e, std::string_view name) {
    if (std::string_view(e.name) == name) return true;
    if constexpr (requires { e.aliases; }) {
      for (std::string_view a : e.aliases) {
        if (a == name) return true;
      }
    }
    return false;
  }

  /// The entry answering to `name`, or nullptr.
  const Info* find(std::string_view name) const {
    for (const Info& e : entries_) {
      if (matches(e, name)) return &e;
    }
    return nullptr;
  }

  /// The entry answering to `name`. Throws core::InputError naming `field`, the unknown name and
  /// the valid names (names(), aliases not repeated).
  const Info& find(std::string_view name, std::string_view field) const {
    if (const Info* e = find(name)) return *e;
    throw_unknown(field, what_, name, names());
  }

  /// The names, comma-separated, in order: "ring, direct, halving-doubling".
  std::string names() const {
    std::string s;
    for (const Info& e : entries_) {
      if (!s.empty()) s += ", ";
      s += std::string_view(e.name);
    }
    return s;
  }

 private:
  std::string what_;
  std::vector<Info> entries_;
};

}  // namespace collsim::core
