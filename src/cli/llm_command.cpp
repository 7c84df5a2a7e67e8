// `collsim llm CONFIG.yaml ...`: one LLM training iteration per config (jobs/llm_iteration.hpp),
// reported as a table, CSV or JSON (report/llm_report.hpp); docs/llm.md.
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <ostream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "jobs/llm_iteration.hpp"
#include "report/llm_report.hpp"
#include "report/output_file.hpp"
#include "workload/llm_config.hpp"

namespace collsim::cli {

namespace {

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

int run_llm(const LlmOptions& opt, const OutputOptions& out_opt, std::ostream& out,
            std::ostream& err) {
  const report::Format format = report::parse_format(out_opt.format, "--format");
  if (!out_opt.trace.empty() && opt.configs.size() != 1) {
    throw core::InputError("--trace: give one config (the trace has a lane per pipeline stage)");
  }
  std::vector<report::LlmRow> rows;
  for (const std::string& path : opt.configs) {
    report::LlmRow row;
    row.config = path;
    row.setup = workload::load_llm_config(path);
    row.result = jobs::simulate_llm(row.setup, !out_opt.trace.empty());
    const auto& r = row.result;
    if (!out_opt.quiet) {
      err << fmt::format("collsim llm: {}: {} GPUs: {}\n", path, r.gpus, r.cluster);
    }
    if (r.memory.total() > r.gpu_memory) {
      const std::string msg = fmt::format(
          "{}: needs {:.1f} GiB per GPU (weights {:.1f}, gradients {:.1f}, optimizer {:.1f}, "
          "activations {:.1f}); the {} has {:.0f} GiB",
          path, r.memory.total() / 1073741824.0, r.memory.weights / 1073741824.0,
          r.memory.gradients / 1073741824.0, r.memory.optimizer / 1073741824.0,
          r.memory.activations / 1073741824.0, r.gpu, r.gpu_memory / 1073741824.0);
      if (opt.strict_memory) throw core::InputError("--strict-memory: " + msg);
      if (!out_opt.quiet) err << "collsim llm: warning: " << msg << '\n';
    }
    rows.push_back(std::move(row));
  }
  const std::string text = report::render_llm(rows, format);
  if (!out_opt.trace.empty()) write_file(out_opt.trace, report::render_llm_trace(rows[0]), "--trace");
  if (out_opt.output.empty()) {
    out << text;
  } else {
    write_file(out_opt.output, text, "--output");
  }
  return 0;
}

}  // namespace collsim::cli
