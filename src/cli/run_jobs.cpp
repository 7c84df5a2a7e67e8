#include "cli/run_jobs.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>

#include "cli/backend_flags.hpp"
#include "cli/horizon_check.hpp"
#include "cli/interrupt.hpp"
#include "cli/output.hpp"
#include "cli/sweep_progress.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "jobs/sweep.hpp"
#include "report/link_csv.hpp"
#include "report/lightpath_log.hpp"
#include "report/output_file.hpp"
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
        *w.backend, o, *w.topology,
        scheduler::bound_work(a, *w.topology, comms, c, chunks, every).messages, bytes, limits,
        what);
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

// Writes CSV rows as they come: to `out`, or to the --output file (report::OutputFile: a unique
// temporary file renamed PATH at the end, or PATH.partial on an error or a signal; a FIFO or
// device in place).
class CsvStream final : public jobs::RunMonitor {
 public:
  /// `prefix`: a line before the header (a shard's, jobs/shard.hpp), or empty.
  CsvStream(const std::string& path, std::ostream& out, std::string prefix = {})
      : out_(out), prefix_(std::move(prefix)) {
    if (!path.empty()) file_.emplace(path, "--output", report::OutputFile::OnSignal::KeepPartial);
  }
  void on_row(const jobs::ResultRow& row) override {
    // The header once, then each row whole, flushed.
    if (!header_) put(prefix_ + report::csv_header());
    put(report::csv_row(row));
    header_ = true;
  }
  // Everything ran: the file takes its final name (with no rows at all, the header alone).
  void finish() {
    if (!header_) put(prefix_ + report::csv_header());
    if (file_) file_->commit();
  }
  // Stopped by an error: the rows so far go to partial().
  void keep_partial() {
    if (file_) file_->keep_partial();
  }
  std::string partial() const { return file_ ? file_->partial_path() : std::string(); }
  bool wrote_rows() const { return header_; }

 private:
  void put(const std::string& text) {
    if (!file_) {
      out_ << text << std::flush;
      return;
    }
    file_->write(text);
    file_->flush();
  }
  std::ostream& out_;
  std::string prefix_;
  std::optional<report::OutputFile> file_;
  bool header_ = false;
};

// What a point costs, about (for costliest-first): the messages of its closed form, or what the
// backend simulates for them (the packet backend's packets).
double point_cost(const Work& w, collective::Collective c, const std::string& group,
                  const collective::AlgorithmChoice& a, core::Bytes size, std::uint32_t chunks,
                  const network::BackendOptions& o) {
  const auto comms = collective::parse_groups(group, *w.topology, "group");
  const std::uint64_t messages = scheduler::bound_work(a, *w.topology, comms, c, chunks).messages;
  if (w.backend->work == nullptr) return static_cast<double>(messages);
  std::uint64_t bytes = 0;
  for (const auto& comm : comms) {
    bytes = std::max(bytes, bytes + scheduler::moved_bytes(c, comm.size(), size));
  }
  return static_cast<double>(w.backend->work(o, messages, bytes));
}

// The points of `work` in input order (jobs/sweep.hpp): a collective job's (size, algorithm)
// runs, a size's algorithms one --shard block (its speedup column and its ideal and skipped rows
// need them all), and each concurrent job whole (its runs together and alone). Every run reports
// to its PointRun, then to `watchers` (traces: with one thread only); `take` gets the rows in
// input order, a size's closing rows after its last algorithm. The points keep references to
// all four arguments.
void add_points(const std::vector<Work>& work, jobs::RunMonitor& watchers,
                const std::function<void(jobs::ResultRow&&)>& take, core::Time& base,
                jobs::Sweep& sweep) {
  for (const Work& w : work) {
    if (const auto* j = std::get_if<jobs::CollectiveJob>(&w.job)) {
      const std::string run = fmt::format(
          "{} {} {} {} {} chunks {} {}", w.platform, w.topology->name(),
          network::backend_label(*w.backend, j->backend_options),
          jobs::endpoint_label(j->endpoint, j->endpoint_params),
          collective::to_string(j->collective), j->chunks, j->group);
      for (std::size_t s = 0; s < j->sizes.size(); ++s) {
        for (std::size_t a = 0; a < j->algorithms.size(); ++a) {
          jobs::Point<jobs::ResultRow> p;
          p.cost = point_cost(w, j->collective, j->group, j->algorithms[a], j->sizes[s],
                              j->chunks, j->backend_options);
          p.name = fmt::format("{} {} {}", w.platform, j->algorithms[a].label,
                               core::to_string(j->sizes[s]));
          p.key = fmt::format("{} {} {}", run, j->algorithms[a].label, j->sizes[s].count);
          p.joins_previous = a > 0;
          p.run = [&w, j, s, a, &watchers](jobs::PointRun& r) {
            jobs::MonitorList m;
            m.add(&r);
            m.add(&watchers);
            return jobs::run_collective_point(w.platform, *w.topology, *w.backend, *j, s, a, &m);
          };
          p.deliver = [&w, j, s, a, &take, &base](jobs::ResultRow&& row) {
            if (a == 0) base = row.time;
            jobs::set_speedup(row, base);
            take(std::move(row));
            if (a + 1 < j->algorithms.size()) return;
            for (jobs::ResultRow& r :
                 jobs::size_closing_rows(w.platform, *w.topology, *w.backend, *j, s, base)) {
              take(std::move(r));
            }
          };
          sweep.add(std::move(p));
        }
      }
      continue;
    }
    const auto& cj = std::get<jobs::ConcurrentJob>(w.job);
    jobs::Point<std::vector<jobs::ResultRow>> p;
    for (const auto& m : cj.members) {
      p.cost += 2 * point_cost(w, m.collective, m.group, m.algorithm, m.size, m.chunks,
                               cj.backend_options);
    }
    p.name = fmt::format("{} {}", w.platform, cj.name);
    p.key = fmt::format("{} {} {} {} members", w.platform, w.topology->name(), cj.name,
                        cj.members.size());
    p.runs = jobs::count_runs(cj);
    p.run = [&w, &cj, &watchers](jobs::PointRun& r) {
      jobs::MonitorList m;
      m.add(&r);
      m.add(&watchers);
      return jobs::run_concurrent_job(w.platform, *w.topology, *w.backend, cj, &m);
    };
    p.deliver = [&take](std::vector<jobs::ResultRow>&& rows) {
      for (jobs::ResultRow& row : rows) take(std::move(row));
    };
    sweep.add(std::move(p));
  }
}

}  // namespace

// Prints the table on standard output a row at a time, as runs finish (report::TableStream),
// erasing the progress line first.
class TableOut final : public jobs::RunMonitor {
 public:
  TableOut(const std::vector<Work>& work, std::ostream& out) : table_(width(work)), out_(out) {}
  void watch(SweepLine* line) { line_ = line; }
  void on_row(const jobs::ResultRow& row) override { write(table_.add(row)); }
  void finish() { write(table_.finish()); }

 private:
  // The algorithm column fits every label the work can print, as render_table's would.
  static std::size_t width(const std::vector<Work>& work) {
    std::vector<std::string> labels;
    for (const Work& w : work) {
      if (const auto* j = std::get_if<jobs::CollectiveJob>(&w.job)) {
        for (const auto& a : j->algorithms) labels.push_back(a.label);
        for (const auto& [name, why] : j->skipped) labels.push_back(name);
      } else {
        for (const auto& m : std::get<jobs::ConcurrentJob>(w.job).members) {
          labels.push_back(m.algorithm.label);
        }
      }
    }
    return report::table_name_width(labels);
  }
  void write(const std::string& text) {
    if (text.empty()) return;
    if (line_) line_->clear();
    out_ << text << std::flush;
  }
  report::TableStream table_;
  std::ostream& out_;
  SweepLine* line_ = nullptr;
};

int run_work(const std::vector<Work>& given, const OutputOptions& opt, std::ostream& out,
             std::ostream& err) {
  // --links: every row keeps every link's use.
  std::vector<Work> linked;
  if (!opt.links.empty()) {
    linked = given;
    for (Work& w : linked) std::visit([](auto& j) { j.all_links = true; }, w.job);
  }
  const std::vector<Work>& work = opt.links.empty() ? given : linked;
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
    if (const auto* j = std::get_if<jobs::CollectiveJob>(&w.job)) {
      // Without a trace, a flat ring may run as its three-rank stand-in: estimated as such.
      jobs::check_job(*w.topology, *j, limits, w.platform,
                      opt.trace.empty() ? w.backend : nullptr, w.backend);
    } else {
      jobs::check_job(*w.topology, std::get<jobs::ConcurrentJob>(w.job), limits, w.platform);
    }
    const std::uint64_t m = check_run_work(w, limits, !opt.trace.empty());
    messages = m > UINT64_MAX - messages ? UINT64_MAX : messages + m;
  }
  if (!opt.trace.empty()) {
    // The trace holds every message of every run (about 200 bytes each in the file): the limit
    // bounds their sum, not each run.
    scheduler::WorkEstimate e;
    e.messages = messages;
    for (const Work& w : work) {
      e.extra_bytes = std::max(e.extra_bytes, report::TraceWriter::run_bytes(*w.topology));
    }
    scheduler::check_limits(
        e, limits,
        fmt::format("--trace of {} run{}: it keeps every message of every run", total,
                    total == 1 ? "" : "s"));
  }
  // --trace, --lightpaths and --packet-trace watch every run as it goes: their points run one at
  // a time.
  jobs::SweepOptions so;
  so.jobs = opt.trace.empty() && opt.lightpaths.empty() && opt.packet_trace.empty()
                ? jobs::resolve_jobs(opt.jobs)
                : 1;
  so.interrupted = &InterruptMonitor::check;
  SweepLine line(err, progress_wanted(opt, err));
  so.progress = &line;
  jobs::Sweep sweep(so);
  // What watches every run, and what takes the rows.
  jobs::MonitorList watchers, row_monitors;
  std::vector<jobs::ResultRow> rows;
  const std::function<void(jobs::ResultRow&&)> take = [&](jobs::ResultRow&& row) {
    row_monitors.on_row(row);
    rows.push_back(std::move(row));
  };
  core::Time base;  // the time of the size's first algorithm (delivered before the others)
  add_points(work, watchers, take, base, sweep);
  // --shard I/N: this machine's contiguous slice of whole blocks (jobs/shard.hpp).
  const jobs::Shard shard = jobs::parse_shard(opt.shard);
  if (shard.active()) {
    if (format != report::Format::Csv) {
      throw core::InputError("--shard: a shard writes CSV rows for `collsim merge`; add --format csv");
    }
    if (!opt.trace.empty() || !opt.activity.empty() || !opt.lightpaths.empty() ||
        !opt.links.empty() || !opt.packet_trace.empty()) {
      throw core::InputError(
          "--shard: only the CSV rows are sharded; leave out --trace, --activity, --lightpaths, "
          "--links and --packet-trace");
    }
  }
  const std::string shard_prefix = sweep.slice(shard);
  std::unique_ptr<CsvStream> csv;
  if (format == report::Format::Csv) {
    csv = std::make_unique<CsvStream>(opt.output, out, shard_prefix);
    row_monitors.add(csv.get());
  }
  // A table on standard output shows each row as it finishes.
  std::unique_ptr<TableOut> table;
  if (format == report::Format::Table && opt.output.empty()) {
    table = std::make_unique<TableOut>(work, out);
    table->watch(&line);
    row_monitors.add(table.get());
  }
  std::unique_ptr<report::TraceWriter> trace;
  if (!opt.trace.empty()) {
    trace = std::make_unique<report::TraceWriter>(opt.trace);
    watchers.add(trace.get());
  }
  // Every finished row, also of a job an error stops half-way (shown before a resource error).
  struct Finished final : jobs::RunMonitor {
    void on_row(const jobs::ResultRow& r) override { rows.push_back(r); }
    std::vector<jobs::ResultRow> rows;
  } finished;
  row_monitors.add(&finished);
  std::unique_ptr<report::LightpathLog> lightpaths;
  if (!opt.lightpaths.empty()) {
    lightpaths = std::make_unique<report::LightpathLog>();
    watchers.add(lightpaths.get());
  }
  std::unique_ptr<report::PacketTraceLog> packet_trace;
  if (!opt.packet_trace.empty()) {
    packet_trace = std::make_unique<report::PacketTraceLog>();
    watchers.add(packet_trace.get());
  }
  // On an error: clear the progress line and say where the finished CSV rows are.
  const auto stopped = [&] {
    line.clear();
    if (table) table->finish();  // the rows shown so far stay, their block closed
    if (csv && !opt.output.empty() && csv->wrote_rows()) {
      csv->keep_partial();
      err << fmt::format("collsim: the rows finished before the error are in {}\n", csv->partial());
    }
  };
  // The rows that finished are results, kept on an interrupt and shown before a resource error:
  // CSV and the table have them already (on standard output, or in the --output file's
  // .partial); other formats print them on standard output, even with --output, whose file an
  // error leaves as it was (exit 2 or 3: an existing trace file stays as it was too).
  const auto keep_finished = [&] {
    stopped();
    if (!csv && !table && !finished.rows.empty()) {
      OutputOptions to_stdout = opt;
      to_stdout.output.clear();
      emit(finished.rows, to_stdout, out);
    }
  };
  try {
    sweep.run();
  } catch (const core::Interrupted&) {
    keep_finished();
    if (trace) trace->close();  // as far as it got
    throw;
  } catch (const core::ResourceError&) {
    keep_finished();
    if (trace) trace->discard();  // exit 3: an existing file stays as it was
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
  line.clear();
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
  if (!opt.links.empty()) {
    report::write_file_atomically(opt.links, report::render_links_csv(rows), "--links");
  }
  if (packet_trace) {
    report::write_file_atomically(opt.packet_trace, packet_trace->csv(), "--packet-trace");
  }
  if (csv) {
    csv->finish();
  } else if (table) {
    table->finish();
  } else {
    emit(rows, opt, out);
  }
  return 0;
}

}  // namespace collsim::cli
