#include "report/writers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "report/output_file.hpp"

namespace collsim::report {

Format parse_format(std::string_view text, std::string_view field) {
  if (text == "table") return Format::Table;
  if (text == "csv") return Format::Csv;
  if (text == "json") return Format::Json;
  throw core::InputError(
      fmt::format("{}: unknown format \"{}\"{}; valid: table, csv, json", field, text,
                  core::did_you_mean_in(text, "table, csv, json")));
}

std::string figure_text(double v) {
  const double a = std::fabs(v);
  if (a < 1e15 && v == std::trunc(v)) return fmt::format("{:.0f}", v);
  if (a < 1e-4 || a >= 1e15 || !std::isfinite(v)) return fmt::format("{:.4g}", v);
  const int digits = std::max(0, 3 - static_cast<int>(std::floor(std::log10(a))));
  std::string s = fmt::format("{:.{}f}", v, digits);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string render(const std::vector<jobs::ResultRow>& rows, Format f) {
  switch (f) {
    case Format::Table:
      return render_table(rows);
    case Format::Csv:
      return render_csv(rows);
    case Format::Json:
      return render_json(rows);
  }
  return {};
}

namespace {

// Rows of one table block share platform, collective, chunks, backend and group (or, for a
// concurrent job, platform, backend and the job); the block's header names them.
bool same_block(const jobs::ResultRow& a, const jobs::ResultRow& b) {
  if (a.concurrent != b.concurrent) return false;
  if (!a.concurrent.empty()) {
    return a.platform == b.platform && a.backend == b.backend && a.endpoint == b.endpoint;
  }
  return a.platform == b.platform && a.collective == b.collective && a.chunks == b.chunks &&
         a.backend == b.backend && a.endpoint == b.endpoint && a.group == b.group;
}

// " on dim:0 (4 groups of 4 ranks)" for a job on rank groups; nothing for the whole platform.
std::string group_note(const jobs::ResultRow& r) {
  if (r.group == "all") return {};
  if (r.groups == 1) return fmt::format(" on {} ({} ranks)", r.group, r.ranks);
  return fmt::format(" on {} ({} groups of {} ranks at once)", r.group, r.groups, r.ranks);
}

// A concurrent job: one row per collective, with its time alone and the slowdown.
std::string concurrent_block(const std::vector<jobs::ResultRow>& rows, std::size_t first,
                             std::size_t last) {
  const jobs::ResultRow& h = rows[first];
  std::size_t what_w = 10, group_w = 5;
  for (std::size_t i = first; i <= last; ++i) {
    what_w = std::max(what_w, std::string(collective::to_string(rows[i].collective)).size() + 1 +
                                  rows[i].algorithm.size());
    group_w = std::max(group_w, rows[i].group.size());
  }
  std::string out =
      fmt::format("{} ({}, {} NPUs{}) {}: {} collectives at once on the {} backend\n",
                  h.platform, h.topology, h.npus, link_summary(h.dims), h.concurrent,
                  last - first + 1, h.backend);
  out += fmt::format("  {:<{}}  {:<{}}  {:>11}  {:>11}  {:>11}  {:>8}  {:>10}  {:>9}\n",
                     "collective", what_w, "group", group_w, "size", "time", "alone", "slowdown",
                     "busbw GB/s", "max link");
  for (std::size_t i = first; i <= last; ++i) {
    const jobs::ResultRow& r = rows[i];
    out += fmt::format(
        "  {:<{}}  {:<{}}  {:>11}  {:>11}  {:>11}  {:>7.2f}x  {:>10.3f}  {:>8.0f}%\n",
        std::string(collective::to_string(r.collective)) + " " + r.algorithm, what_w, r.group,
        group_w, core::to_string(r.size), core::to_string(r.time), core::to_string(r.alone_time),
        r.slowdown, r.busbw_GBps, 100 * r.max_link_utilization);
  }
  return out;
}

// For the last size of the block ending at row `last`: each algorithm's per-dimension utilization
// and busiest links, where the table's one-number summary hides where the traffic went.
std::string busiest_links_at_largest_size(const std::vector<jobs::ResultRow>& rows, std::size_t last,
                                          std::size_t name_w) {
  std::size_t first = last;
  while (first > 0 && rows[first - 1].size == rows[last].size &&
         same_block(rows[first - 1], rows[last])) {
    --first;
  }
  // Nothing to show when no row of the block lists links (reference rows never do).
  if (std::all_of(rows.begin() + static_cast<std::ptrdiff_t>(first),
                  rows.begin() + static_cast<std::ptrdiff_t>(last) + 1,
                  [](const jobs::ResultRow& r) { return r.busiest_links.empty(); })) {
    return {};
  }
  std::string out = fmt::format("  at {}: utilization per dimension, and the busiest links\n",
                                core::to_string(rows[last].size));
  for (std::size_t i = first; i <= last; ++i) {
    if (rows[i].messages == 0 && rows[i].busiest_links.empty()) continue;  // a reference row
    const std::string dims = dims_text(rows[i].dim_utilization, rows[i].bw_utilization);
    const std::string links = links_text(rows[i].busiest_links);
    std::string active;
    for (double a : rows[i].dim_activity) {
      active += fmt::format("{}{:.0f}%", active.empty() ? "  active " : " ", 100 * a);
    }
    out += fmt::format("  {:<{}}  dims {}{}  links {}\n", rows[i].algorithm, name_w, dims, active,
                       links);
    std::string metrics;
    for (const auto& [key, value] : rows[i].backend_metrics) {
      metrics += fmt::format("{}{} {}", metrics.empty() ? "" : ", ", key, figure_text(value));
    }
    if (!metrics.empty()) out += fmt::format("  {:<{}}  {}\n", "", name_w, metrics);
    std::string ep;  // figures of a modelled endpoint (`none`, the default, has only chunk queuing)
    for (const auto& [key, value] : rows[i].endpoint == "none"
                                        ? std::vector<std::pair<std::string, double>>{}
                                        : rows[i].endpoint_metrics) {
      ep += fmt::format("{}{} {}", ep.empty() ? "endpoint: " : ", ", key, figure_text(value));
    }
    if (!ep.empty()) out += fmt::format("  {:<{}}  {}\n", "", name_w, ep);
  }
  return out;
}

}  // namespace

TableStream::TableStream(std::size_t name_width) : name_w_(name_width) {}

std::size_t table_name_width(const std::vector<std::string>& labels) {
  std::size_t w = 9;  // "algorithm"
  for (const std::string& l : labels) w = std::max(w, l.size());
  return w;
}

std::string TableStream::close_block() {
  std::string out;
  if (block_.empty()) return out;
  if (!block_.front().concurrent.empty()) {
    if (any_) out += '\n';
    out += concurrent_block(block_, 0, block_.size() - 1);
  } else {
    out += busiest_links_at_largest_size(block_, block_.size() - 1, name_w_);
  }
  any_ = true;
  block_.clear();
  return out;
}

std::string TableStream::add(const jobs::ResultRow& r) {
  std::string out;
  if (!block_.empty() && !same_block(block_.back(), r)) out += close_block();
  const bool new_block = block_.empty();
  block_.push_back(r);
  if (!r.concurrent.empty()) return out;  // a concurrent block's widths need all its rows
  if (new_block) {
    if (any_) out += '\n';
    any_ = true;
    out += fmt::format("{} ({}, {} NPUs{}) {} on the {} backend{}, {} chunk{}{}\n", r.platform,
                       r.topology, r.npus, link_summary(r.dims),
                       collective::to_string(r.collective), r.backend,
                       r.endpoint == "none" ? "" : " with the " + r.endpoint + " endpoint",
                       r.chunks, r.chunks == 1 ? "" : "s", group_note(r));
    out += fmt::format("{:>11}  {:<{}}  {:>11}  {:>10}  {:>10}  {:>7}  {:>9}\n", "size",
                       "algorithm", name_w_, "time", "algbw GB/s", "busbw GB/s", "speedup",
                       "max link");
  }
  if (!r.skipped.empty()) {
    out += fmt::format("{:>11}  {:<{}}  skipped: {}\n", core::to_string(r.size), r.algorithm,
                       name_w_, r.skipped);
    return out;
  }
  // A link asked to carry more than its bandwidth allows can only happen on a backend that
  // ignores contention; mark it so nobody mistakes the row for a feasible time.
  const bool over = r.max_link_utilization > 1.0 + 1e-9;
  oversubscribed_ = oversubscribed_ || over;
  out += fmt::format("{:>11}  {:<{}}  {:>11}  {:>10.3f}  {:>10.3f}  {:>6.2f}x  {:>8.0f}%{}\n",
                     core::to_string(r.size), r.algorithm, name_w_, core::to_string(r.time),
                     r.algbw_GBps, r.busbw_GBps, r.speedup, 100 * r.max_link_utilization,
                     over ? " !" : "");
  return out;
}

std::string TableStream::finish() {
  std::string out = close_block();
  if (oversubscribed_) {
    out +=
        "\n! the busiest link carried more than its bandwidth allows in that time: the "
        "analytical\n  backend ignores contention, so those times are lower bounds.\n";
    oversubscribed_ = false;
  }
  return out;
}

std::string render_table(const std::vector<jobs::ResultRow>& rows) {
  std::vector<std::string> labels;
  labels.reserve(rows.size());
  for (const jobs::ResultRow& r : rows) labels.push_back(r.algorithm);
  TableStream table(table_name_width(labels));
  std::string out;
  for (const jobs::ResultRow& r : rows) out += table.add(r);
  return out + table.finish();
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

std::string dims_text(const std::vector<double>& dim_utilization, double bw_utilization) {
  std::string dims;
  for (double u : dim_utilization) {
    dims += fmt::format("{}{:.0f}%", dims.empty() ? "" : " ", 100 * u);
  }
  if (dim_utilization.size() > 1 && bw_utilization >= 0) {
    dims += fmt::format(" (avg {:.0f}%)", 100 * bw_utilization);
  }
  return dims;
}

std::string links_text(const std::vector<jobs::LinkUse>& busiest) {
  std::string links;
  for (const jobs::LinkUse& l : busiest) {
    const std::string what = l.kind == "link" ? fmt::format("{}->{}", l.src, l.dst)
                                              : fmt::format("NPU {} {}", l.src, l.kind.substr(4));
    links += fmt::format("{}{} {:.0f}%", links.empty() ? "" : ", ", what, 100 * l.utilization);
  }
  return links;
}

std::string link_summary(const std::vector<topology::DimSpec>& dims) {
  if (dims.empty()) return "";
  const auto one = [](const topology::DimSpec& d) {
    return fmt::format("{} {}", core::to_string(d.bandwidth), core::to_string(d.latency));
  };
  bool same = true;
  for (const topology::DimSpec& d : dims) same = same && one(d) == one(dims.front());
  if (same) return ", " + one(dims.front()) + " links";
  std::string out = ", links ";
  for (std::size_t i = 0; i < dims.size(); ++i) out += (i ? " / " : "") + one(dims[i]);
  return out;
}

std::string describe_dims(const std::vector<topology::DimSpec>& dims) {
  std::string out;
  for (const topology::DimSpec& d : dims) {
    out += fmt::format("{}{} {} x {} {} {} link{}", out.empty() ? "" : "; ", to_string(d.kind),
                       d.size, core::to_string(d.bandwidth), core::to_string(d.latency),
                       d.links_per_npu, d.links_per_npu == 1 ? "" : "s");
  }
  return out;
}

std::string csv_header() {
  return "platform,topology,npus,backend,collective,algorithm,chunks,size_bytes,time_ns,algbw_GBps,"
         "busbw_GBps,speedup,messages,bytes_sent,max_link_utilization,dim_utilization,group,"
         "groups,ranks,concurrent,alone_time_ns,slowdown,dims,dim_activity,bw_utilization,"
         "backend_metrics,endpoint,endpoint_metrics,note\n";
}

std::string csv_row(const jobs::ResultRow& r) {
  if (!r.skipped.empty()) {
    // The leading columns say what did not run; the figures are empty; the note says why.
    return fmt::format("{},{},{},{},{},{},{},{},,,,,,,,,{},{},{},,,,{},,,,{},,{}\n",
                       csv_field(r.platform), csv_field(r.topology), r.npus, csv_field(r.backend),
                       csv_field(collective::to_string(r.collective)), csv_field(r.algorithm),
                       r.chunks, r.size.count, csv_field(r.group), r.groups, r.ranks,
                       csv_field(describe_dims(r.dims)), csv_field(r.endpoint),
                       csv_field("skipped: " + r.skipped));
  }
  std::string dims;  // one value per dimension, ';'-separated so the CSV keeps its columns
  for (double u : r.dim_utilization) dims += fmt::format("{}{:.6f}", dims.empty() ? "" : ";", u);
  std::string active;
  for (double a : r.dim_activity) active += fmt::format("{}{:.6f}", active.empty() ? "" : ";", a);
  std::string metrics;  // the backend's summary, key=value;... (optical: peak wavelengths, waits)
  for (const auto& [key, value] : r.backend_metrics) {
    metrics += fmt::format("{}{}={:g}", metrics.empty() ? "" : ";", key, value);
  }
  std::string ep;
  for (const auto& [key, value] : r.endpoint_metrics) {
    ep += fmt::format("{}{}={:g}", ep.empty() ? "" : ";", key, value);
  }
  return fmt::format(
      "{},{},{},{},{},{},{},{},{:.3f},{:.6f},{:.6f},{:.6f},{},{},{:.6f},{},{},{},{},{},{:.3f},{:."
      "6f},"
      "{},{},{},{},{},{},\n",
      csv_field(r.platform), csv_field(r.topology), r.npus, csv_field(r.backend),
      csv_field(collective::to_string(r.collective)), csv_field(r.algorithm), r.chunks,
      r.size.count, r.time.ns(), r.algbw_GBps, r.busbw_GBps, r.speedup, r.messages, r.bytes_sent,
      r.max_link_utilization, dims, csv_field(r.group), r.groups, r.ranks, csv_field(r.concurrent),
      r.alone_time.ns(), r.slowdown, csv_field(describe_dims(r.dims)), active,
      r.bw_utilization >= 0 ? fmt::format("{:.6f}", r.bw_utilization) : std::string(),
      csv_field(metrics), csv_field(r.endpoint), csv_field(ep));
}

std::string render_activity_csv(const std::vector<jobs::ResultRow>& rows, core::Time window) {
  // One line per window and dimension: refuse, by the option, a window so small that the file
  // would not fit in memory (a 1 ps window on a 1 ms run is 10^9 lines per dimension).
  constexpr std::int64_t kMaxLines = 10'000'000;
  std::int64_t lines = 0;
  for (const jobs::ResultRow& r : rows) {
    const auto dims = static_cast<std::int64_t>(r.dim_busy.size());
    if (window.ps <= 0 || r.time.ps <= 0 || dims == 0) continue;
    const std::int64_t per_dim = (r.time.ps - 1) / window.ps + 1;
    lines += per_dim > kMaxLines ? kMaxLines + 1 : per_dim * dims;
    if (lines > kMaxLines) {
      const core::Time enough =
          core::Time::from_ps(r.time.ps / (kMaxLines / dims) + 1);
      throw core::InputError(fmt::format(
          "--activity-window: {} is too small: the {} run of {} ({}) has {} windows per "
          "dimension, and the --activity file takes at most {} lines; use a window of at least {}",
          core::to_string(window), core::to_string(r.time), r.algorithm, core::to_string(r.size),
          per_dim, kMaxLines, core::to_string(enough)));
    }
  }
  std::string out =
      "platform,backend,algorithm,size_bytes,dim,window_start_ns,window_end_ns,active_share\n";
  for (const jobs::ResultRow& r : rows) {
    const auto series = jobs::activity_series(r.dim_busy, r.time, window);
    for (std::size_t d = 0; d < series.size(); ++d) {
      for (std::size_t k = 0; k < series[d].size(); ++k) {
        const core::Time from = window * static_cast<std::int64_t>(k);
        const core::Time to = std::min(r.time, from + window);
        out += fmt::format("{},{},{},{},{},{:.3f},{:.3f},{:.6f}\n", csv_field(r.platform),
                           csv_field(r.backend), csv_field(r.algorithm), r.size.count, d, from.ns(),
                           to.ns(), series[d][k]);
      }
    }
  }
  return out;
}

std::string render_csv(const std::vector<jobs::ResultRow>& rows) {
  std::string out = csv_header();
  for (const jobs::ResultRow& r : rows) out += csv_row(r);
  return out;
}

std::string render_json(const std::vector<jobs::ResultRow>& rows) {
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const jobs::ResultRow& r : rows) {
    nlohmann::ordered_json j;
    j["platform"] = r.platform;
    j["topology"] = r.topology;
    j["npus"] = r.npus;
    j["backend"] = r.backend;
    j["collective"] = collective::to_string(r.collective);
    j["algorithm"] = r.algorithm;
    j["chunks"] = r.chunks;
    j["size_bytes"] = r.size.count;
    if (!r.skipped.empty()) {
      // What did not run, and why: no figures.
      j["group"] = r.group;
      j["endpoint"] = r.endpoint;
      j["skipped"] = r.skipped;
      results.push_back(std::move(j));
      continue;
    }
    j["time_ps"] = r.time.ps;
    j["time_ns"] = r.time.ns();
    j["algbw_GBps"] = r.algbw_GBps;
    j["busbw_GBps"] = r.busbw_GBps;
    j["speedup"] = r.speedup;
    j["messages"] = r.messages;
    j["bytes_sent"] = r.bytes_sent;
    j["max_link_utilization"] = r.max_link_utilization;
    j["dim_utilization"] = r.dim_utilization;
    if (r.bw_utilization >= 0) j["bw_utilization"] = r.bw_utilization;
    if (!r.dim_activity.empty()) j["dim_activity"] = r.dim_activity;
    j["group"] = r.group;
    j["groups"] = r.groups;
    j["ranks"] = r.ranks;
    if (!r.concurrent.empty()) {
      j["concurrent"] = r.concurrent;
      j["alone_time_ps"] = r.alone_time.ps;
      j["slowdown"] = r.slowdown;
    }
    nlohmann::ordered_json dims = nlohmann::ordered_json::array();
    for (const topology::DimSpec& d : r.dims) {
      dims.push_back({{"kind", to_string(d.kind)},
                      {"size", d.size},
                      {"bandwidth_Bps", d.bandwidth.bytes_per_s},
                      {"latency_ps", d.latency.ps},
                      {"links_per_npu", d.links_per_npu}});
    }
    j["dims"] = std::move(dims);
    nlohmann::ordered_json links = nlohmann::ordered_json::array();
    for (const jobs::LinkUse& u : r.busiest_links) {
      links.push_back({{"kind", u.kind},
                       {"link", u.link},
                       {"src", u.src},
                       {"dst", u.dst},
                       {"dim", u.dim},
                       {"bytes", u.bytes},
                       {"busy_ns", u.busy.ns()},
                       {"utilization", u.utilization}});
    }
    j["busiest_links"] = std::move(links);
    nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
    for (const auto& [key, value] : r.backend_metrics) metrics[key] = value;
    j["backend_metrics"] = std::move(metrics);
    j["endpoint"] = r.endpoint;
    nlohmann::ordered_json ep = nlohmann::ordered_json::object();
    for (const auto& [key, value] : r.endpoint_metrics) ep[key] = value;
    j["endpoint_metrics"] = std::move(ep);
    results.push_back(std::move(j));
  }
  nlohmann::ordered_json doc;
  doc["units"] = {{"time_ps", "picoseconds"},
                  {"time_ns", "nanoseconds"},
                  {"algbw_GBps", "10^9 bytes/s"},
                  {"busbw_GBps", "10^9 bytes/s"},
                  {"size_bytes", "bytes"},
                  {"utilization", "bytes carried / (bandwidth x collective time)"}};
  doc["results"] = std::move(results);
  return doc.dump(2) + "\n";
}

void write_file_atomically(const std::string& path, const std::string& content,
                           std::string_view option) {
  OutputFile f(path, option);
  f.write(content);
  f.commit();
}

}  // namespace collsim::report
