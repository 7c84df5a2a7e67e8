#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "topology/builders.hpp"

namespace collsim::topology {
namespace {

constexpr std::uint64_t kMaxNpus = 1u << 20;  // 1,048,576
constexpr std::string_view kValidForms =
    "ring:N, bidir-ring:N, fc:N, switch:N, torus:AxB[xC...], mesh:AxB[xC...], "
    "hier:<kind><size>x... (kinds ring, uring, line, fc, sw)";

class Parser {
 public:
  Parser(std::string_view spec, std::string_view field) : spec_(spec), field_(field) {}

  [[noreturn]] void fail(const std::string& reason) const {
    throw core::InputError(fmt::format("{}: {}; valid: {}", field_, reason, kValidForms));
  }

  // A dimension size: decimal digits only, 2 .. kMaxNpus.
  std::uint32_t size(std::string_view text) const {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) {
      fail(fmt::format("bad size \"{}\" in \"{}\": sizes are positive integers", text, spec_));
    }
    std::uint64_t v = 0;
    for (char c : text) {
      v = v * 10 + static_cast<std::uint64_t>(c - '0');
      if (v > kMaxNpus) {
        fail(fmt::format("size {} in \"{}\": must be <= {}", text, spec_, kMaxNpus));
      }
    }
    if (v < 2) fail(fmt::format("size {} in \"{}\": must be >= 2", text, spec_));
    return static_cast<std::uint32_t>(v);
  }

  // The 'x'-separated parts of `text`, each non-empty part checked by `one`.
  template <typename F>
  void parts(std::string_view text, F one) const {
    for (;;) {
      const std::size_t x = text.find('x');
      one(text.substr(0, x));
      if (x == std::string_view::npos) return;
      text.remove_prefix(x + 1);
    }
  }

  void check_total(const std::vector<std::uint32_t>& sizes) const {
    std::uint64_t total = 1;
    for (std::uint32_t s : sizes) {
      total *= s;
      if (total > kMaxNpus) {
        fail(fmt::format("\"{}\" has more than {} NPUs", spec_, kMaxNpus));
      }
    }
  }

 private:
  std::string_view spec_;
  std::string_view field_;
};

}  // namespace

Topology from_compact(std::string_view spec, core::Bandwidth bw, core::Time lat,
                      std::string_view field) {
  const Parser p(spec, field);
  if (spec.empty()) p.fail("is empty");
  const std::size_t colon = spec.find(':');
  const std::string_view kind = spec.substr(0, colon);
  const bool one_size = kind == "ring" || kind == "bidir-ring" || kind == "fc" || kind == "switch";
  const bool shape = kind == "torus" || kind == "mesh";
  if (!one_size && !shape && kind != "hier") {
    p.fail(fmt::format("unknown kind \"{}\"", kind));
  }
  if (colon == std::string_view::npos || colon + 1 == spec.size()) {
    p.fail(fmt::format("missing sizes in \"{}\" (write e.g. {}:8)", spec, kind));
  }
  const std::string_view rest = spec.substr(colon + 1);

  if (one_size) {
    if (rest.find_first_not_of("0123456789") != std::string_view::npos) {
      p.fail(fmt::format("bad size \"{}\" in \"{}\": {} takes one positive integer", rest, spec,
                         kind));
    }
    const std::uint32_t n = p.size(rest);
    if (kind == "ring") return ring(n, bw, lat, false);
    if (kind == "bidir-ring") return ring(n, bw, lat, true);
    if (kind == "fc") return fully_connected(n, bw, lat);
    return switch_star(n, bw, lat);
  }

  if (shape) {
    std::vector<std::uint32_t> sizes;
    p.parts(rest, [&](std::string_view s) { sizes.push_back(p.size(s)); });
    p.check_total(sizes);
    return kind == "torus" ? torus(sizes, bw, lat) : mesh(sizes, bw, lat);
  }

  // hier: each part is a kind token followed by its size, e.g. "ring4", "sw32".
  std::vector<DimSpec> dims;
  std::vector<std::uint32_t> sizes;
  p.parts(rest, [&](std::string_view part) {
    const std::size_t digits = part.find_first_of("0123456789");
    const std::string_view k = part.substr(0, digits);
    const DimKindTraits* dk = find_dim_kind(k);
    if (dk == nullptr) p.fail(fmt::format("unknown dimension kind \"{}\" in \"{}\"", k, spec));
    const std::uint32_t n =
        p.size(digits == std::string_view::npos ? std::string_view{} : part.substr(digits));
    sizes.push_back(n);
    // The natural links_per_npu (0) gives every directed link `bw`, as the compact form says.
    dims.push_back(DimSpec{dk->kind, n, bw, lat, 0});
  });
  p.check_total(sizes);
  return hierarchical(dims);
}

}  // namespace collsim::topology
