#pragma once
// The executor: runs Programs on an endpoint and network backend in simulated time (one shared
// executor runs every schedule). It is a component on a shared Simulation: start() any number of
// collectives, at any time, on the same network; the job driver owns the event loop. Program
// semantics come from collective::Progress; timing adds one rule: a lane sends to a given peer
// one message at a time, starting the next when the previous one has been injected (so pipelined
// chunks serialize on their channel).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collective/ir/program.hpp"
#include "core/engine.hpp"
#include "endpoint/endpoint.hpp"
#include "network/backend.hpp"

namespace collsim::scheduler {

using CollectiveId = std::uint32_t;

/// One collective's own figures.
struct CollectiveStats {
  core::Time start;            ///< when it was started
  core::Time end;              ///< when its last recv completed (start if it had none)
  std::uint64_t messages = 0;  ///< messages it sent
  std::uint64_t bytes = 0;     ///< payload bytes it sent (sum over messages)
  core::Time time() const { return end - start; }
};

/// A message as observers see it.
struct MessageInfo {
  CollectiveId collective = 0;
  std::uint64_t id = 0;  ///< unique in the executor, in send order
  collective::Lane src = 0;
  collective::Rank dst = 0;  ///< destination rank (same stream as src)
  topology::NodeId src_npu = 0;
  topology::NodeId dst_npu = 0;
  std::uint32_t op = 0;  ///< index of the send in its lane
  core::Bytes bytes;
  network::MessageAttributes attrs;
  bool reduce = false;
};

/// A chunk-stage of a hierarchical collective (hierarchical.hpp) as observers see it: one basic
/// collective on every group of a dimension at once.
struct StageInfo {
  std::uint32_t dim = 0;    ///< 0-based
  std::uint32_t slot = 0;   ///< which of the dimension's active_chunks places it ran in
  std::uint32_t chunk = 0;  ///< chunk id within its collective
  collective::Collective op = collective::Collective::ReduceScatter;
  double bytes = 0;  ///< bytes per NPU before the stage
  core::Time begin, end;
};

/// Told what the executor does; every method is a no-op by default. Called from inside the
/// executor's events at the simulation's current time (sim.now()).
class ExecutionObserver {
 public:
  virtual void on_collective_start(CollectiveId, const collective::Program&, const std::string&) {}
  virtual void on_send(const MessageInfo&) {}
  virtual void on_injected(const MessageInfo&) {}
  virtual void on_delivered(const MessageInfo&) {}
  /// Lane `lane` of the collective completed recv `op`.
  virtual void on_recv_done(CollectiveId, collective::Lane, std::uint32_t) {}
  virtual void on_collective_end(CollectiveId, const CollectiveStats&) {}
  /// A chunk-stage of a hierarchical collective ended (told by its driver, at info.end).
  virtual void on_stage(const StageInfo&) {}
  /// False for an observer that only wants on_stage: hierarchical collectives may then still
  /// simulate one group per dimension (group_symmetry.hpp).
  virtual bool watches_messages() const { return true; }

 protected:
  ~ExecutionObserver() = default;
};

class Executor {
 public:
  using DoneCallback = std::function<void(CollectiveId, const CollectiveStats&)>;

  Executor(core::Simulation& sim, endpoint::Endpoint& endpoint);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  /// Tell `observer` (nullptr: nobody) about everything from now on.
  void set_observer(ExecutionObserver* observer) { observer_ = observer; }
  /// The observer, for drivers on top of the executor that report their own events.
  ExecutionObserver* observer() const { return observer_; }

  /// Start `program` at sim.now(). The program must outlive the run. `on_done` runs from the
  /// event in which its last rank finishes (it may start further collectives). `label` names it
  /// in errors and traces, e.g. "all-reduce ring dim0[3]".
  CollectiveId start(const collective::Program& program, DoneCallback on_done = {},
                     std::string label = {});
  /// A temporary program would dangle while it runs.
  CollectiveId start(collective::Program&&, DoneCallback = {}, std::string = {}) = delete;

  std::size_t size() const { return runs_.size(); }
  core::Simulation& sim() const { return sim_; }
  endpoint::Endpoint& endpoint() const { return endpoint_; }
  bool finished(CollectiveId id) const;
  bool all_finished() const { return unfinished_ == 0; }
  /// Messages sent so far, over every run (progress lines).
  std::uint64_t messages_sent() const { return next_message_; }
  const CollectiveStats& stats(CollectiveId id) const;
  /// The label of an unfinished collective (a finished one's state is freed: empty).
  const std::string& label(CollectiveId id) const;
  /// The unfinished collectives, each with its stuck ranks (at most `limit` collectives).
  std::string describe_stuck(std::size_t limit = 2) const;

 private:
  class Run;
  friend class Run;
  // Frees finished runs' state (progress, channels) in an event of its own, so that long
  // training runs of millions of collectives keep only their stats.
  struct Reaper final : core::EventHandler {
    explicit Reaper(Executor& e) : ex(e) {}
    void on_event(std::uint64_t) override;
    Executor& ex;
  };
  void release_later(CollectiveId id);

  core::Simulation& sim_;
  endpoint::Endpoint& endpoint_;
  ExecutionObserver* observer_ = nullptr;
  std::vector<std::unique_ptr<Run>> runs_;  // null once finished and freed
  std::vector<CollectiveStats> stats_;      // by id, set when it finishes
  std::vector<CollectiveId> released_;
  bool reaper_scheduled_ = false;
  Reaper reaper_{*this};
  std::uint32_t unfinished_ = 0;
  std::uint64_t next_message_ = 0;
};

struct ExecuteOptions {
  /// Stop with core::SimulationError if the collectives have not finished by then.
  std::optional<core::Time> max_time;
  /// Called every `tick_events` events, and at least every 100 ms of wall time, while the
  /// simulation runs (progress reports, Ctrl-C).
  std::function<void()> tick;
  std::uint64_t tick_events = 1u << 20;
};

/// Run the simulation until every collective of `executor` has finished. Throws
/// core::SimulationError naming the stuck collectives and ranks (and the network's blocked
/// channels) on a deadlock, or when `options.max_time` after `start` has passed.
void run_until_finished(core::Simulation& sim, Executor& executor, const network::Backend& backend,
                        core::Time start, const ExecuteOptions& options = {});

}  // namespace collsim::scheduler
