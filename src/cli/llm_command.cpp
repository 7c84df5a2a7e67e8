// `collsim llm CONFIG.yaml ...`: one LLM training iteration per config (jobs/llm_iteration.hpp),
// reported as a table, CSV or JSON (report/llm_report.hpp); docs/llm.md.
#include <fmt/format.h>

#include <algorithm>

#include <cstdio>
#include <fstream>
#include <ostream>

#include "cli/backend_flags.hpp"
#include "cli/commands.hpp"
#include "cli/export_chakra.hpp"
#include "cli/llm_runs.hpp"
#include "cli/interrupt.hpp"
#include "cli/sweep_progress.hpp"
#include "compute/gpu_specs.hpp"
#include "core/error.hpp"
#include "jobs/llm_cost.hpp"
#include "jobs/llm_iteration.hpp"
#include "jobs/llm_search.hpp"
#include "jobs/sweep.hpp"
#include "report/llm_breakdown.hpp"
#include "report/llm_report.hpp"
#include "report/writers.hpp"
#include "workload/llm_config.hpp"

namespace collsim::cli {

namespace {

// A search's row label: the split, prefixed by the config when several are searched.
std::string opts_label(const std::string& path, std::size_t configs, const std::string& split) {
  return configs > 1 ? path + ": " + split : split;
}

}  // namespace

int run_llm_runs(const std::vector<LlmScenarioRun>& runs, const LlmOptions& opt,
                 const OutputOptions& out_opt, std::ostream& out, std::ostream& err) {
  const report::Format format = report::parse_format(out_opt.format, "--format");
  if (!out_opt.activity.empty()) {
    throw core::InputError("--activity: LLM runs have no hierarchical-collective activity series");
  }
  if (!out_opt.lightpaths.empty()) {
    throw core::InputError("--lightpaths: LLM runs write no lightpath log");
  }
  if (!out_opt.packet_trace.empty()) {
    throw core::InputError(
        "--packet-trace: an LLM iteration runs many small simulations; trace the packets of one "
        "collective with `collsim collective -b packet`");
  }
  if (!out_opt.links.empty()) {
    throw core::InputError(
        "--links: not written for LLM iterations yet (their report splits time by parallel "
        "dimension); use `collsim collective` or `collsim run` on the platform");
  }
  if (!out_opt.export_chakra.empty()) {
    check_export_prefix(out_opt.export_chakra);
    if (runs.size() != 1) {
      throw core::InputError(fmt::format(
          "--export-chakra: writes one run's workload; this has {} runs (give one config, "
          "platform and backend)",
          runs.size()));
    }
  }
  workload::Graph exported;  // --export-chakra: the graph of the one run
  if (!out_opt.trace.empty() && runs.size() != 1) {
    throw core::InputError("--trace: give one config (the trace has a lane per pipeline stage)");
  }
  const std::uint64_t max_work = parse_limits(out_opt.max_messages, "").max_messages;
  // Each config is an independent point (jobs/sweep.hpp): on --jobs threads, its notes and the
  // rows in input order, the same bytes as one thread.
  jobs::SweepOptions so;
  so.jobs = out_opt.trace.empty() ? jobs::resolve_jobs(out_opt.jobs) : 1;
  so.interrupted = &InterruptMonitor::check;
  SweepLine line(err, progress_wanted(out_opt, err));  // with --jobs: configs done and running
  so.progress = &line;
  jobs::Sweep sweep(so);
  std::vector<report::LlmRow> rows;
  for (const LlmScenarioRun& run : runs) {
    jobs::Point<report::LlmRow> p;
    p.name = run.name;
    p.run = [&](jobs::PointRun& r) {
      r.begin(run.name);
      report::LlmRow row;
      row.config = run.name;
      row.setup = run.config;
      if (!run.config.complete) {
        throw core::InputError(fmt::format(
            "{}: names the job (system.gpus) but not its split (tp, pp, micro_batch); run it with "
            "--search",
            run.name));
      }
      jobs::LlmMachine machine{run.topology, run.platform, run.backend, run.backend_options};
      jobs::LlmRunOptions lo;
      lo.keep_timeline = !out_opt.trace.empty();
      lo.machine = run.topology ? &machine : nullptr;
      lo.max_work = max_work;
      if (!out_opt.export_chakra.empty()) {  // every rank, as the traces will have them
        lo.all_ranks = true;
        lo.graph = &exported;
      }
      lo.progress = [&r, &run](core::Time t, std::uint64_t events) {
        r.check();  // Ctrl-C during the iteration
        r.tick(run.name, t, events);
      };
      row.result = jobs::simulate_llm(row.setup, lo);
      if (row.setup.system.gpu_memory) row.result.gpu_memory = jobs::llm_gpu_memory(row.setup);
      return row;
    };
    p.deliver = [&](report::LlmRow&& row) {
      line.clear();
      const auto& r = row.result;
      if (!out_opt.quiet) {
        err << fmt::format("collsim llm: {}: {} GPUs: {}\n", run.name, r.gpus, r.cluster);
      }
      if (r.memory.total() > r.gpu_memory) {
        constexpr double kGiB = 1073741824.0;
        const std::string msg = fmt::format(
            "{}: needs {:.1f} GiB per GPU (weights {:.1f}, gradients {:.1f}, optimizer {:.1f}, "
            "activations {:.1f}); the {} has {:.0f} GiB",
            run.name, r.memory.total() / kGiB, r.memory.weights / kGiB,
            r.memory.gradients / kGiB, r.memory.optimizer / kGiB, r.memory.activations / kGiB,
            r.gpu, r.gpu_memory / kGiB);
        if (opt.strict_memory) throw core::InputError("--strict-memory: " + msg);
        if (!out_opt.quiet) err << "collsim llm: warning: " << msg << '\n';
      }
      rows.push_back(std::move(row));
    };
    sweep.add(std::move(p));
  }
  try {
    sweep.run();
    line.clear();
  } catch (const core::Interrupted&) {
    // Nothing lost: the iterations that finished, on standard output.
    line.clear();
    if (!rows.empty()) out << report::render_llm(rows, format);
    throw;
  }
  if (!out_opt.export_chakra.empty()) {
    const LlmScenarioRun& run = runs[0];
    const auto& c = run.config;
    const topology::Topology topo =
        run.topology ? *run.topology
                     : jobs::llm_cluster(c, compute::find_gpu(c.system.gpu, "system.gpu")).topology;
    export_chakra(out_opt.export_chakra, exported, topo, err, out_opt.quiet);
    if (!out_opt.quiet) {
      err << fmt::format(
          "collsim: --export-chakra: run it again with: collsim train --workload {} --topology "
          "{} -a {} -b {}\n",
          out_opt.export_chakra, rows[0].result.topology, c.system.algorithm,
          run.backend ? run.backend->name : c.system.backend);
    }
  }
  std::string text;
  if (opt.breakdown) {
    std::vector<report::LlmBreakdownRow> bd;
    for (const report::LlmRow& row : rows) {
      const compute::GpuSpec& gpu = compute::find_gpu(row.setup.system.gpu, "system.gpu");
      const jobs::LlmCosts k = jobs::llm_costs(row.setup, gpu, row.result.matmul_efficiency);
      bd.push_back({row.config, jobs::llm_stage_breakdown(row.setup, k),
                    row.result.critical_stage, row.result.iteration.seconds() * 1e3});
    }
    text = report::render_llm_breakdown(bd, format);
  } else {
    text = report::render_llm(rows, format);
  }
  if (!out_opt.trace.empty()) {
    report::write_file_atomically(out_opt.trace, report::render_llm_trace(rows[0]), "--trace");
  }
  if (out_opt.output.empty()) {
    out << text;
  } else {
    report::write_file_atomically(out_opt.output, text, "--output");
  }
  return 0;
}

namespace {

// --search: each config's job ranked (jobs/llm_search.hpp), its splits simulated on --jobs
// threads in the search's fixed batches.
int run_llm_search(const LlmOptions& opt, const OutputOptions& out_opt, std::ostream& out,
                   std::ostream& err) {
  const report::Format format = report::parse_format(out_opt.format, "--format");
  if (opt.breakdown) throw core::InputError("--breakdown: give one split, not --search");
  if (!out_opt.trace.empty()) throw core::InputError("--trace: give one split, not --search");
  const std::uint64_t max_work = parse_limits(out_opt.max_messages, "").max_messages;
  jobs::SweepOptions po;
  po.jobs = jobs::resolve_jobs(out_opt.jobs);
  po.interrupted = &InterruptMonitor::check;
  std::vector<report::LlmRow> rows;
  for (const std::string& path : opt.configs) {
    workload::LlmConfig job = workload::load_llm_config(path);
    if (job.system.gpus == 0) job.system.gpus = job.parallel.gpus();
    jobs::LlmSearchOptions so;
    so.top = opt.top;
    so.exhaustive = opt.exhaustive;
    so.run_batch = [&](const std::vector<workload::LlmConfig>& batch) {
      std::vector<jobs::LlmResult> res(batch.size());
      jobs::Sweep sweep(po);  // one batch: its splits on --jobs threads
      for (std::size_t i = 0; i < batch.size(); ++i) {
        jobs::Point<jobs::LlmResult> pt;
        pt.name = jobs::llm_split_label(batch[i].parallel);
        pt.run = [&, i](jobs::PointRun& r) {
          jobs::LlmRunOptions lo;
          lo.max_work = max_work;
          lo.progress = [&r](core::Time, std::uint64_t) { r.check(); };
          lo.each_kind_once = true;  // ranking; the rows shown are simulated in full below
          return jobs::simulate_llm(batch[i], lo);
        };
        pt.deliver = [&res, i](jobs::LlmResult&& x) { res[i] = std::move(x); };
        sweep.add(std::move(pt));
      }
      sweep.run();
      return res;
    };
    jobs::LlmSearchResult r = jobs::search_llm(job, so);
    // The best splits simulated in full (every collective), best first by that time.
    {
      std::vector<workload::LlmConfig> best;
      for (const jobs::LlmCandidate& c : r.top) best.push_back(c.config);
      jobs::Sweep sweep(po);
      for (std::size_t i = 0; i < best.size(); ++i) {
        jobs::Point<jobs::LlmResult> pt;
        pt.name = r.top[i].label;
        pt.run = [&, i](jobs::PointRun& pr) {
          jobs::LlmRunOptions lo;
          lo.max_work = max_work;
          lo.progress = [&pr](core::Time, std::uint64_t) { pr.check(); };
          return jobs::simulate_llm(best[i], lo);
        };
        pt.deliver = [&r, i](jobs::LlmResult&& x) { r.top[i].result = std::move(x); };
        sweep.add(std::move(pt));
      }
      sweep.run();
      std::stable_sort(r.top.begin(), r.top.end(),
                       [](const jobs::LlmCandidate& a, const jobs::LlmCandidate& b) {
                         return a.result.iteration < b.result.iteration;
                       });
    }
    if (!out_opt.quiet) {
      err << fmt::format(
          "collsim llm: {}: search: {} splits of {} on {} GPUs, {} fit in memory, {} simulated{}\n",
          path, r.splits, job.model.name, job.system.gpus, r.fit, r.simulated,
          opt.exhaustive ? " (exhaustive)" : "");
    }
    for (const jobs::LlmCandidate& c : r.top) {
      rows.push_back({opts_label(path, opt.configs.size(), c.label), c.config, c.result});
    }
  }
  const std::string text = report::render_llm(rows, format);
  if (out_opt.output.empty()) {
    out << text;
  } else {
    report::write_file_atomically(out_opt.output, text, "--output");
  }
  return 0;
}

}  // namespace

int run_llm(const LlmOptions& opt, const OutputOptions& out_opt, std::ostream& out,
            std::ostream& err) {
  report::parse_format(out_opt.format, "--format");  // fail before simulating anything
  if (opt.search) return run_llm_search(opt, out_opt, out, err);
  if (opt.exhaustive) throw core::InputError("--exhaustive: only with --search");
  std::vector<LlmScenarioRun> runs;
  for (const std::string& path : opt.configs) {
    runs.push_back(LlmScenarioRun{path, workload::load_llm_config(path), nullptr, "", nullptr, {}});
  }
  return run_llm_runs(runs, opt, out_opt, out, err);
}

}  // namespace collsim::cli
