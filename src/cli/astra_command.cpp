// `collsim astra`: run ASTRA-sim 2.x's inputs unchanged (docs/astra.md).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/backend_flags.hpp"
#include "cli/commands.hpp"
#include "cli/train_runs.hpp"
#include "config/astra_config.hpp"
#include "config/astra_optional_inputs.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "report/replay_report.hpp"
#include "scheduler/limits.hpp"
#include "jobs/replay_limits.hpp"
#include "jobs/trace_replay.hpp"
#include "workload/load.hpp"

namespace collsim::cli {

namespace {

std::string gigabytes_note(bool si) {
  return si ? "collsim: network bandwidth \"GB/s\" read as 1e9 bytes/s (--si-gigabytes)\n"
            : "collsim: network bandwidth \"GB/s\" read as 2^30 bytes/s, as ASTRA-sim does "
              "(--si-gigabytes: 1e9)\n";
}

// ASTRA-sim's lines go to standard output before a table; before CSV or JSON, which must parse,
// to standard error (unless --quiet).
std::ostream* sys_stream(const OutputOptions& o, std::ostream& out, std::ostream& err) {
  if (o.format == "table" || !o.output.empty()) return &out;
  return o.quiet ? nullptr : &err;
}

void print_sys_line(std::ostream* to, std::size_t rank, core::Time finish, core::Time exposed) {
  if (!to) return;
  std::ostream& out = *to;
  const auto cycles = [](core::Time t) { return std::llround(static_cast<double>(t.ps) / 1e3); };
  out << fmt::format("sys[{}] finished, {} cycles, exposed communication {} cycles.\n", rank,
                     cycles(finish), cycles(exposed));
}

// A Chakra trace replayed rank by rank (jobs/trace_replay.hpp).
int run_replay(const AstraOptions& opt, const OutputOptions& out_opt, std::ostream& out,
               std::ostream& err, const config::AstraNetwork& net, const config::AstraSystem& sys,
               const std::vector<workload::chakra::RankTrace>& traces, const std::string& reason) {
  if (!out_opt.activity.empty() || !out_opt.lightpaths.empty() ||
      !out_opt.packet_trace.empty()) {
    throw core::InputError(fmt::format(
        "{}: a replayed trace has no activity series, lightpath log or packet trace; use "
        "--trace for its timeline",
        !out_opt.activity.empty() ? "--activity"
        : !out_opt.lightpaths.empty() ? "--lightpaths"
                                      : "--packet-trace"));
  }
  const report::Format format = report::parse_format(out_opt.format, "--format");
  jobs::ReplayOptions ro;
  std::vector<collective::Collective> used;
  for (const auto& t : traces) {
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
      const auto& n = t.nodes[i];
      if (n.kind != workload::chakra::NodeKind::Collective || !n.comm_type || *n.comm_type == 5) {
        continue;  // launch records and broadcasts need no algorithm
      }
      const auto c = workload::chakra::collective_of(
          n, fmt::format("{}: node {} (id {}, {})", t.file, i, n.id, n.name));
      if (std::find(used.begin(), used.end(), c) == used.end()) used.push_back(c);
    }
  }
  if (!used.empty()) ro.algorithms = sys.algorithms_for(used);
  ro.chunks = sys.chunks;
  ro.serial = !opt.concurrent;
  ro.data_deps_only = opt.data_deps_only;
  ro.compute = sys.compute;
  if (!opt.comm_group.empty()) {
    ro.groups = config::read_comm_groups(opt.comm_group, net.topology.num_npus());
  }
  if (!opt.remote_memory.empty()) {
    ro.memory = config::read_remote_memory(opt.remote_memory, net.topology.num_npus());
  }
  ro.endpoint_params.endpoint_delay = sys.endpoint_delay;
  ro.endpoint_params.message_overhead = net.message_delay;
  if (!opt.max_time.empty()) {
    ro.max_time = core::parse_time(opt.max_time, "--max-time", core::Zero::Reject);
  }
  ro.timeline = !out_opt.trace.empty();
  const network::BackendInfo& backend = network::find_backend(opt.backend, "--backend");
  if (!out_opt.quiet) {
    err << gigabytes_note(opt.si_gigabytes);
    for (const std::string& u : sys.used) err << "collsim: " << u << "\n";
    for (collective::Collective c : used) {
      err << fmt::format("collsim: {} NPUs ({}), {}: {}\n", net.topology.num_npus(),
                         net.topology.name(), collective::to_string(c), ro.algorithms.at(c).label);
    }
    err << fmt::format("collsim: replaying the trace rank by rank ({}); {}\n", reason,
                       ro.serial ? "one collective or send in flight per rank, as ASTRA-sim "
                                   "(--concurrent-comm: any number)"
                                 : "any number of collectives and sends in flight per rank");
  }
  {
    // The replay's work against --max-messages / --max-memory before anything runs.
    const scheduler::RunLimits limits = parse_limits(out_opt.max_messages, out_opt.max_memory);
    const std::string what = fmt::format("replaying {} on {}", opt.workload, net.topology.name());
    std::uint64_t bytes = 0;
    const scheduler::WorkEstimate e = jobs::estimate_replay(net.topology, traces, ro, &bytes);
    scheduler::check_limits(e, limits, what);
    scheduler::check_backend_work(backend, ro.backend_options, e.messages, bytes, limits, what);
  }
  report::ReplayReport rep;
  rep.trace = opt.workload;
  rep.platform = std::filesystem::path(opt.network).stem().string();
  rep.backend = std::string(backend.name);
  rep.ranks = &traces;
  rep.result = jobs::replay(net.topology, backend, traces, ro);
  for (std::size_t k = 0; k < rep.result.ranks.size(); ++k) {
    const auto& x = rep.result.ranks[k];
    print_sys_line(sys_stream(out_opt, out, err), k, x.finish, x.finish - x.compute);
  }
  if (!out_opt.trace.empty()) {
    report::write_file_atomically(out_opt.trace, report::render_replay_trace(rep), "--trace");
  }
  const std::string text = report::render_replay(rep, format);
  if (out_opt.output.empty()) {
    out << text;
  } else {
    report::write_file_atomically(out_opt.output, text);
  }
  return 0;
}

}  // namespace

int run_astra(const AstraOptions& opt, const OutputOptions& out_opt, std::ostream& out,
              std::ostream& err) {
  const config::AstraNetwork net = config::read_astra_network(opt.network, opt.si_gigabytes);
  const config::AstraSystem sys = config::read_astra_system(opt.system, net.dims.size());
  // A Chakra trace the training path cannot take (or --replay) is replayed rank by rank.
  if (workload::chakra::is_trace(opt.workload)) {
    std::vector<workload::chakra::RankTrace> traces;
    for (const std::string& f : workload::chakra::trace_files(opt.workload)) {
      traces.push_back(workload::chakra::read_et(f));
    }
    const std::string reason = opt.replay           ? "--replay"
                               : opt.concurrent     ? "--concurrent-comm"
                               : opt.data_deps_only ? "--data-deps-only"
                                                    : jobs::replay_reason(traces);
    if (!reason.empty()) return run_replay(opt, out_opt, out, err, net, sys, traces, reason);
  } else if (opt.replay || opt.concurrent || opt.data_deps_only) {
    throw core::InputError(
        fmt::format("{}: replays Chakra traces; {} is an ASTRA-sim 1.0 text workload",
                    opt.replay       ? "--replay"
                    : opt.concurrent ? "--concurrent-comm"
                                     : "--data-deps-only",
                    opt.workload));
  }
  // Files the training path does not need are still read, so that their errors show.
  if (!opt.remote_memory.empty())
    config::read_remote_memory(opt.remote_memory, net.topology.num_npus());
  if (!opt.comm_group.empty()) config::read_comm_groups(opt.comm_group, net.topology.num_npus());
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
    err << gigabytes_note(opt.si_gigabytes);
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
  w.endpoint_params.endpoint_delay = sys.endpoint_delay;
  w.endpoint_params.message_overhead = net.message_delay;
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
  std::ostream* to = sys_stream(out_opt, out, err);
  const auto lines = [to, npus](const jobs::TrainingRow& r) {
    for (std::uint32_t i = 0; i < npus; ++i)
      print_sys_line(to, i, r.result.total, r.result.exposed);
  };
  return run_training_work({w}, out_opt, out, err, lines);
}

}  // namespace collsim::cli
