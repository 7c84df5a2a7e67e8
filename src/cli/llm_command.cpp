// `collsim llm CONFIG.yaml ...`: one LLM training iteration per config (jobs/llm_iteration.hpp),
// reported as a table, CSV or JSON (report/llm_report.hpp); docs/llm.md.
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <ostream>

#include "cli/backend_flags.hpp"
#include "cli/commands.hpp"
#include "cli/llm_runs.hpp"
#include "cli/parallel_points.hpp"
#include "core/error.hpp"
#include "compute/gpu_specs.hpp"
#include "jobs/llm_cost.hpp"
#include "jobs/llm_iteration.hpp"
#include "jobs/llm_search.hpp"
#include "report/llm_breakdown.hpp"
#include "report/llm_report.hpp"
#include "report/output_file.hpp"
#include "workload/llm_config.hpp"

namespace collsim::cli {

namespace {

// A search's row label: the split, prefixed by the config when several are searched.
std::string opts_label(const std::string& path, std::size_t configs, const std::string& split) {
  return configs > 1 ? path + ": " + split : split;
}

void write_file(const std::string& path, const std::string& text, std::string_view option) {
  const std::string temp = report::make_temp_beside(path, option);
  {
    std::ofstream f(temp, std::ios::binary);
    f << text;
    if (!f) {
      std::remove(temp.c_str());
      throw core::InputError(fmt::format("{}: cannot write \"{}\"", option, path));
    }
  }
  report::commit_temp(temp, path, option);
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
        "--links: an LLM iteration times each kind of collective in its own simulation of one "
        "group, so no run covers every link; use `collsim collective` or `collsim run` on the "
        "platform");
  }
  if (!out_opt.trace.empty() && runs.size() != 1) {
    throw core::InputError("--trace: give one config (the trace has a lane per pipeline stage)");
  }
  const std::uint64_t max_work = parse_limits(out_opt.max_messages, "").max_messages;
  // Each config is an independent point: on --jobs threads (cli/parallel_points.hpp), its notes
  // and the rows in input order, the same bytes as one thread.
  std::vector<report::LlmRow> done(runs.size());
  std::vector<report::LlmRow> rows;
  PointsOptions po;
  po.jobs = out_opt.trace.empty() ? resolve_jobs(out_opt.jobs) : 1;
  const auto simulate = [&](std::size_t i, const PointStop& stop) {
    stop.check(i);
    const LlmScenarioRun& run = runs[i];
    report::LlmRow& row = done[i];
    row.config = run.name;
    row.setup = run.config;
    if (!run.config.complete) {
      throw core::InputError(fmt::format(
          "{}: names the job (system.gpus) but not its split (tp, pp, micro_batch); run it with "
          "--search",
          run.name));
    }
    jobs::LlmMachine machine{run.topology, run.platform, run.backend, run.backend_options};
    row.result = jobs::simulate_llm(row.setup, !out_opt.trace.empty(),
                                    run.topology ? &machine : nullptr, max_work);
    if (row.setup.system.gpu_memory) row.result.gpu_memory = jobs::llm_gpu_memory(row.setup);
  };
  const auto deliver = [&](std::size_t i) {
    report::LlmRow row = std::move(done[i]);
    const auto& r = row.result;
    if (!out_opt.quiet) {
      err << fmt::format("collsim llm: {}: {} GPUs: {}\n", runs[i].name, r.gpus, r.cluster);
    }
    if (r.memory.total() > r.gpu_memory) {
      constexpr double kGiB = 1073741824.0;
      const std::string msg = fmt::format(
          "{}: needs {:.1f} GiB per GPU (weights {:.1f}, gradients {:.1f}, optimizer {:.1f}, "
          "activations {:.1f}); the {} has {:.0f} GiB",
          runs[i].name, r.memory.total() / kGiB, r.memory.weights / kGiB,
          r.memory.gradients / kGiB, r.memory.optimizer / kGiB, r.memory.activations / kGiB,
          r.gpu, r.gpu_memory / kGiB);
      if (opt.strict_memory) throw core::InputError("--strict-memory: " + msg);
      if (!out_opt.quiet) err << "collsim llm: warning: " << msg << '\n';
    }
    rows.push_back(std::move(row));
  };
  run_points(runs.size(), po, simulate, deliver);
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
  if (!out_opt.trace.empty()) write_file(out_opt.trace, report::render_llm_trace(rows[0]), "--trace");
  if (out_opt.output.empty()) {
    out << text;
  } else {
    write_file(out_opt.output, text, "--output");
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
  PointsOptions po;
  po.jobs = resolve_jobs(out_opt.jobs);
  std::vector<report::LlmRow> rows;
  for (const std::string& path : opt.configs) {
    workload::LlmConfig job = workload::load_llm_config(path);
    if (job.system.gpus == 0) job.system.gpus = job.parallel.gpus();
    jobs::LlmSearchOptions so;
    so.top = opt.top;
    so.exhaustive = opt.exhaustive;
    so.run_batch = [&](const std::vector<workload::LlmConfig>& batch) {
      std::vector<jobs::LlmResult> res(batch.size());
      run_points(
          batch.size(), po,
          [&](std::size_t i, const PointStop& stop) {
            stop.check(i);
            res[i] = jobs::simulate_llm(batch[i], false, nullptr, max_work);
          },
          [](std::size_t) {});
      return res;
    };
    const jobs::LlmSearchResult r = jobs::search_llm(job, so);
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
    write_file(out_opt.output, text, "--output");
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
