#pragma once
// The topology registry (docs/design.md "Habits"): every compact form (`torus:8x8`) is declared
// once, next to its builder (ring.cpp, torus.cpp, ...), with its syntax, description and paper
// source, and listed in registry.cpp. from_compact() dispatches through the list and `collsim list`
// prints it. Adding a form: a file defining its *_form() (and its builder), and its line in
// registry.cpp.
#include <cstdint>
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
};

/// The text after the colon, parsed and checked (every size 2 .. 2^20, their product too).
struct CompactArgs {
  std::vector<std::uint32_t> sizes;  ///< one per dimension (Size: one)
  std::vector<DimKind> kinds;        ///< Dims only: each dimension's kind
  OpticalSpec optical;               ///< optical forms only: the wavelengths
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
