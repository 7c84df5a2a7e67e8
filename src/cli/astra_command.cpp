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
#include "cli/interrupt.hpp"
#include "cli/train_runs.hpp"
#include "config/astra_config.hpp"
#include "config/astra_optional_inputs.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "report/replay_report.hpp"
#include "scheduler/limits.hpp"
#include "jobs/replay_limits.hpp"
#include "jobs/sweep.hpp"
#include "jobs/trace_replay.hpp"
#include "jobs/trace_scale.hpp"
#include "cli/output.hpp"
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

void print_sys_line(std::ostream* to, std::size_t rank, core::Time finish, core::Time exposed,
                    bool stats = false) {
  if (!to) return;
  std::ostream& out = *to;
  const auto cycles = [](core::Time t) { return std::llround(static_cast<double>(t.ps) / 1e3); };
  out << fmt::format("sys[{}] finished, {} cycles, exposed communication {} cycles.\n", rank,
                     cycles(finish), cycles(exposed));
  if (stats) {
    out << fmt::format("sys[{}], Wall time: {}\nsys[{}], Comm time: {}\n", rank, cycles(finish),
                       rank, cycles(exposed));
  }
}

// What collsim made of ASTRA-sim's command-line flags (accepted, noted or refused) and of the
// compatibility mode; throws core::InputError for a value collsim does not simulate.
std::vector<std::string> flag_notes(const AstraOptions& opt, bool text_workload) {
  std::vector<std::string> notes;
  if (!opt.logging_configuration.empty()) {
    notes.push_back("--logging-configuration: accepted, no effect: output-only");
  }
  if (!opt.logging_folder.empty()) {
    notes.push_back("--logging-folder: accepted, no effect: output-only");
  }
  if (!(opt.comm_scale > 0) || !std::isfinite(opt.comm_scale)) {
    throw core::InputError(fmt::format("--comm-scale: must be > 0, got {}", opt.comm_scale));
  }
  if (opt.comm_scale != 1) {
    if (text_workload) {
      throw core::InputError(fmt::format(
          "--comm-scale: {} scales an ASTRA-sim 1.0 text workload's collective sizes, which "
          "collsim does not do; scale the sizes in the workload file",
          opt.comm_scale));
    }
    notes.push_back(fmt::format(
        "--comm-scale {}: accepted, no effect on a Chakra trace (ASTRA-sim 2.x's workload layer "
        "takes comm_size as it is)",
        opt.comm_scale));
  }
  if (!(opt.injection_scale > 0) || !std::isfinite(opt.injection_scale)) {
    throw core::InputError(
        fmt::format("--injection-scale: must be > 0, got {}", opt.injection_scale));
  }
  if (opt.injection_scale != 1) {
    notes.push_back(fmt::format("--injection-scale {}: endpoint-delay multiplied by it",
                                opt.injection_scale));
  }
  if (opt.num_queues_per_dim != 1) {
    throw core::InputError(fmt::format(
        "--num-queues-per-dim: {} is not simulated (collsim runs ASTRA-sim's default of one "
        "queue per dimension, active-chunks-per-dimension chunks at a time)",
        opt.num_queues_per_dim));
  }
  if (opt.rendezvous) {
    throw core::InputError(
        "--rendezvous-protocol: true is not simulated (ASTRA-sim's 8 KiB handshake before each "
        "message); use false, its default");
  }
  notes.push_back(opt.compat
                      ? "ASTRA-sim compatibility mode on (--no-astra-compat turns it off): "
                        "local-memory cost per reduction step, chunks through the dimension "
                        "queues on every platform, ASTRA-sim's localBWAware walk"
                      : "ASTRA-sim compatibility mode off (--no-astra-compat): collsim's own "
                        "reading of the inputs");
  return notes;
}

void print_notes(std::ostream& err, const OutputOptions& o, const std::vector<std::string>& a,
                 const std::vector<std::string>& b) {
  if (o.quiet || (a.empty() && b.empty())) return;
  err << "collsim: notes on the inputs:\n";
  for (const auto* list : {&a, &b}) {
    for (const std::string& n : *list) err << "  " << n << "\n";
  }
}

// A Chakra trace replayed rank by rank (jobs/trace_replay.hpp).
int run_replay(const AstraOptions& opt, const OutputOptions& out_opt, std::ostream& out,
               std::ostream& err, const config::AstraNetwork& net, const config::AstraSystem& sys,
               const std::vector<workload::chakra::RankTrace>& traces, const std::string& reason,
               const std::vector<std::string>& notes,
               const std::map<std::string, std::vector<topology::NodeId>>* groups = nullptr) {
  if (!out_opt.activity.empty() || !out_opt.lightpaths.empty() ||
      !out_opt.packet_trace.empty()) {
    throw core::InputError(fmt::format(
        "{}: a replayed trace has no activity series, lightpath log or packet trace; use "
        "--trace for its timeline",
        !out_opt.activity.empty() ? "--activity"
        : !out_opt.lightpaths.empty() ? "--lightpaths"
                                      : "--packet-trace"));
  }
  if (!out_opt.links.empty()) {
    throw core::InputError(
        "--links: a replayed Chakra trace keeps no per-link figures yet; give ASTRA-sim text "
        "workloads, or run the collectives with `collsim collective`");
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
  std::vector<std::string> group_notes;
  if (!used.empty()) ro.algorithms = sys.algorithms_for(used);
  if ((!opt.comm_group.empty() || (groups != nullptr && !groups->empty())) && !sys.flat.empty()) {
    // A hierarchical collective spans the platform; a group's runs the flat implementation.
    for (auto& [c, a] : ro.algorithms) {
      if (const auto f = sys.flat.find(c); f != sys.flat.end()) a = f->second;
    }
    group_notes.push_back(
        "--comm-group-configuration: on one dimension the collectives run the flat "
        "*-implementation (a group is not a dimension), so active-chunks-per-dimension does not "
        "bound their chunks");
  }
  ro.chunks = sys.chunks;
  ro.serial = !opt.concurrent;
  ro.data_deps_only = opt.data_deps_only;
  ro.compute = sys.compute;
  if (groups != nullptr) {
    ro.groups = *groups;  // --scale: the groups cloned and widened
  } else if (!opt.comm_group.empty()) {
    ro.groups = config::read_comm_groups(opt.comm_group, net.topology.num_npus());
  }
  if (!opt.remote_memory.empty()) {
    ro.memory = config::read_remote_memory(opt.remote_memory, net.topology.num_npus());
  }
  ro.endpoint_params.endpoint_delay = sys.endpoint_delay;
  ro.endpoint_params.message_overhead = net.message_delay;
  ro.endpoint_params.local_mem_gbps = sys.local_mem_gbps;
  if (!opt.max_time.empty()) {
    ro.max_time = core::parse_time(opt.max_time, "--max-time", core::Zero::Reject);
  }
  ro.timeline = !out_opt.trace.empty();
  if (opt.backend.find(',') != std::string::npos) {
    throw core::InputError(fmt::format(
        "--backend: a replayed trace runs one backend at a time, got \"{}\"", opt.backend));
  }
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
    scheduler::check_backend_work(backend, ro.backend_options, net.topology, e.messages, bytes,
                                  limits, what);
  }
  report::ReplayReport rep;
  rep.trace = opt.workload;
  rep.platform = std::filesystem::path(opt.network).stem().string();
  rep.backend = std::string(backend.name);
  rep.ranks = &traces;
  {
    // One point of a sweep (jobs/sweep.hpp), as every simulation of the CLI: a signal stops it
    // at the replay's next progress tick.
    jobs::SweepOptions so;
    so.interrupted = &InterruptMonitor::check;
    jobs::Sweep sweep(so);
    jobs::Point<jobs::ReplayResult> p;
    const std::string name = fmt::format("replaying {} on {}", opt.workload, net.topology.name());
    p.name = name;
    p.run = [&](jobs::PointRun& r) {
      jobs::ReplayOptions mine = ro;
      r.begin(name);
      mine.progress = [&r, &name](core::Time t, std::uint64_t events) {
        r.check();  // Ctrl-C during the replay
        r.tick(name, t, events);
      };
      return jobs::replay(net.topology, backend, traces, mine);
    };
    p.deliver = [&](jobs::ReplayResult&& r) { rep.result = std::move(r); };
    sweep.add(std::move(p));
    sweep.run();
  }
  for (std::size_t k = 0; k < rep.result.ranks.size(); ++k) {
    const auto& x = rep.result.ranks[k];
    print_sys_line(sys_stream(out_opt, out, err), k, x.finish, x.finish - x.compute,
                   opt.astra_stats);
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
  std::vector<std::string> all = notes;
  all.insert(all.end(), group_notes.begin(), group_notes.end());
  print_notes(err, out_opt, all, sys.notes);
  return 0;
}

// --scale K: the trace's N ranks as K x N, replayed (jobs/trace_scale.hpp).
int run_scaled(const AstraOptions& opt, const OutputOptions& out_opt, std::ostream& out,
               std::ostream& err, config::AstraNetwork& net, const config::AstraSystem& sys,
               const std::vector<std::string>& notes) {
  if (opt.scale == 0) throw core::InputError("--scale: must be >= 1, got 0");
  if (opt.scale == 1) throw core::InputError("--widen: widens groups over the clones of --scale K > 1");
  if (!workload::chakra::is_trace(opt.workload)) {
    throw core::InputError(fmt::format(
        "--scale: scales Chakra traces; {} is an ASTRA-sim 1.0 text workload", opt.workload));
  }
  std::vector<workload::chakra::RankTrace> traces;
  for (const std::string& f : workload::chakra::trace_files(opt.workload)) {
    traces.push_back(workload::chakra::read_et(f));
  }
  const std::uint32_t npus = net.topology.num_npus();
  if (traces.size() != 1 && traces.size() != npus) {
    throw core::InputError(fmt::format(
        "--scale: the trace has {} ranks (files) and the network {} NPUs; scaling starts from "
        "one file per NPU (or one file for all)",
        traces.size(), npus));
  }
  std::map<std::string, std::vector<topology::NodeId>> groups;
  if (!opt.comm_group.empty()) groups = config::read_comm_groups(opt.comm_group, npus);
  const std::uint32_t outer = net.dims.back().size;
  jobs::ScaledTrace scaled =
      jobs::scale_trace(traces, npus, groups, opt.scale, split_commas(opt.widen));
  traces.clear();
  net.topology = jobs::scale_platform(net.dims, opt.scale);
  if (!out_opt.quiet) {
    err << fmt::format(
        "collsim: --scale {}: the trace's {} ranks as {} ({} clones; outermost dimension {} -> "
        "{} NPUs); sends stay in their clone, world collectives span all {} ranks, {} group{} "
        "cloned, {} widened (--widen)\n",
        opt.scale, npus, net.topology.num_npus(), opt.scale, outer, net.dims.back().size,
        net.topology.num_npus(), scaled.cloned_groups, scaled.cloned_groups == 1 ? "" : "s",
        scaled.widened_groups);
  }
  return run_replay(opt, out_opt, out, err, net, sys, scaled.ranks,
                    fmt::format("--scale {}", opt.scale), notes, &scaled.groups);
}

}  // namespace

int run_astra(const AstraOptions& opt, const OutputOptions& out_opt, std::ostream& out,
              std::ostream& err) {
  config::AstraNetwork net = config::read_astra_network(opt.network, opt.si_gigabytes);
  config::AstraSystem sys = config::read_astra_system(opt.system, net.dims.size(), opt.compat);
  std::vector<std::string> notes = flag_notes(opt, !workload::chakra::is_trace(opt.workload));
  const auto scale_delay = [&opt](config::AstraSystem& s) {
    if (opt.injection_scale != 1) {
      s.endpoint_delay = core::Time::from_ps(static_cast<std::int64_t>(
          std::llround(static_cast<double>(s.endpoint_delay.ps) * opt.injection_scale)));
    }
  };
  scale_delay(sys);
  if (opt.scale != 1 || !opt.widen.empty()) return run_scaled(opt, out_opt, out, err, net, sys, notes);
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
    if (!reason.empty()) {
      return run_replay(opt, out_opt, out, err, net, sys, traces, reason, notes);
    }
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
  workload::Workload wl =
      workload::load_workload(opt.workload, net.topology, lo, "--workload-configuration");
  if (opt.compat && net.dims.size() > 1) {
    // ASTRA-sim's Sys::break_dimension: a model-parallel group that ends inside a dimension
    // splits it in two, and the system's lists repeat that dimension's implementation.
    const std::size_t dims = net.dims.size();
    const int split = config::split_for_group(net, wl.model_parallel_npus,
                                              "--workload-configuration " + opt.workload);
    if (split >= 0) {
      const auto d = static_cast<std::size_t>(split);
      notes.push_back(fmt::format(
          "the model-parallel group of {} NPUs splits dimension {} ({} NPUs) into {} x {}, as "
          "ASTRA-sim's Sys::break_dimension does; its implementation is repeated",
          wl.model_parallel_npus, split, net.dims[d].size * net.dims[d + 1].size,
          net.dims[d].size, net.dims[d + 1].size));
      sys = config::read_astra_system(opt.system, dims, opt.compat, split);
      scale_delay(sys);
      wl = workload::load_workload(opt.workload, net.topology, lo, "--workload-configuration");
    }
  }
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
  w.endpoint_params.endpoint_delay = sys.endpoint_delay;
  w.endpoint_params.message_overhead = net.message_delay;
  w.endpoint_params.local_mem_gbps = sys.local_mem_gbps;
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
  const bool stats = opt.astra_stats;
  const auto lines = [to, npus, stats](const jobs::TrainingRow& r) {
    for (std::uint32_t i = 0; i < npus; ++i)
      print_sys_line(to, i, r.result.total, r.result.exposed, stats);
  };
  // One run per backend of --backend, as `collective -b`.
  std::vector<TrainingWork> work;
  for (const network::BackendInfo* b : parse_backends(opt.backend)) {
    work.push_back(w);
    work.back().backend = b;
  }
  const int status = run_training_work(work, out_opt, out, err, lines);
  print_notes(err, out_opt, notes, sys.notes);
  return status;
}

}  // namespace collsim::cli
