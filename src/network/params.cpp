#include "network/params.hpp"

#include <fmt/format.h>

#include "network/backend.hpp"

namespace collsim::network {

std::optional<ParamValue> default_value(const BackendParam& p) { return p.get(BackendOptions{}); }

std::string default_text(const BackendParam& p) {
  const auto d = default_value(p);
  return d ? core::format_param(p.spec, *d) : fmt::format("none ({})", p.spec.unset);
}

std::string label_piece(const BackendParam& p, const std::optional<ParamValue>& v) {
  if (!v || v == default_value(p)) return {};
  if (p.label.empty()) return ":" + core::format_param(p.spec, *v);
  if (p.spec.type == ParamType::Bool) {
    return std::get<bool>(*v) ? fmt::format(":{}", p.label) : fmt::format(":no-{}", p.label);
  }
  return fmt::format(":{}={}", p.label, core::format_param(p.spec, *v));
}

std::optional<ParamValue> count_value(std::uint32_t v) { return ParamValue{std::uint64_t{v}}; }

std::optional<ParamValue> count_value(const std::optional<std::uint32_t>& v) {
  if (!v) return std::nullopt;
  return count_value(*v);
}

std::optional<ParamValue> bytes_value(std::uint64_t bytes) {
  return ParamValue{core::Bytes{bytes}};
}

std::optional<ParamValue> bandwidth_value(const std::optional<core::Bandwidth>& v) {
  if (!v) return std::nullopt;
  return ParamValue{*v};
}

std::uint32_t as_u32(const ParamValue& v) {
  if (const auto* b = std::get_if<core::Bytes>(&v)) return static_cast<std::uint32_t>(b->count);
  return static_cast<std::uint32_t>(std::get<std::uint64_t>(v));
}

}  // namespace collsim::network
