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

/// The program of one chunk of a flat collective: the same collective, algorithm and
/// communicator at `size` bytes (collective.hpp conventions). The reference must stay valid
/// until the run ends.
using ChunkProgram = std::function<const collective::Program&(core::Bytes size)>;

/// Runs flat programs with staging (when the executor's endpoint stages memory; otherwise a
/// plain Executor::start). Owns the state of the runs it started.
///
/// An engine with SRAM (ACE, endpoint.hpp ChunkAdmission) takes a flat collective as it takes a
/// hierarchical one (ACE Sec. 4.1, 4.3): split into chunks of at most Endpoint::chunk_limit()
/// bytes, each its own run of the collective (the program `chunk` builds), pipelined: a chunk is
/// admitted when the collective's one phase has a free state machine and its SRAM partition room
/// for it (and the results partition room for its result), copied in (TX DMA), run, moved to the
/// results partition and copied out (RX DMA). An engine without limits (ideal) takes the
/// collective whole, which is what running every chunk at once amounts to. Without admission
/// (the pass-through's ideal_dma) the whole input is copied in before the first message and the
/// result out after the last.
class Stager {
 public:
  explicit Stager(Executor& ex);
  ~Stager();
  Stager(const Stager&) = delete;
  Stager& operator=(const Stager&) = delete;
  /// Like Executor::start; the stats span from the first copy in to the last copy out. `size`
  /// and `chunk`: the collective's size and its chunks' programs, used by an engine with
  /// admission (`chunk` may be empty otherwise).
  void start(const collective::Program& p, Executor::DoneCallback on_done, std::string label,
             core::Bytes size = {}, ChunkProgram chunk = {});

 private:
  struct Run {
    StagingBarrier in, out;
    CollectiveStats stats;
  };
  struct ChunkedRun;
  void start_chunked(const collective::Program& p, Executor::DoneCallback on_done,
                     std::string label, core::Bytes size, ChunkProgram chunk);
  void admit_chunks(ChunkedRun& run);
  Executor& ex_;
  std::vector<std::unique_ptr<Run>> runs_;
  std::vector<std::unique_ptr<ChunkedRun>> chunked_;
};

}  // namespace collsim::scheduler
