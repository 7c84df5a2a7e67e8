#include "cli/backend_flags.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <stdexcept>

#include "cli/output.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "network/options.hpp"
#include "topology/builders.hpp"
#include "topology/forms.hpp"
#include "topology/link_failures.hpp"

namespace collsim::cli {
namespace {

// The value's placeholder in --help: "--vcs N", "--switching virtual-cut-through|wormhole".
std::string placeholder(const network::BackendParam& p) {
  switch (p.spec.type) {
    case network::ParamType::Bytes:
      return "SIZE";
    case network::ParamType::Bandwidth:
      return "BANDWIDTH";
    case network::ParamType::Time:
      return "TIME";
    case network::ParamType::Count:
      return "N";
    default:
      return fmt::format("{}", fmt::join(p.spec.choices, "|"));  // a Choice (a Bool is a flag)
  }
}

}  // namespace

void add_backend_options(CLI::App& cmd, BackendParamTexts& given) {
  for (const network::BackendParam* p : network::all_params()) {
    const std::string key(p->spec.key);
    const std::string unit = p->spec.unit.empty() ? "" : fmt::format("in {}; ", p->spec.unit);
    const std::string help = fmt::format("{} ({}default {}; source: {})", p->spec.description, unit,
                                         network::default_text(*p), p->spec.source);
    const std::string group = network::backends_taking(key) + " backend";
    if (p->spec.type == network::ParamType::Bool) {
      cmd.add_flag_callback(
             core::cli_flag(p->spec), [&given, key] { given[key] = "true"; }, help)
          ->group(group);
    } else {
      cmd.add_option_function<std::string>(
             core::cli_flag(p->spec), [&given, key](const std::string& v) { given[key] = v; }, help)
          ->type_name(placeholder(*p))
          ->group(group);
    }
  }
}

std::vector<network::BackendOptions> backend_options(
    std::span<const network::BackendInfo* const> chosen, const BackendParamTexts& given) {
  network::BackendOptions all;
  // Not a structured binding: clang before 16 cannot capture one in the lambda below.
  for (const auto& entry : given) {
    const std::string& key = entry.first;
    const std::string& text = entry.second;
    const network::BackendParam* p = network::find_param(key);
    if (p == nullptr) throw std::logic_error("no backend parameter \"" + key + "\"");
    const std::string flag = core::cli_flag(p->spec);
    const bool taken = std::any_of(chosen.begin(), chosen.end(),
                                   [&](const auto* b) { return network::takes(*b, key); });
    if (!taken) network::refuse_param(*p, chosen, flag, flag);
    network::set_param(*p, all, text, flag);
  }
  std::vector<network::BackendOptions> out;
  for (const network::BackendInfo* b : chosen) out.push_back(network::options_for(*b, all));
  return out;
}

std::string topology_help() {
  std::vector<std::string_view> examples;
  for (const auto& f : topology::topology_forms()) examples.push_back(f.example);
  return fmt::format("{} (see `collsim list`)", fmt::join(examples, ", "));
}

std::string backend_help() {
  std::vector<std::string> names;
  for (const auto& b : network::backends()) {
    names.push_back(b.name == network::kDefaultBackend ? b.name + " (default)" : b.name);
  }
  return fmt::format(
      "network backend(s), comma-separated: {}. A backend option applies to the chosen backends "
      "that take it (the others run without it; the report's backend column shows it) and is an "
      "error if none of them takes it; see `collsim list`",
      fmt::join(names, ", "));
}

std::vector<const network::BackendInfo*> parse_backends(const std::string& list) {
  std::vector<const network::BackendInfo*> out;
  for (const std::string& name :
       split_commas(list.empty() ? std::string(network::kDefaultBackend) : list)) {
    out.push_back(&network::find_backend(name, "--backend"));
  }
  return out;
}

void add_limit_options(CLI::App& cmd, std::string& max_messages, std::string& max_memory,
                       std::string_view unit) {
  const scheduler::RunLimits def;
  cmd.add_option("--max-messages", max_messages,
                 unit.empty()
                     ? fmt::format("refuse a run estimated to send more messages than this "
                                   "(default {:.0e}: a few minutes of simulation)",
                                   static_cast<double>(def.max_messages))
                     : fmt::format("refuse a command estimated to make more {} than this "
                                   "(default {:.0e})",
                                   unit, static_cast<double>(def.max_messages)));
  cmd.add_option("--max-memory", max_memory,
                 fmt::format("refuse a run estimated to need more simulator memory than this "
                             "(default {})",
                             core::to_string(core::Bytes{def.max_memory})));
}

scheduler::RunLimits parse_limits(const std::string& max_messages, const std::string& max_memory) {
  scheduler::RunLimits l;
  if (!max_messages.empty()) {
    double v = 0;
    const char* end = max_messages.data() + max_messages.size();
    const auto [ptr, ec] = std::from_chars(max_messages.data(), end, v);
    if (ec != std::errc() || ptr != end || !(v >= 1) || v > 1e18) {
      throw core::InputError(
          fmt::format("--max-messages: must be a number of messages >= 1 (e.g. 2e9), got \"{}\"",
                      max_messages));
    }
    l.max_messages = static_cast<std::uint64_t>(v);
  }
  if (!max_memory.empty()) l.max_memory = core::parse_bytes(max_memory, "--max-memory").count;
  return l;
}

void add_topology_options(CLI::App& cmd, TopologyFlags& f) {
  cmd.add_option("--topology,-t", f.topology, topology_help())->required();
  const auto given = [&f](const std::string&) { f.links_given = true; };
  cmd.add_option("--link-bandwidth", f.link_bandwidth,
                 "every link's bandwidth: GB/s = 1e9 bytes/s, Gb/s = 1e9 bits/s, GiB/s (not "
                 "swfc and htorus, whose links are their paper's Table II, nor file:PATH topologies, "
                 "whose links are the file's)")
      ->capture_default_str()
      ->each(given);
  cmd.add_option("--link-latency", f.link_latency,
                 "every link's latency, e.g. 150 ns, 1.5us (optical rings: propagation per hop)")
      ->capture_default_str()
      ->each(given);
  cmd.add_option("--npu-link-bandwidth", f.npu_link_bandwidth,
                 "switched networks (fattree, bigraph, switch): bandwidth of the NPU-to-switch "
                 "links (default: --link-bandwidth)");
  cmd.add_option("--npu-link-latency", f.npu_link_latency,
                 "switched networks: latency of the NPU-to-switch links (default: --link-latency)");
  cmd.add_option("--ring-tie", f.ring_tie,
                 "which way a message goes round a ring dimension when both ways are equally "
                 "short: parity (even source coordinates +1, odd -1: both directions share the "
                 "load, as BookSim's per-packet coin flip does) or plus (always +1)")
      ->capture_default_str();
  cmd.add_option("--local-switch", f.local_switch,
                 "swfc (k local switches per package): which switch carries a message from "
                 "local id s to t when its stream does not pick one: distance (switch "
                 "(t - s - 1) mod k: an NPU's peers spread over its k links) or source (switch "
                 "s mod k: with k = n every pair of a step on its own switch)")
      ->capture_default_str();
  cmd.add_option("--fail-links", f.fail_links,
                 "graph topologies (fattree, bigraph, ...): links out of service, routed around "
                 "over the shortest paths that remain: A-B (both directions) or A>B, "
                 "comma-separated, nodes as npuN, swN (switch N, as `inventory` counts) or node "
                 "ids, e.g. sw0-sw8 (exit 2 if an NPU can no longer reach another)");
  const topology::OpticalSpec def;
  cmd.add_option(
      "--wavelengths", f.wavelengths,
      fmt::format("optical-ring only: wavelengths per waveguide (default {})", def.wavelengths));
  cmd.add_option("--wavelength-bandwidth", f.wavelength_bandwidth,
                 fmt::format("optical-ring only: bandwidth of one wavelength (default {})",
                             core::to_string(def.wavelength_bandwidth)));
}

topology::Topology compact_topology(const TopologyFlags& f) {
  const auto bw = core::parse_bandwidth(f.link_bandwidth, "--link-bandwidth");
  const auto lat = core::parse_time(f.link_latency, "--link-latency");
  std::optional<topology::OpticalSpec> optical;
  std::string_view optical_flag = "--wavelengths";
  if (!f.wavelengths.empty() || !f.wavelength_bandwidth.empty()) {
    optical.emplace();
    if (!f.wavelengths.empty()) {
      unsigned w = 0;
      const char* end = f.wavelengths.data() + f.wavelengths.size();
      const auto [ptr, ec] = std::from_chars(f.wavelengths.data(), end, w);
      if (ec != std::errc() || ptr != end || w < 1 || w > 4096) {
        throw core::InputError(fmt::format(
            "--wavelengths: must be a whole number 1..4096, got \"{}\"", f.wavelengths));
      }
      optical->wavelengths = w;
    } else {
      optical_flag = "--wavelength-bandwidth";
    }
    if (!f.wavelength_bandwidth.empty()) {
      optical->wavelength_bandwidth =
          core::parse_bandwidth(f.wavelength_bandwidth, "--wavelength-bandwidth");
    }
  }
  const topology::TopologyForm* form =
      topology::find_topology_form(std::string_view(f.topology).substr(0, f.topology.find(':')));
  if (f.links_given && form != nullptr && form->own_links && !form->own_links_why.empty()) {
    throw core::InputError(fmt::format("--link-bandwidth/--link-latency: not used by {}: {}",
                                       f.topology, form->own_links_why));
  }
  if (f.links_given && form != nullptr && form->own_links) {
    throw core::InputError(fmt::format(
        "--link-bandwidth/--link-latency: not used by {}: its links are its paper's Table II "
        "(write a scenario with `dims:` to change them)",
        f.topology));
  }
  topology::Topology topo =
      topology::from_compact(f.topology, bw, lat, "--topology", optical, optical_flag);
  topo.set_ring_tie(topology::parse_ring_tie(f.ring_tie, "--ring-tie"));
  topo.set_local_switch_rule(topology::parse_local_switch_rule(f.local_switch, "--local-switch"));
  if (!f.npu_link_bandwidth.empty() || !f.npu_link_latency.empty()) {
    std::optional<core::Bandwidth> nbw;
    std::optional<core::Time> nlat;
    if (!f.npu_link_bandwidth.empty()) {
      nbw = core::parse_bandwidth(f.npu_link_bandwidth, "--npu-link-bandwidth");
    }
    if (!f.npu_link_latency.empty()) {
      nlat = core::parse_time(f.npu_link_latency, "--npu-link-latency");
    }
    topo.set_npu_links(nbw, nlat, nbw ? "--npu-link-bandwidth" : "--npu-link-latency");
  }
  topology::apply_failed_links(topo, f.fail_links, "--fail-links");
  topology::validate(topo);
  return topo;
}

}  // namespace collsim::cli
