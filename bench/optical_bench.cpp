// Speed of the optical backend (network/optical.hpp): the WRHT Fig. 2 jobs at 1024 nodes, 64
// wavelengths of 25 Gb/s. Counters: lightpaths per wall second. Results in docs/performance.md.
#include <benchmark/benchmark.h>

#include "runtime/execute.hpp"
#include "collective/algorithm.hpp"
#include "core/engine.hpp"
#include "network/optical.hpp"
#include "scheduler/executor.hpp"
#include "topology/builders.hpp"

namespace {

using namespace collsim;

void BM_OpticalRing1024(benchmark::State& state, const char* algo) {
  const auto topo = topology::optical_ring(1024, {}, core::Time::from_ns(5));
  const auto choice = collective::parse_algorithm(algo, "bench");
  double lightpaths = 0;
  for (auto _ : state) {
    const auto program = collective::build_program(choice, topo, collective::Collective::AllReduce,
                                                   core::Bytes{100'000'000}, 1);
    core::Simulation sim;
    network::OpticalBackend net(sim, topo, {});
    const auto r = runtime::execute(program, net, sim);
    lightpaths += double(r.messages);
    benchmark::DoNotOptimize(r.time);
  }
  state.counters["lightpaths/s"] = benchmark::Counter(lightpaths, benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_OpticalRing1024, ring, "ring")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_OpticalRing1024, wrht, "wrht")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_OpticalRing1024, wrht_striped, "wrht:stripe=1")->Unit(benchmark::kMillisecond);

}  // namespace
