#include <fmt/format.h>

#include <ostream>

#include "cli/commands.hpp"
#include "collective/algorithm.hpp"
#include "endpoint/endpoint.hpp"
#include "network/backend.hpp"
#include "network/params.hpp"
#include "topology/dim_kind.hpp"
#include "topology/forms.hpp"
#include "workload/model_zoo.hpp"

namespace collsim::cli {

int list_everything(std::ostream& out) {
  out << "Topologies (--topology, or `topology:` in a scenario; links take --link-bandwidth and "
         "--link-latency):\n";
  for (const auto& f : topology::topology_forms()) {
    out << fmt::format("  {:<22} {}\n  {:<22} e.g. {}; source: {}\n", f.syntax, f.description, "",
                       f.example, f.source);
  }
  out << "\nDimension kinds (hier:<kind><size>x..., or `kind:` in a scenario's `dims:`; "
         "links_per_npu physical links of `bandwidth` leave each NPU):\n";
  for (const auto& k : topology::dim_kinds()) {
    std::string aliases;
    for (std::string_view a : k.aliases) aliases += fmt::format(" (or {})", a);
    out << fmt::format("  {:<22} {}\n  {:<22} {}; source: {}\n", std::string(k.name) + aliases,
                       k.description, "", k.aggregation, k.source);
  }
  out << "\n";
  out << "Collectives (--collective):\n"
         "  all-reduce, reduce-scatter, all-gather, all-to-all\n\n";
  out << "Algorithms (--algorithms, comma-separated; parameters as name:key=value):\n";
  for (const auto& a : collective::algorithms()) {
    std::string colls;
    for (auto c : a.collectives)
      colls += (colls.empty() ? "" : ", ") + std::string(collective::to_string(c));
    out << fmt::format("  {:<20} {}\n  {:<20} collectives: {}\n  {:<20} source: {}\n", a.name,
                       a.description, "", colls, "", a.source);
    for (const auto& p : a.params) {
      if (!p.choices.empty()) {  // named values: show the names, not their indexes
        std::string names;
        for (const auto& c : p.choices) names += (names.empty() ? "" : "|") + c;
        out << fmt::format("  {:<20} {}={} (one of {}): {}\n", "", p.key,
                           p.choices[static_cast<std::size_t>(p.default_value)], names,
                           p.description);
        continue;
      }
      out << fmt::format("  {:<20} {}={} (default {}, range {}..{}): {}\n", "", p.key,
                         p.default_value, p.default_value, p.min, p.max, p.description);
    }
  }
  out << "\nBackends (--backend, or `backend:` in a scenario; each parameter as --flag on the "
         "command line or key: in a scenario's backend map):\n";
  for (const auto& b : network::backends()) {
    out << fmt::format("  {:<20} {}\n", b.name, b.description);
    for (const auto& p : b.params) {
      out << fmt::format("  {:<20} {} ({}): {} {}, default {}: {}; source: {}\n", "", p.key,
                         network::cli_flag(p), network::type_text(p), network::range_text(p),
                         network::default_text(p), p.description, p.source);
    }
  }
  out << "\nEndpoints (what an NPU and its NIC add around each message):\n";
  for (const auto& e : endpoint::endpoints()) {
    out << fmt::format("  {:<20} {}\n  {:<20} source: {}\n", e.name, e.description, "", e.source);
  }
  out << "\nEndpoint parameters (--endpoint-param KEY=VALUE, or a platform's "
         "`endpoint_params:`):\n";
  const endpoint::EndpointParams defaults;
  for (const auto& p : endpoint::endpoint_params()) {
    out << fmt::format("  {:<24} default {}: {} (used by {}); source: {}\n", p.key,
                       endpoint::format_endpoint_param(defaults, p), p.description, p.used_by,
                       p.source);
  }
  out << "\nGroups (--group, or `group:` in a job): all (every NPU), dim:K (every group of "
         "dimension K at once,\n  K = 0 innermost), npus:0,4,8,12 or npus:0-3;4-7 (explicit NPUs "
         "in rank order)\n";
  out << "\nModels (collsim train --workload NAME; data parallel, --batch, --compute, "
         "--precision):\n";
  for (const std::string& name : workload::model_names()) {
    const workload::Model m = workload::find_model(name, "model");
    out << fmt::format("  {:<20} {} ({:.1f} M parameters)\n", name, m.description,
                       static_cast<double>(m.params) / 1e6);
  }
  return 0;
}

}  // namespace collsim::cli
