#include "cli/run_jobs.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <algorithm>
#include <memory>
#include <optional>
#include <ostream>

#include "cli/backend_flags.hpp"
#include "cli/horizon_check.hpp"
#include "cli/interrupt.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "report/lightpath_log.hpp"
#include "report/packet_trace_log.hpp"
#include "report/trace.hpp"
#include "report/writers.hpp"
#include "scheduler/group_symmetry.hpp"
#include "scheduler/limits.hpp"

namespace collsim::cli {
namespace {

// What each run simulates beyond the job estimate (the packet backend's packets or flits), against
// --max-messages before anything runs: messages from the algorithms' closed forms.
// Staged collectives count one group per dimension only where the run will let one group stand
// for all (scheduler/group_symmetry.hpp); with a trace, a backend or endpoint that shares
// resources, flat members beside them or a topology that fails the check, every group is counted.
// Returns the messages of all the work's runs (closed forms), for the trace's bound.
std::uint64_t check_run_work(const Work& w, const scheduler::RunLimits& limits, bool traced) {
  std::uint64_t all = 0;
  std::optional<std::string> blocker;  // why every group runs; computed at the first staged one
  const auto every_group = [&](const network::BackendOptions& o, const endpoint::EndpointInfo* ep,
                               const endpoint::EndpointParams& ep_params) -> const std::string& {
    if (!blocker) {
      blocker = traced ? std::string("--trace watches every message")
                       : scheduler::planned_blocker(*w.topology, *w.backend, o,
                                                    endpoint::endpoint_or_default(ep), ep_params);
    }
    return *blocker;
  };
  const auto check = [&](collective::Collective c, const std::string& group,
                         const collective::AlgorithmChoice& a, core::Bytes size,
                         std::uint32_t chunks, const network::BackendOptions& o,
                         const endpoint::EndpointInfo* ep, const endpoint::EndpointParams& ep_params,
                         bool flat_beside) {
    const auto comms = collective::parse_groups(group, *w.topology, "group");
    const std::string what =
        fmt::format("{} {} {} of {}", w.platform.empty() ? w.topology->name() : w.platform,
                    collective::to_string(c), a.label, core::to_string(size));
    bool every = false;
    const auto add_up = [&all](std::uint64_t m) { all = m > UINT64_MAX - all ? UINT64_MAX : all + m; };
    if (a.info->staged) {
      const std::string why = flat_beside ? std::string("flat collectives share the run")
                                          : every_group(o, ep, ep_params);
      every = !why.empty();
      if (every) {
        scheduler::check_limits(scheduler::bound_work(a, *w.topology, comms, c, chunks, true),
                                limits, fmt::format("{} (every group simulated: {})", what, why));
      }
    }
    add_up(scheduler::bound_work(a, *w.topology, comms, c, chunks, every).messages);
    if (w.backend->work == nullptr) return;
    std::uint64_t bytes = 0;
    for (const auto& comm : comms) {
      bytes = std::max(bytes, bytes + scheduler::moved_bytes(c, comm.size(), size));
    }
    scheduler::check_backend_work(
        *w.backend, o, scheduler::bound_work(a, *w.topology, comms, c, chunks, every).messages,
        bytes, limits, what);
  };
  if (const auto* j = std::get_if<jobs::CollectiveJob>(&w.job)) {
    for (const auto& a : j->algorithms) {
      for (core::Bytes size : j->sizes) {
        check(j->collective, j->group, a, size, j->chunks, j->backend_options, j->endpoint,
              j->endpoint_params, false);
      }
    }
  } else {
    const auto& cj = std::get<jobs::ConcurrentJob>(w.job);
    const bool any_flat = std::any_of(cj.members.begin(), cj.members.end(),
                                      [](const auto& m) { return !m.algorithm.info->staged; });
    for (const auto& m : cj.members) {
      check(m.collective, m.group, m.algorithm, m.size, m.chunks, cj.backend_options, cj.endpoint,
            cj.endpoint_params, any_flat);
    }
  }
  return all;
}

// Writes CSV rows as they come: to `out`, or to PATH.partial, renamed to PATH at the end.
class CsvStream final : public jobs::RunMonitor {
 public:
  CsvStream(const std::string& path, std::ostream& out) : path_(path), out_(&out) {}
  void on_row(const jobs::ResultRow& row) override {
    // The header once, then each row whole, flushed. The file is made with the first row, so a
    // run that fails before any row leaves nothing behind.
    if (!header_) open(), *out_ << report::csv_header();
    *out_ << report::csv_row(row) << std::flush;
    header_ = true;
  }
  // Everything ran: the file takes its final name (with no rows at all, the header alone).
  void finish() {
    if (!header_) open(), *out_ << report::csv_header() << std::flush;
    if (path_.empty()) return;
    file_.close();
    if (std::rename(partial().c_str(), path_.c_str()) != 0) {
      throw core::InputError(fmt::format("--output: cannot write \"{}\"", path_));
    }
  }
  std::string partial() const { return path_ + ".partial"; }

 private:
  void open() {
    if (path_.empty()) return;
    file_.open(partial(), std::ios::binary | std::ios::trunc);
    if (!file_) throw core::InputError(fmt::format("--output: cannot write \"{}\"", partial()));
    out_ = &file_;
  }

 private:
  std::string path_;
  std::ofstream file_;
  std::ostream* out_;
  bool header_ = false;

 public:
  bool wrote_rows() const { return header_; }
};

}  // namespace

int run_work(const std::vector<Work>& work, const OutputOptions& opt, std::ostream& out,
             std::ostream& err) {
  const report::Format format = report::parse_format(opt.format, "--format");
  const core::Time activity_window =
      core::parse_time(opt.activity_window, "--activity-window", core::Zero::Reject);
  const scheduler::RunLimits limits = parse_limits(opt.max_messages, opt.max_memory);
  std::uint64_t total = 0, messages = 0;
  for (const Work& w : work) {
    total += std::visit([](const auto& j) { return jobs::count_runs(j); }, w.job);
    // Input errors (an algorithm that cannot run on a group, a clock past the horizon) before
    // anything is simulated.
    check_horizon(w);
    std::visit([&](const auto& j) { jobs::check_job(*w.topology, j, limits, w.platform); },
               w.job);
    const std::uint64_t m = check_run_work(w, limits, !opt.trace.empty());
    messages = m > UINT64_MAX - messages ? UINT64_MAX : messages + m;
  }
  if (!opt.trace.empty()) {
    // The trace holds every message of every run (about 200 bytes each in the file): the limit
    // bounds their sum, not each run.
    scheduler::WorkEstimate e;
    e.messages = messages;
    scheduler::check_limits(
        e, limits,
        fmt::format("--trace of {} run{}: it keeps every message of every run", total,
                    total == 1 ? "" : "s"));
  }
  jobs::MonitorList monitors;
  InterruptMonitor interrupt;  // first: a signal stops the run before others see the tick
  monitors.add(&interrupt);
  std::unique_ptr<ProgressLine> progress;
  const bool terminal = &err == &std::cerr && isatty(STDERR_FILENO);
  if (!opt.quiet && (opt.progress || terminal)) {
    progress = std::make_unique<ProgressLine>(err, total);
    monitors.add(progress.get());
  }
  std::unique_ptr<CsvStream> csv;
  if (format == report::Format::Csv) {
    csv = std::make_unique<CsvStream>(opt.output, out);
    monitors.add(csv.get());
  }
  std::unique_ptr<report::TraceWriter> trace;
  if (!opt.trace.empty()) {
    trace = std::make_unique<report::TraceWriter>(opt.trace);
    monitors.add(trace.get());
  }
  // Every finished row, also of a job an error stops half-way (shown before a resource error).
  struct Finished final : jobs::RunMonitor {
    void on_row(const jobs::ResultRow& r) override { rows.push_back(r); }
    std::vector<jobs::ResultRow> rows;
  } finished;
  monitors.add(&finished);
  std::unique_ptr<report::LightpathLog> lightpaths;
  if (!opt.lightpaths.empty()) {
    lightpaths = std::make_unique<report::LightpathLog>();
    monitors.add(lightpaths.get());
  }
  std::unique_ptr<report::PacketTraceLog> packet_trace;
  if (!opt.packet_trace.empty()) {
    packet_trace = std::make_unique<report::PacketTraceLog>();
    monitors.add(packet_trace.get());
  }
  std::vector<jobs::ResultRow> rows;
  // On an error: clear the progress line and say where the finished CSV rows are.
  const auto stopped = [&] {
    if (progress) progress->clear();
    if (csv && !opt.output.empty() && csv->wrote_rows()) {
      err << fmt::format("collsim: the rows finished before the error are in {}\n", csv->partial());
    }
  };
  try {
    for (const Work& w : work) {
      std::vector<jobs::ResultRow> part;
      if (const auto* j = std::get_if<jobs::CollectiveJob>(&w.job)) {
        part = jobs::run_collective_job(w.platform, *w.topology, *w.backend, *j, &monitors);
      } else {
        part = jobs::run_concurrent_job(w.platform, *w.topology, *w.backend,
                                             std::get<jobs::ConcurrentJob>(w.job), &monitors);
      }
      rows.insert(rows.end(), std::make_move_iterator(part.begin()),
                  std::make_move_iterator(part.end()));
    }
  } catch (const core::Interrupted&) {
    stopped();
    // Nothing lost: the rows that finished, on standard output (CSV: already there, or in the
    // --output file's .partial).
    if (!csv && !finished.rows.empty()) {
      OutputOptions to_stdout = opt;
      to_stdout.output.clear();
      emit(finished.rows, to_stdout, out);
    }
    if (trace) trace->discard();
    throw;
  } catch (const core::ResourceError&) {
    stopped();
    // The runs that finished are results: shown before the error (CSV keeps its .partial file),
    // on standard output even with --output, whose file an error leaves as it was.
    if (!csv && !finished.rows.empty()) {
      OutputOptions to_stdout = opt;
      to_stdout.output.clear();
      emit(finished.rows, to_stdout, out);
    }
    if (trace) trace->discard();  // exit 2: an existing file stays as it was
    throw;
  } catch (const core::SimulationError&) {
    stopped();
    if (trace) {
      trace->close();  // what ran until the error, e.g. the messages before a deadlock
      err << fmt::format("collsim: the trace until the error is in {}\n", opt.trace);
    }
    if (packet_trace) {
      // The packet events before a deadlock are what --packet-trace is for.
      report::write_file_atomically(opt.packet_trace, packet_trace->csv(), "--packet-trace");
      err << fmt::format("collsim: the packet trace until the error is in {}\n",
                         opt.packet_trace);
    }
    throw;
  } catch (const std::exception&) {
    stopped();
    if (trace) trace->discard();  // bad input found while running: nothing is overwritten
    throw;
  }
  if (progress) progress->clear();
  // Render everything that can still be refused (a too small --activity-window) before any
  // file takes its name: on exit 2 every existing file stays as it was.
  std::string activity_text;
  try {
    if (!opt.activity.empty()) activity_text = report::render_activity_csv(rows, activity_window);
  } catch (const std::exception&) {
    if (trace) trace->discard();
    throw;
  }
  if (trace) trace->close();
  if (!opt.activity.empty()) {
    report::write_file_atomically(opt.activity, activity_text, "--activity");
  }
  if (lightpaths) {
    report::write_file_atomically(opt.lightpaths, lightpaths->csv(), "--lightpaths");
  }
  if (packet_trace) {
    report::write_file_atomically(opt.packet_trace, packet_trace->csv(), "--packet-trace");
  }
  if (csv) {
    csv->finish();
  } else {
    emit(rows, opt, out);
  }
  return 0;
}

}  // namespace collsim::cli
