#include "scheduler/staging.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace collsim::scheduler {

std::pair<core::Bytes, core::Bytes> staged_bytes(const collective::Program& p) {
  const std::uint64_t space = p.space_bytes, n = std::max<std::uint32_t>(p.num_ranks, 1);
  switch (p.collective) {
    case collective::Collective::AllReduce:
      return {core::Bytes{space}, core::Bytes{space}};
    case collective::Collective::ReduceScatter:
      return {core::Bytes{space}, core::Bytes{space / n}};
    case collective::Collective::AllGather:
      return {core::Bytes{space / n}, core::Bytes{space}};
    case collective::Collective::AllToAll:
      return {core::Bytes{space / n}, core::Bytes{space / n}};
  }
  return {};
}

void StagingBarrier::start(endpoint::Endpoint& e, const std::vector<topology::NodeId>& npus,
                           core::Bytes bytes, bool out, std::function<void()> then) {
  remaining_ = static_cast<std::uint32_t>(npus.size());
  then_ = std::move(then);
  for (topology::NodeId n : npus) {
    if (out) {
      e.stage_out(n, bytes, *this, 0);
    } else {
      e.stage_in(n, bytes, *this, 0);
    }
  }
}

void StagingBarrier::on_staged(std::uint64_t) {
  if (--remaining_ > 0) return;
  // `then` may end the life of whatever owns this barrier: run it from the stack.
  const std::function<void()> then = std::move(then_);
  then();
}

// One chunk of a chunked run: its copies and what it holds in the engine's partitions.
struct ChunkCopy {
  StagingBarrier in, out;
  double need = 0;    // bytes per NPU in the phase's partition: the larger of input and output
  double result = 0;  // bytes per NPU in the results partition
  bool admitted = false;  // counted in the engine's partitions
};

struct Stager::ChunkedRun {
  const collective::Program* whole = nullptr;
  ChunkProgram program;
  Executor::DoneCallback on_done;
  std::string label;
  std::vector<topology::NodeId> npus;
  core::Bytes size;            // the collective's, split evenly over the chunks
  std::uint32_t chunks = 1;
  std::uint32_t next = 0;      // the next chunk to admit
  std::uint32_t running = 0;   // admitted, not yet copied out
  std::uint32_t done = 0;
  std::vector<std::unique_ptr<ChunkCopy>> copies;
  CollectiveStats stats;
};

Stager::Stager(Executor& ex) : ex_(ex) {}
Stager::~Stager() = default;

void Stager::start(const collective::Program& p, Executor::DoneCallback on_done,
                   std::string label, core::Bytes size, ChunkProgram chunk) {
  endpoint::Endpoint& e = ex_.endpoint();
  if (!e.stages_memory()) {
    ex_.start(p, std::move(on_done), std::move(label));
    return;
  }
  if (e.admission() && chunk) {
    start_chunked(p, std::move(on_done), std::move(label), size, std::move(chunk));
    return;
  }
  std::vector<topology::NodeId> npus(p.num_ranks);
  for (collective::Rank r = 0; r < p.num_ranks; ++r) npus[r] = p.npu(r);
  // Not a structured binding: clang 14 cannot capture one in the lambdas below.
  const std::pair<core::Bytes, core::Bytes> sizes = staged_bytes(p);
  const core::Bytes in = sizes.first, out = sizes.second;
  runs_.push_back(std::make_unique<Run>());
  Run* run = runs_.back().get();
  run->stats.start = ex_.sim().now();
  run->in.start(e, npus, in, false,
                [this, run, &p, npus, out, on_done = std::move(on_done), label]() mutable {
                  ex_.start(
                      p,
                      [this, run, npus, out, on_done = std::move(on_done)](
                          CollectiveId id, const CollectiveStats& s) mutable {
                        run->stats.messages = s.messages;
                        run->stats.bytes = s.bytes;
                        run->out.start(ex_.endpoint(), npus, out, true,
                                       [this, run, id, on_done = std::move(on_done)] {
                                         run->stats.end = ex_.sim().now();
                                         if (on_done) on_done(id, run->stats);
                                       });
                      },
                      std::move(label));
                });
}

void Stager::start_chunked(const collective::Program& p, Executor::DoneCallback on_done,
                           std::string label, core::Bytes size, ChunkProgram chunk) {
  endpoint::Endpoint& e = ex_.endpoint();
  endpoint::ChunkAdmission& a = *e.admission();
  auto run = std::make_unique<ChunkedRun>();
  run->whole = &p;
  run->program = std::move(chunk);
  run->on_done = std::move(on_done);
  run->label = std::move(label);
  run->size = size;
  run->npus.resize(p.num_ranks);
  for (collective::Rank r = 0; r < p.num_ranks; ++r) run->npus[r] = p.npu(r);
  run->stats.start = ex_.sim().now();
  // One phase and the results partition (Sec. 4.3.1: a ring all-reduce "has 1 phase and hence
  // needs 2 partitions"), sized by Sec. 6's rule (the bandwidth is the same for both).
  const auto [in, out] = staged_bytes(p);
  const double need = static_cast<double>(std::max(in.count, out.count));
  const double initial = static_cast<double>(in.count);
  a.shape({{1, need, initial}, {1, static_cast<double>(out.count), initial}});
  // An engine without limits takes the collective whole (every chunk at once is the same).
  const std::uint64_t limit = e.chunk_limit().count;
  if (a.phases() > 0 && limit > 0 && size.count > 0) {
    const std::uint64_t biggest = std::max(in.count, out.count);
    const std::uint64_t c = (biggest + limit - 1) / limit;
    run->chunks = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(c, 1, size.count));
  }
  run->copies.resize(run->chunks);
  chunked_.push_back(std::move(run));
  admit_chunks(*chunked_.back());
}

// Admit chunks in order while the engine has room (a free state machine of the phase, room in
// its partition and in the results partition); a run with nothing in flight takes its next
// chunk even without room, so that partitions held by other collectives never stall it.
void Stager::admit_chunks(ChunkedRun& run) {
  endpoint::Endpoint& e = ex_.endpoint();
  endpoint::ChunkAdmission& a = *e.admission();
  const auto [in, out] = staged_bytes(*run.whole);
  const std::uint32_t phase = 0, results = std::max<std::uint32_t>(a.phases(), 1);
  while (run.next < run.chunks) {
    const std::uint32_t i = run.next;
    const std::uint64_t c = run.chunks;
    // Chunk i's share of the collective and of its per-NPU input and output.
    const auto share = [&](std::uint64_t total) {
      return core::Bytes{total * (i + 1) / c - total * i / c};
    };
    auto copy = std::make_unique<ChunkCopy>();
    const core::Bytes cin = share(in.count), cout = share(out.count);
    copy->need = static_cast<double>(std::max(cin.count, cout.count));
    copy->result = static_cast<double>(cout.count);
    if (a.try_enter(results, copy->result)) {
      if (a.try_enter(phase, copy->need)) {
        copy->admitted = true;
      } else {
        a.leave(results, copy->result);
      }
    }
    if (!copy->admitted && run.running > 0) return;
    ++run.next;
    ++run.running;
    ChunkCopy* cp = copy.get();
    run.copies[i] = std::move(copy);
    const collective::Program* program =
        run.chunks == 1 ? run.whole : &run.program(share(run.size.count));
    ChunkedRun* r = &run;
    cp->in.start(e, run.npus, cin, false, [this, r, cp, program, cout, i] {
      ex_.start(
          *program,
          [this, r, cp, cout](CollectiveId, const CollectiveStats& s) {
            r->stats.messages += s.messages;
            r->stats.bytes += s.bytes;
            endpoint::Endpoint& en = ex_.endpoint();
            endpoint::ChunkAdmission& ad = *en.admission();
            // The chunk's state machine is free and its bytes move to the results partition.
            if (cp->admitted) {
              ad.finish(0);
              ad.leave(0, cp->need);
            }
            cp->out.start(en, r->npus, cout, true, [this, r, cp] {
              if (cp->admitted) {
                ex_.endpoint().admission()->leave(std::max<std::uint32_t>(
                                                      ex_.endpoint().admission()->phases(), 1),
                                                  cp->result);
              }
              --r->running;
              if (++r->done == r->chunks) {
                r->stats.end = ex_.sim().now();
                if (r->on_done) r->on_done(0, r->stats);
                return;
              }
              admit_chunks(*r);
            });
            admit_chunks(*r);
          },
          r->chunks == 1 ? r->label : fmt::format("{} chunk {}", r->label, i));
    });
  }
}

}  // namespace collsim::scheduler
