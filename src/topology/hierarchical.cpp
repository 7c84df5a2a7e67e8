#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.hpp"
#include "core/parse.hpp"
#include "topology/builders.hpp"
#include "topology/forms.hpp"

namespace collsim::topology {

Topology hierarchical(const std::vector<DimSpec>& dims) {
  // Themis (ISCA'22) Table 2: dimension 1 of the paper is dims[0], the fastest-varying
  // coordinate; links_per_npu carries the table's "#Links/NPU".
  std::string name = "hier:";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    name += (i ? "x" : "") + std::string(to_string(dims[i].kind)) + std::to_string(dims[i].size);
  }
  return Topology::product(std::move(name), dims);
}

namespace {

// Option `key` of the hier form: one value per dimension, comma-separated ("300GB/s,25GB/s"),
// or nullopt when absent. Throws core::InputError naming the spec and key.
template <class T, class Parse>
std::optional<std::vector<T>> per_dim(const CompactArgs& a, std::string_view key, Parse parse) {
  const std::string* v = a.option(key);
  if (!v) return std::nullopt;
  std::vector<T> out;
  std::string_view rest = *v;
  for (;;) {
    const auto comma = rest.find(',');
    out.push_back(parse(rest.substr(0, comma),
                        fmt::format("{}: {}={}", a.field, key, *v)));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (out.size() != a.sizes.size()) {
    throw core::InputError(fmt::format("{}: \"{}\": {} gives {} values for {} dimensions", a.field,
                                       a.spec, key, out.size(), a.sizes.size()));
  }
  return out;
}

}  // namespace

TopologyForm hierarchical_form() {
  return {.name = "hier",
          .syntax = "hier:<kind><size>x...",
          .example = "hier:ring4xfc8xsw32",
          .description =
              "hierarchical P1 x P2 x ... (dimension 1 innermost), every link at the "
              "link bandwidth, or per dimension with :bw= and :lat=; links per NPU in a "
              "scenario's `dims:`",
          .source = "Themis Sec. 2.3 and Table 2",
          .args = FormArgs::Dims,
          .options = "bw,lat",
          .option_help =
              "bw=B1,B2,... per dimension, innermost first (each: the link bandwidth), "
              "lat=L1,L2,... per dimension (each: the link latency); e.g. "
              "hier:sw8xsw4:bw=300GB/s,25GB/s:lat=500ns,2us (what `collsim llm` states for "
              "its standard cluster)",
          .build = [](const CompactArgs& a, core::Bandwidth bw, core::Time lat) {
            const auto bws = per_dim<core::Bandwidth>(a, "bw", [](std::string_view t,
                                                                  const std::string& f) {
              return core::parse_bandwidth(t, f);
            });
            const auto lats = per_dim<core::Time>(a, "lat", [](std::string_view t,
                                                              const std::string& f) {
              return core::parse_time(t, f);
            });
            std::vector<DimSpec> dims;
            // The natural links_per_npu (0) gives every directed link `bw`, as the compact form
            // says.
            for (std::size_t i = 0; i < a.sizes.size(); ++i) {
              dims.push_back(DimSpec{a.kinds.at(i), a.sizes[i], bws ? (*bws)[i] : bw,
                                     lats ? (*lats)[i] : lat, 0});
            }
            return hierarchical(dims);
          }};
}

}  // namespace collsim::topology
