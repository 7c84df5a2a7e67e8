#include "report/llm_breakdown.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace collsim::report {

namespace {

using jobs::KernelClass;
using jobs::kKernelClasses;

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

std::string_view name(std::size_t i) { return jobs::to_string(static_cast<KernelClass>(i)); }

}  // namespace

std::string render_llm_breakdown(const std::vector<LlmBreakdownRow>& rows, Format f) {
  if (f == Format::Csv) {
    std::string out = "config,stage,class,time_ms,share\n";
    for (const LlmBreakdownRow& r : rows) {
      for (std::size_t s = 0; s < r.stages.size(); ++s) {
        const double total = r.stages[s].total();
        for (std::size_t i = 0; i < kKernelClasses; ++i) {
          const double t = r.stages[s].seconds[i];
          out += fmt::format("{},{},{},{:.3f},{:.4f}\n", csv_cell(r.config), s, name(i), t * 1e3,
                             total > 0 ? t / total : 0.0);
        }
      }
    }
    return out;
  }
  if (f == Format::Json) {
    nlohmann::ordered_json runs = nlohmann::ordered_json::array();
    for (const LlmBreakdownRow& r : rows) {
      nlohmann::ordered_json stages = nlohmann::ordered_json::array();
      for (const jobs::StageKernelTime& st : r.stages) {
        nlohmann::ordered_json j;
        for (std::size_t i = 0; i < kKernelClasses; ++i) j[std::string(name(i))] = st.seconds[i] * 1e3;
        stages.push_back({{"time_ms", j}, {"total_ms", st.total() * 1e3}, {"kernels", st.kernels}});
      }
      runs.push_back({{"config", r.config},
                      {"iteration_time_ms", r.iteration_ms},
                      {"critical_stage", r.critical_stage},
                      {"stages", std::move(stages)}});
    }
    nlohmann::ordered_json doc;
    doc["units"] = {{"*_ms", "milliseconds of one stage's compute over one iteration"}};
    doc["runs"] = std::move(runs);
    return doc.dump(2) + "\n";
  }
  std::string out;
  for (const LlmBreakdownRow& r : rows) {
    out += fmt::format("{}: compute per kernel class and stage over one iteration of {:.3f} ms "
                       "(critical stage {})\n",
                       r.config, r.iteration_ms, r.critical_stage);
    for (std::size_t s = 0; s < r.stages.size(); ++s) {
      const double total = r.stages[s].total();
      out += fmt::format("  stage {}: {:.3f} ms in {} kernels\n", s, total * 1e3,
                         r.stages[s].kernels);
      for (std::size_t i = 0; i < kKernelClasses; ++i) {
        const double t = r.stages[s].seconds[i];
        if (t <= 0) continue;
        out += fmt::format("    {:<12}{:>12.3f} ms  {:5.1f}%\n", name(i), t * 1e3,
                           total > 0 ? 100 * t / total : 0.0);
      }
    }
  }
  return out;
}

}  // namespace collsim::report
