#include "scheduler/staging.hpp"

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

void Stager::start(const collective::Program& p, Executor::DoneCallback on_done,
                   std::string label) {
  endpoint::Endpoint& e = ex_.endpoint();
  if (!e.stages_memory()) {
    ex_.start(p, std::move(on_done), std::move(label));
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

}  // namespace collsim::scheduler
