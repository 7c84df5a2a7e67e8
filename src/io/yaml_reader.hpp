#pragma once
// Strict reading of YAML input files (scenarios, workloads, models): every error names the file,
// the line and the key path, e.g. `a.yaml:12: jobs[0].sizes: ...`; unknown keys are refused with
// the valid ones listed, and duplicate keys (which yaml-cpp would silently drop) at any depth.
// Errors are core::InputError.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/suggest.hpp"

namespace collsim::io {

class YamlReader {
 public:
  explicit YamlReader(std::string source) : source_(std::move(source)) {}
  const std::string& source() const { return source_; }

  static int line_of(const YAML::Node& at) { return at.Mark().line >= 0 ? at.Mark().line + 1 : 0; }

  [[noreturn]] void fail(const YAML::Node& at, const std::string& path,
                         const std::string& why) const {
    throw core::InputError(fmt::format("{}:{}: {}: {}", source_, line_of(at), path, why));
  }

  // Run a core parser whose error message already starts with the path; add
  // file and line.
  template <class F>
  auto with_line(const YAML::Node& at, F&& f) const -> decltype(f()) {
    try {
      return f();
    } catch (const core::InputError& e) {
      // A nested reader (or with_line) has already named the file: do not name it twice.
      if (std::string_view(e.what()).starts_with(source_ + ":")) throw;
      throw core::InputError(fmt::format("{}:{}: {}", source_, line_of(at), e.what()));
    }
  }

  void check_keys(const YAML::Node& map, const std::string& path,
                  const std::vector<std::string_view>& allowed) const {
    if (!map.IsMap()) fail(map, path, "must be a map of keys");
    for (const auto& kv : map) {
      const std::string key = kv.first.as<std::string>();
      bool ok = false;
      std::string valid;
      for (std::string_view a : allowed) {
        ok = ok || key == a;
        valid += (valid.empty() ? "" : ", ") + std::string(a);
      }
      if (!ok) {
        const std::string hint = core::closest(key, allowed);
        fail(kv.first, path.empty() ? key : path + "." + key,
             hint.empty() ? "unknown key; valid: " + valid
                          : "unknown key; did you mean " + hint + "? (valid: " + valid + ")");
      }
    }
  }

  // yaml-cpp keeps the first of two equal keys in a map and silently drops the other; refuse
  // them at any depth, before anything reads the tree.
  void unique_keys(const YAML::Node& n, const std::string& path) const {
    if (n.IsSequence()) {
      std::size_t i = 0;
      for (const auto& item : n) unique_keys(item, fmt::format("{}[{}]", path, i++));
      return;
    }
    if (!n.IsMap()) return;
    std::map<std::string, int> first_line;
    for (const auto& kv : n) {
      if (!kv.first.IsScalar())
        fail(kv.first, path.empty() ? "top level" : path, "a key must be a plain name");
      const std::string key = kv.first.Scalar();
      const std::string kpath = path.empty() ? key : path + "." + key;
      const auto seen = first_line.emplace(key, line_of(kv.first));
      if (!seen.second) {
        fail(kv.first, kpath,
             fmt::format("duplicate key (first given on line {})", seen.first->second));
      }
      unique_keys(kv.second, kpath);
    }
  }

  std::string scalar(const YAML::Node& n, const std::string& path) const {
    if (!n.IsScalar()) fail(n, path, "must be a single value");
    return n.as<std::string>();
  }

  std::uint32_t uint(const YAML::Node& n, const std::string& path, std::uint32_t min) const {
    const std::string s = scalar(n, path);
    std::uint32_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) {
      fail(n, path, fmt::format("must be a whole number, got \"{}\"", s));
    }
    if (v < min) fail(n, path, fmt::format("must be >= {}, got {}", min, v));
    return v;
  }

  // A node that is a list, or a single value standing for a one-element list.
  static std::vector<YAML::Node> items(const YAML::Node& n) {
    std::vector<YAML::Node> out;
    if (n.IsSequence()) {
      for (const auto& x : n) out.push_back(x);
    } else {
      out.push_back(n);
    }
    return out;
  }

  // items(), refusing an empty list `[]`: a job with nothing in it would run nothing and exit 0.
  std::vector<YAML::Node> nonempty_items(const YAML::Node& n, const std::string& path,
                                         std::string_view what) const {
    std::vector<YAML::Node> out = items(n);
    if (out.empty()) fail(n, path, fmt::format("empty list; give at least one {}", what));
    return out;
  }

 private:
  std::string source_;
};

}  // namespace collsim::io
