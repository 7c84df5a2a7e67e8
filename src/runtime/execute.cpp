#include "runtime/execute.hpp"

#include "endpoint/endpoint.hpp"

namespace collsim::runtime {

ExecutionResult execute(const collective::Program& program, network::Backend& backend,
                        core::Simulation& sim, const scheduler::ExecuteOptions& options) {
  endpoint::Ideal ideal(sim, backend);
  scheduler::Executor ex(sim, ideal);
  const core::Time start = sim.now();
  const std::uint64_t events_before = sim.events_processed();
  const scheduler::CollectiveId id = ex.start(program, {}, program.algorithm);
  scheduler::run_until_finished(sim, ex, backend, start, options);
  const scheduler::CollectiveStats& s = ex.stats(id);
  return ExecutionResult{s.end - start, s.messages, s.bytes,
                         sim.events_processed() - events_before};
}

}  // namespace collsim::runtime
