// `--export-chakra PREFIX` (cli/export_chakra.hpp).
#include "cli/export_chakra.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "core/error.hpp"
#include "report/output_file.hpp"
#include "report/writers.hpp"
#include "workload/formats/chakra.hpp"
#include "workload/formats/chakra_graph.hpp"
#include "workload/formats/chakra_write.hpp"
#include "workload/training_graph.hpp"

namespace collsim::cli {

namespace {

constexpr std::string_view kOption = "--export-chakra";

std::filesystem::path folder_of(const std::string& prefix) {
  const std::filesystem::path p(prefix);
  return p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
}

void write(const std::string& path, const std::string& bytes) {
  report::write_file_atomically(path, bytes, kOption);
}

}  // namespace

void check_export_prefix(const std::string& prefix) {
  if (prefix.empty()) return;
  if (prefix.back() == '/' || std::filesystem::path(prefix).filename().empty()) {
    throw core::InputError(fmt::format(
        "{}: \"{}\" names a folder; give a PREFIX for PREFIX.<rank>.et (e.g. {}w)", kOption,
        prefix, prefix));
  }
  std::error_code ec;
  const std::filesystem::path dir = folder_of(prefix);
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec)) {
    throw core::InputError(
        fmt::format("{}: \"{}\" is not a folder", kOption, dir.string()));
  }
  // An existing folder must take a file; a missing one is created at the end.
  if (std::filesystem::is_directory(dir, ec)) {
    report::check_output_path((dir / "collsim-export-check").string(), kOption);
  }
}

void export_chakra(const std::string& prefix, const workload::Graph& g,
                   const topology::Topology& topo, std::ostream& err, bool quiet) {
  std::error_code ec;
  const std::filesystem::path dir = folder_of(prefix);
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw core::InputError(
        fmt::format("{}: cannot create the folder \"{}\": {}", kOption, dir.string(), ec.message()));
  }
  const auto dims = static_cast<std::uint32_t>(topo.dimensions().size());
  const workload::chakra::ChakraWritten w = workload::chakra::write_chakra(
      g, topo.num_npus(), dims, [&](std::uint32_t rank, const std::string& bytes) {
        write(fmt::format("{}.{}.et", prefix, rank), bytes);
      });
  write(prefix + ".comm_groups.json", workload::chakra::comm_groups_json(w.groups));
  if (!quiet) {
    err << fmt::format(
        "collsim: --export-chakra: {} traces ({} nodes) in {}.<rank>.et, {} communicator "
        "group{} in {}.comm_groups.json\n",
        w.files, w.nodes, prefix, w.groups.size(), w.groups.size() == 1 ? "" : "s", prefix);
  }
}

workload::Graph training_run_graph(const TrainingWork& w, const workload::Workload& wl,
                                   std::size_t a, std::size_t o) {
  const collective::AlgorithmChoice& algo = w.spec.algorithms.at(a);
  if (!algo.info) {
    throw core::InputError(fmt::format(
        "{}: the ideal collectives take a fixed time on no network; export a run of a real "
        "algorithm",
        kOption));
  }
  if (wl.trace) {  // a trace run rank by rank: its own graph
    workload::chakra::ReplayGraphOptions go;
    go.staged = algo.info->staged;
    go.compute = wl.trace->compute;
    for (const collective::Collective c : collective::all_collectives()) go.runnable.insert(c);
    std::vector<std::uint32_t> dims;
    for (const auto& d : w.topology->dimensions()) dims.push_back(d.spec.size);
    return workload::chakra::replay_graph(wl.trace->ranks, dims, w.topology->num_npus(), go);
  }
  workload::TrainingGraphOptions go;
  go.staged = algo.info->staged;
  go.overlap = w.spec.overlaps.at(o);
  go.order = w.spec.order;
  go.iterations = w.spec.iterations;
  return workload::training_graph(wl, *w.topology, go).graph;
}

}  // namespace collsim::cli
