#pragma once
// Command-line options derived from the registries: one flag per backend parameter
// (network/params.hpp: `vc_buffer_flits` -> `--vc-buffer-flits`), the options each chosen backend
// gets from them, and the help of --topology and --backend.
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.hpp"
#include "network/backend.hpp"
#include "scheduler/limits.hpp"
#include "topology/topology.hpp"

namespace CLI {
class App;
}

namespace collsim::cli {

/// Backend parameters as given on the command line: scenario key -> text ("true" for a flag).
using BackendParamTexts = std::map<std::string, std::string>;

/// Add one option per backend parameter to `cmd` (a Bool is a flag), grouped by the backends that
/// take it; what the user gives is stored in `given`.
void add_backend_options(CLI::App& cmd, BackendParamTexts& given);

/// The backends of --backend: a comma-separated list, empty meaning the default (flow). Throws
/// core::InputError naming --backend for an unknown name.
std::vector<const network::BackendInfo*> parse_backends(const std::string& list);

/// --max-messages and --max-memory on `cmd`, stored as given.
/// `unit`: what --max-messages counts for a command that sends no messages (e.g. "tree edges").
void add_limit_options(CLI::App& cmd, std::string& max_messages, std::string& max_memory,
                       std::string_view unit = {});
/// The limits from those texts (empty: the default). Throws core::InputError naming the flag.
scheduler::RunLimits parse_limits(const std::string& max_messages, const std::string& max_memory);

/// The options of TopologyFlags on `cmd`: --topology (required), --link-bandwidth,
/// --link-latency, --ring-tie, --wavelengths, --wavelength-bandwidth.
void add_topology_options(CLI::App& cmd, TopologyFlags& flags);

/// A compact --topology with every link at --link-bandwidth / --link-latency, the ring tie
/// rule of --ring-tie and, for an optical ring, --wavelengths of --wavelength-bandwidth,
/// validated. Throws core::InputError naming the flag.
topology::Topology compact_topology(const TopologyFlags& flags);

/// The options of each of `chosen`, in order. A parameter applies to the chosen backends that
/// take it (the others run without it); if none of them takes it, core::InputError names the
/// flag, the chosen backends and the backends that take it.
std::vector<network::BackendOptions> backend_options(
    std::span<const network::BackendInfo* const> chosen, const BackendParamTexts& given);

/// Help of --topology: the registered forms' examples.
std::string topology_help();
/// Help of --backend: the registered backends and how options meet several backends.
std::string backend_help();

}  // namespace collsim::cli
