#pragma once
// Memory staging around collectives for endpoints that work out of their own memory (ACE,
// endpoint.hpp Endpoint::stages_memory): every NPU of a collective copies its input into the
// engine before the collective's first message and its result out after its last. A
// StagingBarrier waits for every NPU's copy; a Stager runs whole programs with both copies.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "collective/ir/program.hpp"
#include "endpoint/endpoint.hpp"
#include "scheduler/executor.hpp"

namespace collsim::scheduler {

/// Bytes per NPU a program's collective reads at its start and leaves at its end (collective.hpp
/// conventions): all-reduce S and S; reduce-scatter S and S/N; all-gather S/N and S; all-to-all
/// one rank's buffer both ways.
std::pair<core::Bytes, core::Bytes> staged_bytes(const collective::Program& p);

/// Copies `bytes` on each of `npus` into (or out of) the engine, then calls `then` once, from the
/// event of the last copy. Keep it alive until then.
class StagingBarrier final : public endpoint::StagingHandler {
 public:
  void start(endpoint::Endpoint& e, const std::vector<topology::NodeId>& npus, core::Bytes bytes,
             bool out, std::function<void()> then);

 private:
  void on_staged(std::uint64_t) override;
  std::uint32_t remaining_ = 0;
  std::function<void()> then_;
};

/// Runs flat programs with staging (when the executor's endpoint stages memory; otherwise a
/// plain Executor::start). Owns the state of the runs it started.
class Stager {
 public:
  explicit Stager(Executor& ex) : ex_(ex) {}
  /// Like Executor::start; the stats span from the first copy in to the last copy out.
  void start(const collective::Program& p, Executor::DoneCallback on_done, std::string label);

 private:
  struct Run {
    StagingBarrier in, out;
    CollectiveStats stats;
  };
  Executor& ex_;
  std::vector<std::unique_ptr<Run>> runs_;
};

}  // namespace collsim::scheduler
