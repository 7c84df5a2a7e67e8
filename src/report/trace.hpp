#pragma once
// Timeline traces in the Chrome trace-event format, which ui.perfetto.dev and chrome://tracing
// open (docs/traces.md). Every run of a job gets its own processes:
//   "NPU n"        one track per collective (thread = collective): a slice per message from send
//                  to injection at the source ("send to NPU d") and from send to delivery at the
//                  destination ("recv from NPU s"), with bytes, message id and time step;
//   "collectives"  one slice per collective, from its start to its end;
//   "dimensions"   hierarchical collectives: a track per dimension (and per active chunk place)
//                  with a slice per chunk-stage ("chunk 3 reduce-scatter"), Themis Fig. 9's view;
//   "network"      counters: each dimension's busy share (links busy / links of the dimension)
//                  and the busy share of the 16 busiest links, per time window.
// Message slices are streamed to the file as they happen; the counters are accumulated in at most
// 2048 windows per dimension and 256 per link (the window doubles as a run grows), so memory is
// bounded whatever the run's length. Times are simulated microseconds with picosecond digits.
#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <string>
#include <vector>

#include "jobs/collective_sweep.hpp"
#include "report/output_file.hpp"
#include "scheduler/executor.hpp"

namespace collsim::report {

/// Busy time of several series (links, dimensions) on one grid of equal windows; when a time past
/// the last window arrives, the window doubles (neighbours merge), so there are at most `cap`.
class BusyWindows {
 public:
  BusyWindows(std::size_t series, std::size_t cap, core::Time width);
  /// Series `s` was busy during [begin, end).
  void add(std::size_t s, core::Time begin, core::Time end);
  core::Time width() const { return width_; }
  /// Windows that hold any time (all series).
  std::size_t used() const { return used_; }
  /// Busy picoseconds of series s in window w.
  double busy(std::size_t s, std::size_t w) const { return data_[s * cap_ + w]; }
  std::size_t series() const { return series_; }

 private:
  void grow();
  std::size_t series_, cap_;
  core::Time width_;
  std::size_t used_ = 0;
  std::vector<double> data_;
};

class TraceWriter final : public jobs::RunMonitor,
                          public scheduler::ExecutionObserver,
                          public network::LinkObserver {
 public:
  /// Writes to a temporary file beside PATH until close(), which renames it PATH (a FIFO or
  /// device: in place; report/output_file.hpp). At a signal the file is closed as far as it got,
  /// valid JSON. Throws core::InputError naming --trace if the file cannot be written.
  explicit TraceWriter(std::string path);
  /// Closes (renames) if close() was not called; never throws.
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  /// Bytes the writer keeps for one run on `topo` beyond the messages in flight: the busy windows
  /// of every link and dimension (256 and 2048 windows of 8 bytes), for --max-memory.
  static std::uint64_t run_bytes(const topology::Topology& topo);

  /// Finish the JSON and give the file its name. Throws core::InputError if writing failed.
  void close();
  /// Remove the temporary file, leaving PATH as it was (a run refused as bad input).
  void discard();

  void begin_run(const jobs::RunContext& c) override;
  void end_run(const jobs::RunContext& c) override;

  void on_collective_start(scheduler::CollectiveId id, const collective::Program& p,
                           const std::string& label) override;
  void on_send(const scheduler::MessageInfo& m) override;
  void on_injected(const scheduler::MessageInfo& m) override;
  void on_delivered(const scheduler::MessageInfo& m) override;
  void on_collective_end(scheduler::CollectiveId id, const scheduler::CollectiveStats& s) override;
  void on_link_busy(topology::LinkId link, core::Time begin, core::Time end) override;
  void on_stage(const scheduler::StageInfo& s) override;

 private:
  void event(const std::string& json);
  void slice(std::uint64_t pid, std::uint64_t tid, const std::string& name, core::Time begin,
             core::Time end, const std::string& args);
  void name_process(std::uint64_t pid, const std::string& name);
  void name_thread(std::uint64_t pid, std::uint64_t tid, const std::string& name);
  void counter(const std::string& name, const BusyWindows& grid, std::size_t series,
               double capacity);
  std::uint64_t npu_pid(topology::NodeId npu) const { return pid_base_ + npu; }

  OutputFile file_;
  bool first_ = true;
  // The current run.
  const jobs::RunContext* run_ = nullptr;
  std::uint64_t runs_ = 0;
  std::uint64_t pid_base_ = 0, collectives_pid_ = 0, network_pid_ = 0, dims_pid_ = 0,
                next_pid_ = 1;
  std::string run_name_;
  std::vector<std::uint64_t> stage_threads_;  // (dim, slot) tracks named so far, as tids
  std::vector<std::string> labels_;
  absl::flat_hash_map<std::uint64_t, core::Time> sent_at_;  // messages in flight
  std::vector<std::uint32_t> dim_of_link_;
  std::vector<std::uint32_t> links_per_dim_;
  BusyWindows dims_{1, 1, core::Time{1}}, links_{1, 1, core::Time{1}};
};

}  // namespace collsim::report
