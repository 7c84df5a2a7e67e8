// `collsim astra`: run ASTRA-sim 2.x's inputs unchanged (docs/astra.md).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/commands.hpp"
#include "cli/train_runs.hpp"
#include "config/astra_config.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "workload/load.hpp"

namespace collsim::cli {

namespace {

// The remote-memory file: collsim models no memory expansion, so only that is accepted.
void check_remote_memory(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw core::InputError(fmt::format("--remote-memory-configuration: {}: cannot open", path));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw core::InputError(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
  const bool none = j.is_object() && j.size() == 1 && j.contains("memory-type") &&
                    j["memory-type"] == "NO_MEMORY_EXPANSION";
  if (!none) {
    throw core::InputError(
        fmt::format("{}: collsim simulates no remote memory; only {{\"memory-type\": "
                    "\"NO_MEMORY_EXPANSION\"}} is accepted",
                    path));
  }
}

}  // namespace

int run_astra(const AstraOptions& opt, const OutputOptions& out_opt, std::ostream& out,
              std::ostream& err) {
  if (!opt.comm_group.empty()) {
    throw core::InputError(
        "--comm-group-configuration: communicator groups are not simulated yet; collectives "
        "span every NPU or the dimensions their involved_dim names");
  }
  if (!opt.remote_memory.empty()) check_remote_memory(opt.remote_memory);
  const config::AstraNetwork net = config::read_astra_network(opt.network, opt.si_gigabytes);
  const config::AstraSystem sys = config::read_astra_system(opt.system, net.dims.size());
  // The workload's collectives choose among the system's implementations.
  workload::LoadOptions lo;
  lo.chakra = sys.compute;
  const workload::Workload wl =
      workload::load_workload(opt.workload, net.topology, lo, "--workload-configuration");
  std::vector<collective::Collective> used;
  for (const workload::Layer& l : wl.layers) {
    for (const workload::Comm& c : l.comm) {
      if (c.collective && std::find(used.begin(), used.end(), *c.collective) == used.end()) {
        used.push_back(*c.collective);
      }
    }
  }
  const auto chosen = sys.algorithms_for(used);
  // The first collective the workload runs names the run; the others keep their own.
  const collective::AlgorithmChoice algorithm =
      used.empty() ? chosen.begin()->second : chosen.at(used.front());
  if (!out_opt.quiet) {
    err << (opt.si_gigabytes
                ? "collsim: network bandwidth \"GB/s\" read as 1e9 bytes/s (--si-gigabytes)\n"
                : "collsim: network bandwidth \"GB/s\" read as 2^30 bytes/s, as ASTRA-sim does "
                  "(--si-gigabytes: 1e9)\n");
    for (const std::string& u : sys.used) err << "collsim: " << u << "\n";
    std::vector<collective::Collective> listed = used;
    if (listed.empty()) listed.push_back(chosen.begin()->first);
    for (collective::Collective c : listed) {
      err << fmt::format("collsim: {} NPUs ({}), {}: {}\n", net.topology.num_npus(),
                         net.topology.name(), collective::to_string(c), chosen.at(c).label);
    }
  }
  TrainingWork w;
  w.platform = std::filesystem::path(opt.network).stem().string();
  w.topology = &net.topology;
  w.backend = &network::find_backend(opt.backend, "--backend");
  w.endpoint_params.message_overhead = sys.endpoint_delay + net.message_delay;
  w.spec.workload = opt.workload;
  w.spec.algorithms = {algorithm};
  w.spec.per_collective = chosen;
  w.spec.chunks = sys.chunks;
  w.spec.order = sys.order;
  w.spec.chakra = sys.compute;
  if (!opt.max_time.empty()) {
    w.max_time = core::parse_time(opt.max_time, "--max-time", core::Zero::Reject);
  }
  w.field = "--workload-configuration";
  const std::uint32_t npus = net.topology.num_npus();
  // ASTRA-sim's lines: every NPU runs the same graph, so every sys[i] reports the same times
  // (cycles of 1 GHz, ASTRA-sim's clock).
  const auto lines = [&out, npus](const report::TrainingRow& r) {
    const auto cycles = [](core::Time t) { return std::llround(static_cast<double>(t.ps) / 1e3); };
    for (std::uint32_t i = 0; i < npus; ++i) {
      out << fmt::format("sys[{}] finished, {} cycles, exposed communication {} cycles.\n", i,
                         cycles(r.result.total), cycles(r.result.exposed));
    }
  };
  return run_training_work({w}, out_opt, out, err, lines);
}

}  // namespace collsim::cli
