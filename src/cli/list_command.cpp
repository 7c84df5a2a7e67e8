#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <ostream>
#include <vector>

#include "cli/commands.hpp"
#include "collective/algorithm.hpp"
#include "core/error.hpp"
#include "core/param.hpp"
#include "collective/nccl/model.hpp"
#include "core/registry.hpp"
#include "core/suggest.hpp"
#include "endpoint/endpoint.hpp"
#include "network/backend.hpp"
#include "network/params.hpp"
#include "topology/dim_kind.hpp"
#include "topology/forms.hpp"
#include "topology/gpu_systems/gpu_system.hpp"
#include "workload/model_zoo.hpp"

namespace collsim::cli {

namespace {

// One entry of each registry, as `collsim list` and `collsim help NAME` print it.
void print_form(std::ostream& out, const topology::TopologyForm& f) {
  out << core::help_entry(f.syntax, 22,
                          {f.description, fmt::format("e.g. {}; source: {}", f.example, f.source)});
  if (!f.options.empty()) {  // the same column, under the entry
    out << core::help_entry("", 22, {fmt::format("options (:key=value after the sizes): {}",
                                                 f.option_help.empty() ? f.options
                                                                       : f.option_help)});
  }
}

void print_dim_kind(std::ostream& out, const topology::DimKindTraits& k) {
  std::string aliases;
  for (std::string_view a : k.aliases) aliases += fmt::format(" (or {})", a);
  out << core::help_entry(std::string(k.name) + aliases, 22,
                          {k.description, fmt::format("{}; source: {}", k.aggregation, k.source)});
}

void print_algorithm(std::ostream& out, const collective::AlgorithmInfo& a) {
  std::string colls;
  for (auto c : a.collectives)
    colls += (colls.empty() ? "" : ", ") + std::string(collective::to_string(c));
  out << core::help_entry(a.name, 20,
                          {a.description, "collectives: " + colls, "source: " + a.source});
  for (const auto& p : a.params) {
    const std::string def = core::format_param(p, *p.default_value);
    if (p.type == core::ParamType::Choice) {  // named values: show the names, not their indexes
      out << fmt::format("  {:<20} {}={} (one of {}): {}\n", "", p.key, def,
                         fmt::join(p.choices, "|"), p.description);
      continue;
    }
    out << fmt::format("  {:<20} {}={} (default {}, range {}): {}\n", "", p.key, def, def,
                       core::range_text(p), p.description);
  }
}

void print_backend(std::ostream& out, const network::BackendInfo& b) {
  out << core::help_entry(b.name, 20, {b.description});
  for (const auto& p : b.params) {
    out << fmt::format("  {:<20} {} ({}): {} {}, default {}: {}; source: {}\n", "", p.spec.key,
                       core::cli_flag(p.spec), core::type_text(p.spec), core::range_text(p.spec),
                       network::default_text(p), p.spec.description, p.spec.source);
  }
}

void print_endpoint(std::ostream& out, const endpoint::EndpointInfo& e) {
  out << core::help_entry(e.name, 20, {e.description, "source: " + e.source});
}

void print_endpoint_param(std::ostream& out, const endpoint::EndpointParam& p) {
  const endpoint::EndpointParams defaults;
  out << fmt::format("  {:<24} default {}: {} (used by {}); source: {}\n", p.spec.key,
                     endpoint::format_endpoint_param(defaults, p), p.spec.description, p.used_by,
                     p.spec.source);
}

void print_model(std::ostream& out, const std::string& name) {
  const workload::Model m = workload::find_model(name, "model");
  out << fmt::format("  {:<20} {} ({:.1f} M parameters)\n", name, m.description,
                     static_cast<double>(m.params) / 1e6);
}

// The name a topology form is called by: "torus:AxB[xC...]" -> "torus".
std::string_view form_name(std::string_view syntax) { return syntax.substr(0, syntax.find(':')); }

}  // namespace

int list_everything(std::ostream& out) {
  out << "Topologies (--topology, or `topology:` in a scenario; links take --link-bandwidth and "
         "--link-latency):\n";
  for (const auto& f : topology::topology_forms()) print_form(out, f);
  out << "\nDimension kinds (hier:<kind><size>x..., or `kind:` in a scenario's `dims:`; "
         "links_per_npu physical links of `bandwidth` leave each NPU):\n";
  for (const auto& k : topology::dim_kinds()) print_dim_kind(out, k);
  out << "\n";
  out << "Collectives (--collective):\n"
         "  all-reduce, reduce-scatter, all-gather, all-to-all\n\n";
  out << "Algorithms (--algorithms, comma-separated; parameters as name:key=value):\n";
  for (const auto& a : collective::algorithms()) print_algorithm(out, a);
  out << "\nBackends (--backend, or `backend:` in a scenario; each parameter as --flag on the "
         "command line or key: in a scenario's backend map):\n";
  for (const auto& b : network::backends()) print_backend(out, b);
  out << "\nEndpoints (what an NPU and its NIC add around each message):\n";
  for (const auto& e : endpoint::endpoints()) print_endpoint(out, e);
  out << "\nEndpoint parameters (--endpoint-param KEY=VALUE, or a platform's "
         "`endpoint_params:`):\n";
  for (const auto& p : endpoint::endpoint_params()) print_endpoint_param(out, p);
  out << "\nGroups (--group, or `group:` in a job): all (every NPU), dim:K (every group of "
         "dimension K at once,\n  K = 0 innermost), npus:0,4,8,12 or npus:0-3;4-7 (explicit NPUs "
         "in rank order)\n";
  out << "\nModels (collsim train --workload NAME; data parallel, --batch, --compute, "
         "--precision):\n";
  for (const std::string& name : workload::model_names()) print_model(out, name);
  out << "\nGPU systems (collsim nccl-tests --system; docs/nccl.md):\n";
  for (const auto& g : topology::gpu_systems()) {
    out << core::help_entry(std::string(g.name), 22, {std::string(g.description)});
  }
  out << "\nNCCL algorithms (collsim nccl-tests --algorithm; nccl: the fastest enabled one):\n";
  for (const auto& a : collective::nccl::algorithms()) {
    out << core::help_entry(std::string(a.name), 22,
                            {std::string(a.description), "source: " + std::string(a.source)});
  }
  return 0;
}

int help_for(const std::string& name, std::ostream& out) {
  bool found = false;
  const auto section = [&](const char* title) {
    out << (found ? "\n" : "") << title << "\n";
    found = true;
  };
  for (const auto& f : topology::topology_forms()) {
    if (form_name(f.syntax) == name) section("Topology (--topology):"), print_form(out, f);
  }
  if (const auto* k = topology::dim_kinds().find(name)) {
    section("Dimension kind (hier:... or a scenario's dims:):"), print_dim_kind(out, *k);
  }
  if (const auto* a = collective::algorithms().find(name)) {
    section("Algorithm (--algorithms NAME[:key=value...]):"), print_algorithm(out, *a);
  }
  if (const auto* b = network::backends().find(name)) {
    section("Network backend (--backend):"), print_backend(out, *b);
  }
  if (const auto* e = endpoint::endpoints().find(name)) {
    section("Endpoint (--endpoint):");
    print_endpoint(out, *e);
    out << "  parameters (--endpoint-param KEY=VALUE):\n";
    for (const auto& p : endpoint::endpoint_params()) {
      if (p.used_by.find(name) != std::string_view::npos || p.used_by == "all") {
        print_endpoint_param(out, p);
      }
    }
  }
  for (const auto& p : endpoint::endpoint_params()) {
    if (p.spec.key == name)
      section("Endpoint parameter (--endpoint-param):"), print_endpoint_param(out, p);
  }
  for (const std::string& m : workload::model_names()) {
    if (m == name) section("Model (--workload):"), print_model(out, m);
  }
  if (!found) {
    std::string names;
    std::vector<std::string> seen;
    const auto add = [&](std::string_view n) {
      if (std::find(seen.begin(), seen.end(), n) != seen.end()) return;
      seen.emplace_back(n);
      names += (names.empty() ? "" : ", ") + std::string(n);
    };
    for (const auto& f : topology::topology_forms()) add(form_name(f.syntax));
    for (const auto& a : collective::algorithms()) add(a.name);
    for (const auto& b : network::backends()) add(b.name);
    for (const auto& e : endpoint::endpoints()) add(e.name);
    const std::vector<std::string> models = workload::model_names();
    std::vector<std::string_view> candidates(seen.begin(), seen.end());
    candidates.insert(candidates.end(), models.begin(), models.end());
    throw core::InputError(fmt::format(
        "help: \"{}\" is no topology, dimension kind, algorithm, backend, endpoint, endpoint "
        "parameter or model{}; try one of: {} (or a model: `collsim list`)",
        name, core::did_you_mean(name, candidates), names));
  }
  return 0;
}

}  // namespace collsim::cli
