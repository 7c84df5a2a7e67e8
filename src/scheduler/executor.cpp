#include "scheduler/executor.hpp"

#include <fmt/format.h>

#include <vector>

#include "collective/ir/progress.hpp"
#include "core/error.hpp"
#include "core/slot_pool.hpp"

namespace collsim::scheduler {
namespace {

using collective::Op;
using collective::Rank;

class Executor final : public collective::Progress::Hooks, public network::DeliveryHandler {
 public:
  Executor(const collective::Program& p, network::Backend& b, core::Simulation& sim)
      : p_(p), backend_(b), sim_(sim), progress_(p, *this) {}

  ExecutionResult run(const ExecuteOptions& opt) {
    const core::Time start = sim_.now();
    last_ = start;
    const std::uint64_t events_before = sim_.events_processed();
    for (Rank r = 0; r < p_.num_ranks; ++r) progress_.pump(r);
    const auto run = sim_.run(opt.max_time ? std::optional(start + *opt.max_time) : std::nullopt);
    if (!progress_.finished()) {
      if (!run.drained) {
        throw core::SimulationError(fmt::format("{}: not finished within the time bound of {}; {}",
                                                p_.algorithm, core::to_string(*opt.max_time),
                                                progress_.describe_stuck()));
      }
      const std::string blocked = backend_.describe_blocked();
      throw core::SimulationError(
          fmt::format("{}: deadlock at {}; {}{}", p_.algorithm, core::to_string(sim_.now() - start),
                      progress_.describe_stuck(), blocked.empty() ? "" : "; network: " + blocked));
    }
    ExecutionResult r;
    r.time = last_ - start;
    r.messages = messages_;
    r.bytes = bytes_;
    r.events = sim_.events_processed() - events_before;
    return r;
  }

  bool can_send(Rank, const Op&, std::uint32_t channel) override {
    return channel >= busy_.size() || !busy_[channel];
  }

  void on_send(Rank r, std::uint32_t op_index, std::uint32_t seq, std::uint32_t channel) override {
    const Op op = p_.op(r, op_index);
    const core::Bytes bytes = p_.bytes(op.first, op.count);
    const std::uint32_t slot = flight_.acquire();
    flight_[slot] = InFlight{r, op.peer, op_index, seq, channel};
    if (channel >= busy_.size()) busy_.resize(channel + 1, 0);
    busy_[channel] = 1;
    ++messages_;
    bytes_ += bytes.count;
    backend_.send(r, op.peer, bytes, *this, slot);
  }

  void on_recv_done(Rank, std::uint32_t, Rank, std::uint32_t) override { last_ = sim_.now(); }

  void on_injected(std::uint64_t tag) override {
    const InFlight& f = flight_[tag];
    busy_[f.channel] = 0;
    progress_.pump(f.src);
  }

  void on_delivered(std::uint64_t tag) override {
    const InFlight f = flight_[tag];
    flight_.release(static_cast<std::uint32_t>(tag));
    progress_.arrive(f.src, f.dst, f.op, f.seq);
  }

 private:
  struct InFlight {
    Rank src = 0;
    Rank dst = 0;
    std::uint32_t op = 0;
    std::uint32_t seq = 0;
    std::uint32_t channel = 0;
  };

  const collective::Program& p_;
  network::Backend& backend_;
  core::Simulation& sim_;
  collective::Progress progress_;
  std::vector<std::uint8_t> busy_;  // by channel id: still serializing its last message
  core::SlotPool<InFlight> flight_;
  core::Time last_;
  std::uint64_t messages_ = 0;
  std::uint64_t bytes_ = 0;
};

}  // namespace

ExecutionResult execute(const collective::Program& program, network::Backend& backend,
                        core::Simulation& sim, const ExecuteOptions& options) {
  return Executor(program, backend, sim).run(options);
}

}  // namespace collsim::scheduler
