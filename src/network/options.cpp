#include "network/options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.hpp"

namespace collsim::network {

std::vector<const BackendParam*> all_params() {
  std::vector<const BackendParam*> out;
  for (const BackendInfo& b : backends()) {
    for (const BackendParam& p : b.params) {
      const bool seen = std::any_of(
          out.begin(), out.end(), [&](const BackendParam* q) { return q->spec.key == p.spec.key; });
      if (!seen) out.push_back(&p);
    }
  }
  return out;
}

const BackendParam* find_param(std::string_view key) {
  for (const BackendParam* p : all_params()) {
    if (p->spec.key == key) return p;
  }
  return nullptr;
}

bool takes(const BackendInfo& info, std::string_view key) {
  return std::any_of(info.params.begin(), info.params.end(),
                     [&](const BackendParam& p) { return p.spec.key == key; });
}

std::string backends_taking(std::string_view key) {
  std::vector<std::string_view> names;
  for (const BackendInfo& b : backends()) {
    if (takes(b, key)) names.push_back(b.name);
  }
  return names.empty() ? "no backend" : fmt::format("{}", fmt::join(names, ", "));
}

void refuse_param(const BackendParam& p, std::span<const BackendInfo* const> chosen,
                  std::string_view field, std::string_view option) {
  std::string names;  // "flow", "analytical and queue", "analytical, queue and flow"
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    names += (i == 0 ? "" : i + 1 == chosen.size() ? " and " : ", ") + chosen[i]->name;
  }
  throw core::InputError(fmt::format("{}: the {} backend{} not model {}; {} is taken by: {}", field,
                                     names, chosen.size() == 1 ? " does" : "s do", p.models, option,
                                     backends_taking(p.spec.key)));
}

void set_param(const BackendParam& p, BackendOptions& options, std::string_view text,
               std::string_view field) {
  p.set(options, core::parse_param(p.spec, text, field));
}

BackendOptions options_for(const BackendInfo& info, const BackendOptions& given) {
  BackendOptions out;
  for (const BackendParam& p : info.params) {
    if (const auto v = p.get(given)) p.set(out, *v);
  }
  return out;
}

void check_options(const BackendInfo& info, const BackendOptions& options, std::string_view field) {
  for (const BackendParam* p : all_params()) {
    const auto v = p->get(options);
    if (!takes(info, p->spec.key)) {
      if (v != default_value(*p)) {
        const BackendInfo* const chosen[] = {&info};
        refuse_param(*p, chosen, field, p->spec.key);
      }
      continue;
    }
    if (v) {
      if (const std::string why = core::check_param(p->spec, *v); !why.empty()) {
        throw core::InputError(
            fmt::format("{}: {} backend option {}: {}", field, info.name, p->spec.key, why));
      }
    }
  }
}

}  // namespace collsim::network
