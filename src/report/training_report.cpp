#include "report/training_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "report/writers.hpp"

namespace collsim::report {
namespace {

double ns_value(core::Time t) { return static_cast<double>(t.ps) / 1000.0; }

std::string pct(core::Time part, core::Time whole) {
  return whole.ps > 0 ? fmt::format("{:.1f}%", 100.0 * static_cast<double>(part.ps) /
                                                   static_cast<double>(whole.ps))
                      : "-";
}

}  // namespace

std::string render_training(const std::vector<jobs::TrainingRow>& rows, Format f, bool layers) {
  switch (f) {
    case Format::Csv:
      return render_training_csv(rows);
    case Format::Json:
      return render_training_json(rows);
    case Format::Table:
      break;
  }
  return render_training_table(rows, layers);
}

std::string render_training_csv(const std::vector<jobs::TrainingRow>& rows) {
  std::string out =
      "workload,platform,npus,backend,algorithm,overlap,order,iterations,layer,compute_ns,"
      "comm_ns,exposed_ns,iteration_ns,forward_compute_ns,exposed_weight_gradient_ns,endpoint\n";
  for (const jobs::TrainingRow& r : rows) {
    const std::string head =
        fmt::format("{},{},{},{},{},{},{},{}", csv_field(r.workload), csv_field(r.platform), r.npus,
                    csv_field(r.backend), csv_field(r.algorithm), r.overlap, r.order, r.iterations);
    const double n = r.iterations;
    for (const auto& l : r.result.layers) {
      out += fmt::format("{},{},{:.3f},{:.3f},{:.3f},,,,{}\n", head, csv_field(l.name),
                         ns_value(l.compute) / n, ns_value(l.comm) / n, ns_value(l.exposed) / n,
                         csv_field(r.endpoint));
    }
    out += fmt::format("{},total,{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{}\n", head,
                       ns_value(r.result.compute) / n, ns_value(r.result.comm) / n,
                       ns_value(r.result.exposed) / n, ns_value(r.result.total) / n,
                       ns_value(r.result.compute_forward) / n,
                       ns_value(r.result.exposed_weight_gradient) / n, csv_field(r.endpoint));
  }
  return out;
}

std::string render_training_table(const std::vector<jobs::TrainingRow>& rows, bool layers) {
  std::string out;
  for (const jobs::TrainingRow& r : rows) {
    const auto& t = r.result;
    const core::Time iter{t.total.ps / r.iterations};
    out += fmt::format(
        "{} on {} ({} NPUs{}), {} backend{}, {}, overlap {}, order {}, {} iteration{}\n",
        r.workload, r.platform, r.npus, link_summary(r.dims), r.backend,
        r.endpoint == "none" ? "" : ", " + r.endpoint + " endpoint", r.algorithm, r.overlap,
        r.order, r.iterations, r.iterations == 1 ? "" : "s");
    std::string ep;
    for (const auto& [key, value] : t.endpoint_metrics) {
      ep += fmt::format("{}{} {}", ep.empty() ? "" : ", ", key, figure_text(value));
    }
    auto per = [&](core::Time x) { return core::to_string(core::Time{x.ps / r.iterations}); };
    out +=
        fmt::format("  iteration        {:>12}  = compute {} + exposed communication {} ({})\n",
                    core::to_string(iter), per(t.compute), per(t.exposed), pct(t.exposed, t.total));
    out += fmt::format("  compute          forward {}, back-propagation and updates {}\n",
                       per(t.compute_forward), per(t.compute - t.compute_forward));
    out += fmt::format(
        "  exposed          waiting for weight gradients (data parallel) {}, for "
        "activations and input gradients (model parallel) {}\n",
        per(t.exposed_weight_gradient), per(t.exposed - t.exposed_weight_gradient));
    out += fmt::format(
        "  communication    {:>12}  running ({} of the time), {} collectives, {} messages\n",
        core::to_string(core::Time{t.comm.ps / r.iterations}), pct(t.comm, t.total), t.collectives,
        t.messages);
    if (!r.dim_utilization.empty()) {  // over the whole run, compute time included
      out += fmt::format("  links            dims {}  busiest {}\n",
                         dims_text(r.dim_utilization, r.bw_utilization),
                         links_text(r.busiest_links));
    }
    if (!ep.empty()) out += fmt::format("  endpoint         {}\n", ep);
    if (!layers) {
      out += '\n';
      continue;
    }
    out += fmt::format("  {:<28} {:>12} {:>12} {:>12}   (per iteration)\n", "layer", "compute",
                       "comm", "exposed");
    for (const auto& l : t.layers) {
      out += fmt::format("  {:<28} {:>12} {:>12} {:>12}\n", l.name, per(l.compute), per(l.comm),
                         per(l.exposed));
    }
    out += '\n';
  }
  if (rows.size() > 1) {
    bool platforms = false, workloads = false;  // name them when they differ
    for (const jobs::TrainingRow& r : rows) {
      platforms = platforms || r.platform != rows.front().platform;
      workloads = workloads || r.workload != rows.front().workload;
    }
    auto label = [&](const jobs::TrainingRow& r) {
      return fmt::format("{}{}{} / {}{} / {}", workloads ? r.workload + " / " : "",
                         platforms ? r.platform + " / " : "", r.algorithm, r.backend,
                         r.endpoint == "none" ? "" : " " + r.endpoint, r.overlap);
    };
    std::size_t width = 36;
    for (const jobs::TrainingRow& r : rows) width = std::max(width, label(r).size());
    out += fmt::format("summary (per iteration; speedup over the first run of the same {})\n",
                       workloads || platforms ? "workload and platform" : "workload");
    out += fmt::format("  {:<{}} {:>12} {:>12} {:>12} {:>9}\n",
                       fmt::format("{}{}algorithm / backend / overlap",
                                   workloads ? "workload / " : "", platforms ? "platform / " : ""),
                       width, "iteration", "exposed", "comm", "speedup");
    for (const jobs::TrainingRow& r : rows) {
      const auto& t = r.result;
      const auto first = std::find_if(rows.begin(), rows.end(), [&](const jobs::TrainingRow& x) {
        return x.workload == r.workload && x.platform == r.platform;
      });
      const double base = static_cast<double>(first->result.total.ps);
      out += fmt::format("  {:<{}} {:>12} {:>12} {:>12} {:>8.2f}x\n", label(r), width,
                         core::to_string(core::Time{t.total.ps / r.iterations}),
                         core::to_string(core::Time{t.exposed.ps / r.iterations}),
                         core::to_string(core::Time{t.comm.ps / r.iterations}),
                         base / static_cast<double>(t.total.ps));
    }
  }
  return out;
}

std::string render_training_json(const std::vector<jobs::TrainingRow>& rows) {
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const jobs::TrainingRow& r : rows) {
    const auto& t = r.result;
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (const auto& l : t.layers) {
      layers.push_back({{"layer", l.name},
                        {"compute_ns", ns_value(l.compute)},
                        {"comm_ns", ns_value(l.comm)},
                        {"exposed_ns", ns_value(l.exposed)}});
    }
    std::vector<double> ends;
    for (core::Time e : t.iteration_end) ends.push_back(ns_value(e));
    runs.push_back({{"workload", r.workload},
                    {"platform", r.platform},
                    {"npus", r.npus},
                    {"backend", r.backend},
                    {"endpoint", r.endpoint},
                    {"algorithm", r.algorithm},
                    {"overlap", r.overlap},
                    {"order", r.order},
                    {"iterations", r.iterations},
                    {"total_ns", ns_value(t.total)},
                    {"iteration_ns", ns_value(t.total) / r.iterations},
                    {"compute_ns", ns_value(t.compute)},
                    {"forward_compute_ns", ns_value(t.compute_forward)},
                    {"exposed_ns", ns_value(t.exposed)},
                    {"exposed_weight_gradient_ns", ns_value(t.exposed_weight_gradient)},
                    {"comm_ns", ns_value(t.comm)},
                    {"iteration_end_ns", ends},
                    {"collectives", t.collectives},
                    {"messages", t.messages},
                    {"bytes", t.bytes},
                    {"max_link_utilization", r.max_link_utilization},
                    {"dim_utilization", r.dim_utilization},
                    {"layers", layers}});
    if (r.bw_utilization >= 0) runs.back()["bw_utilization"] = r.bw_utilization;
  }
  // One envelope as `collective --format json`: the units, then the runs.
  nlohmann::ordered_json doc;
  doc["units"] = {{"*_ns", "nanoseconds (totals over the run's iterations; iteration_ns: one "
                           "iteration)"},
                  {"bytes", "bytes"},
                  {"messages", "messages"},
                  {"*utilization", "share of the links' bandwidth x the run's time (0-1)"}};
  doc["runs"] = std::move(runs);
  return doc.dump(2) + "\n";
}

}  // namespace collsim::report
