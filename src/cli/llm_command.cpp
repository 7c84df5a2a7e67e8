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
#include "jobs/llm_iteration.hpp"
#include "report/llm_report.hpp"
#include "report/writers.hpp"
#include "workload/llm_config.hpp"

namespace collsim::cli {

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
    jobs::LlmMachine machine{run.topology, run.platform, run.backend, run.backend_options};
    row.result = jobs::simulate_llm(row.setup, !out_opt.trace.empty(),
                                    run.topology ? &machine : nullptr, max_work);
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
  const std::string text = report::render_llm(rows, format);
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

int run_llm(const LlmOptions& opt, const OutputOptions& out_opt, std::ostream& out,
            std::ostream& err) {
  report::parse_format(out_opt.format, "--format");  // fail before simulating anything
  std::vector<LlmScenarioRun> runs;
  for (const std::string& path : opt.configs) {
    runs.push_back(LlmScenarioRun{path, workload::load_llm_config(path), nullptr, "", nullptr, {}});
  }
  return run_llm_runs(runs, opt, out_opt, out, err);
}

}  // namespace collsim::cli
