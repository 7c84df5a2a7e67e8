#pragma once
// The topology registry (docs/design.md "Habits"): every compact form (`torus:8x8`) is declared
// once, next to its builder (ring.cpp, torus.cpp, ...), with its syntax, description and paper
// source, and listed in registry.cpp. from_compact() dispatches through the list and `collsim list`
// prints it. Adding a form: a file defining its *_form() (and its builder), and its line in
// registry.cpp.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "core/registry.hpp"
#include "topology/topology.hpp"

namespace collsim::topology {

/// How the text after a form's colon is read.
enum class FormArgs {
  Size,   ///< one size: "16"
  Shape,  ///< sizes joined by 'x': "8x8", "4x4x4"
  Dims,   ///< dimension kinds (dim_kind.hpp), each followed by its size, joined by 'x': "ring4xfc8"
  Fields,  ///< whole numbers >= 1 joined by ':': "4:8:4" (the builder checks what each means)
  Path,    ///< a file path, the rest of the text as written (no sizes, no options): "file:a.json"
};

/// One `:key=value` written after a form's sizes (`railfat:2048x8:planes=2`).
struct FormOption {
  std::string key;
  std::string value;
};

/// The text after the colon, parsed and checked (every size 2 .. 2^20, their product too).
struct CompactArgs {
  std::vector<std::uint32_t> sizes;  ///< one per dimension (Size: one)
  std::vector<DimKind> kinds;        ///< Dims only: each dimension's kind
  OpticalSpec optical;               ///< optical forms only: the wavelengths
  std::string path;                  ///< Path forms only: the file
  /// The `:key=value` options, in the order written, each key once and among the form's
  /// TopologyForm::options (checked by from_compact).
  std::vector<FormOption> options;
  std::string spec;   ///< the whole text ("railfat:2048x8:planes=2"), for messages
  std::string field;  ///< the option or key it came from ("--topology"), for messages

  /// The value of option `key`, or nullptr when it was not given.
  const std::string* option(std::string_view key) const;
  /// Option `key` as a whole number in [lo, hi], or `fallback` when absent. Throws
  /// core::InputError naming the field, the spec and the key otherwise.
  std::uint32_t option_uint(std::string_view key, std::uint32_t fallback, std::uint32_t lo,
                            std::uint32_t hi) const;
  /// Option `key` as a decimal number > 0 ("1.5"), or `fallback`. Throws core::InputError.
  double option_number(std::string_view key, double fallback) const;
  /// Option `key` as a bandwidth with its unit ("400Gb/s"), or `fallback`. Throws
  /// core::InputError.
  core::Bandwidth option_bandwidth(std::string_view key, core::Bandwidth fallback) const;
  /// Option `key` as a time with its unit ("500ns"), or `fallback`. Throws core::InputError.
  core::Time option_time(std::string_view key, core::Time fallback) const;
  /// Option `key` as one of `words` (e.g. {"minimal", "valiant"}), or `fallback`. Throws
  /// core::InputError listing the words.
  std::string_view option_word(std::string_view key, std::string_view fallback,
                               std::initializer_list<std::string_view> words) const;
};

struct TopologyForm {
  std::string_view name = {};         ///< before the colon: "torus"
  std::string_view syntax = {};       ///< "torus:AxB[xC...]"
  std::string_view example = {};      ///< "torus:8x8"
  std::string_view description = {};  ///< for `collsim list`
  std::string_view source = {};       ///< paper and section it comes from
  FormArgs args = FormArgs::Size;
  bool optical = false;  ///< takes wavelengths (CompactArgs::optical)
  /// Its links are the paper's own (switch-fc's Table II): it ignores the link bandwidth and
  /// latency, and a scenario or command line that gives them is told so.
  bool own_links = false;
  /// Why, for those messages (empty: "its links are its paper's Table II").
  std::string_view own_links_why = {};
  /// The `:key=value` options it takes after its sizes, comma-separated ("planes,rails");
  /// empty: none, and any option written is refused.
  std::string_view options = {};
  /// Each option with its meaning and default, for `collsim list` (empty: just the keys).
  std::string_view option_help = {};
  /// Build it with every link (or physical link) at `bw` and `lat`.
  Topology (*build)(const CompactArgs& args, core::Bandwidth bw, core::Time lat) = nullptr;
};

/// Every registered form, in a fixed order (registry.cpp).
const core::Registry<TopologyForm>& topology_forms();
/// The form called `name` (the part before the colon), or nullptr.
const TopologyForm* find_topology_form(std::string_view name);
/// "ring:N, bidir-ring:N, ..., hier:<kind><size>x... (kinds ring, uring, line, fc, sw)": the
/// syntaxes of every form, for messages and help.
std::string topology_syntaxes();

}  // namespace collsim::topology
