#pragma once
// `--export-chakra PREFIX` (train, llm, run): the workload graph a run simulated, written as
// Chakra execution traces PREFIX.<rank>.et (workload/formats/chakra_write.hpp), one per NPU, with
// PREFIX.comm_groups.json for ASTRA-sim's --comm-group-configuration. `collsim train --workload
// PREFIX --topology T` and `collsim astra --replay` read them back to the same times.
#include <ostream>
#include <string>

#include "cli/train_runs.hpp"
#include "topology/topology.hpp"
#include "workload/graph.hpp"
#include "workload/workload.hpp"

namespace collsim::cli {

/// Before any work: PREFIX's folder exists or can be created, and is writable. Throws
/// core::InputError naming --export-chakra.
void check_export_prefix(const std::string& prefix);

/// Writes `g` for `topo`'s NPUs (creating PREFIX's folder); a note on `err` unless `quiet`.
/// Throws core::InputError naming --export-chakra.
void export_chakra(const std::string& prefix, const workload::Graph& g,
                   const topology::Topology& topo, std::ostream& err, bool quiet);

/// The graph of training run (algorithm `a`, overlap `o`) of `w` with its loaded workload: the
/// training generator's (or, for a trace run rank by rank, the trace's). Throws
/// core::InputError for the ideal collectives (no network to export).
workload::Graph training_run_graph(const TrainingWork& w, const workload::Workload& wl,
                                   std::size_t a, std::size_t o);

}  // namespace collsim::cli
