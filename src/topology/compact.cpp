#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "topology/builders.hpp"
#include "topology/forms.hpp"

namespace collsim::topology {
namespace {

constexpr std::uint64_t kMaxNpus = 1u << 20;  // 1,048,576

class Parser {
 public:
  // `valid`: the forms, listed in every message.
  Parser(std::string_view spec, std::string_view field, std::string_view valid)
      : spec_(spec), field_(field), valid_(valid) {}

  [[noreturn]] void fail(const std::string& reason) const {
    throw core::InputError(fmt::format("{}: {}; valid: {}", field_, reason, valid_));
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

  // A field of a Fields form: decimal digits, 1 .. kMaxNpus.
  std::uint32_t field(std::string_view text) const {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) {
      fail(fmt::format("bad number \"{}\" in \"{}\": write whole numbers joined by ':'", text,
                       spec_));
    }
    std::uint64_t v = 0;
    for (char c : text) {
      v = v * 10 + static_cast<std::uint64_t>(c - '0');
      if (v > kMaxNpus) fail(fmt::format("{} in \"{}\": must be <= {}", text, spec_, kMaxNpus));
    }
    if (v < 1) fail(fmt::format("{} in \"{}\": must be >= 1", text, spec_));
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
  std::string_view valid_;
};

}  // namespace

Topology from_compact(std::string_view spec, core::Bandwidth bw, core::Time lat,
                      std::string_view field, const std::optional<OpticalSpec>& optical,
                      std::string_view optical_field) {
  const std::string valid = topology_syntaxes();
  const Parser p(spec, field, valid);
  if (spec.empty()) p.fail("is empty");
  const std::size_t colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  const TopologyForm* form = find_topology_form(name);
  if (form == nullptr) {
    std::vector<std::string_view> names;
    for (const TopologyForm& f : topology_forms()) names.push_back(f.name);
    p.fail(fmt::format("unknown kind \"{}\"{}", name, core::did_you_mean(name, names)));
  }
  if (colon == std::string_view::npos || colon + 1 == spec.size()) {
    if (form->args == FormArgs::Path) {
      p.fail(fmt::format("missing the file in \"{}\" (write e.g. {})", spec, form->example));
    }
    p.fail(fmt::format("missing sizes in \"{}\" (write e.g. {}:8)", spec, name));
  }
  std::string_view rest = spec.substr(colon + 1);

  CompactArgs args;
  args.spec = std::string(spec);
  args.field = std::string(field);
  if (form->args == FormArgs::Path) {  // a file: the path as written, ':' and '=' included
    if (optical) {
      throw core::InputError(fmt::format(
          "{}: only optical topologies (optical-ring:N) have wavelengths, not \"{}\"",
          optical_field, spec));
    }
    args.path = std::string(rest);
    return form->build(args, bw, lat);
  }
  // `:key=value` options: after the sizes (after the fields of a Fields form, whose fields are
  // ':'-separated too).
  std::string_view option_text;
  if (const std::size_t eq = rest.find('='); eq != std::string_view::npos) {
    const std::size_t c = rest.rfind(':', eq);
    if (c == std::string_view::npos) {
      p.fail(fmt::format("missing sizes before the options in \"{}\" (write e.g. {})", spec,
                         form->example));
    }
    option_text = rest.substr(c + 1);
    rest = rest.substr(0, c);
  }
  for (std::string_view text = option_text; !text.empty();) {
    const std::size_t c = text.find(':');
    const std::string_view opt = text.substr(0, c);
    const std::size_t eq = opt.find('=');
    const std::string accepted =
        form->options.empty() ? std::string() : fmt::format("; {} takes {}", name, form->options);
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == opt.size()) {
      p.fail(fmt::format("bad option \"{}\" in \"{}\": write key=value{}", opt, spec, accepted));
    }
    const std::string_view key = opt.substr(0, eq);
    if (form->options.empty()) {
      p.fail(fmt::format("{} takes no options, got \"{}\" in \"{}\"", name, opt, spec));
    }
    bool known = false;
    for (std::string_view list = form->options; !list.empty();) {
      const std::size_t comma = list.find(',');
      if (list.substr(0, comma) == key) known = true;
      list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    }
    if (!known) p.fail(fmt::format("unknown option \"{}\" in \"{}\"{}", key, spec, accepted));
    for (const FormOption& o : args.options) {
      if (o.key == key) p.fail(fmt::format("option \"{}\" given twice in \"{}\"", key, spec));
    }
    args.options.push_back({std::string(key), std::string(opt.substr(eq + 1))});
    text = c == std::string_view::npos ? std::string_view{} : text.substr(c + 1);
  }

  switch (form->args) {
    case FormArgs::Size:
      if (rest.find_first_not_of("0123456789") != std::string_view::npos) {
        p.fail(fmt::format("bad size \"{}\" in \"{}\": {} takes one positive integer", rest, spec,
                           name));
      }
      args.sizes.push_back(p.size(rest));
      break;
    case FormArgs::Shape:
      p.parts(rest, [&](std::string_view s) { args.sizes.push_back(p.size(s)); });
      break;
    case FormArgs::Dims:
      // Each part is a kind token followed by its size, e.g. "ring4", "sw32".
      p.parts(rest, [&](std::string_view part) {
        const std::size_t digits = part.find_first_of("0123456789");
        const std::string_view k = part.substr(0, digits);
        const DimKindTraits* kind = find_dim_kind(k);
        if (kind == nullptr) {
          p.fail(fmt::format("unknown dimension kind \"{}\" in \"{}\"", k, spec));
        }
        args.kinds.push_back(kind->kind);
        args.sizes.push_back(
            p.size(digits == std::string_view::npos ? std::string_view{} : part.substr(digits)));
      });
      break;
    case FormArgs::Fields:
      for (std::string_view text = rest;;) {
        const std::size_t c = text.find(':');
        args.sizes.push_back(p.field(text.substr(0, c)));
        if (c == std::string_view::npos) break;
        text.remove_prefix(c + 1);
      }
      break;
    case FormArgs::Path:  // handled above
      break;
  }
  if (form->args != FormArgs::Fields) p.check_total(args.sizes);
  if (optical) {
    if (!form->optical) {
      throw core::InputError(
          fmt::format("{}: only optical topologies (optical-ring:N) have wavelengths, not \"{}\"",
                      optical_field, spec));
    }
    args.optical = *optical;
  }
  return form->build(args, bw, lat);
}

}  // namespace collsim::topology
