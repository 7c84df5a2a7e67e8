// Speed of hierarchical collectives (Themis, issue 9): the 1 GB all-reduce in 64 chunks on the
// 1024-NPU 3D-SW_SW_SW_homo platform of Themis Table 2, Themis+SCF, on the analytical and flow
// backends (targets: < 1 s and < 10 s; ASTRA-sim's analytical backend takes 10-20 s). Results go
// in docs/performance.md.
#include <benchmark/benchmark.h>

#include "endpoint/endpoint.hpp"
#include "network/backend.hpp"
#include "scheduler/executor.hpp"
#include "scheduler/hierarchical.hpp"
#include "topology/builders.hpp"

namespace {

using namespace collsim;

topology::Topology sw_sw_sw_homo() {
  using topology::DimKind;
  const core::Bandwidth b200{200e9 / 8}, b800{800e9 / 8};
  // Table 2's latency is NPU-to-NPU: a switch dimension gets half per hop.
  const auto l350 = core::Time::from_ns(175), l850 = core::Time::from_ns(425);
  return topology::hierarchical({topology::DimSpec{DimKind::Switch, 16, b200, l350, 4},
                                 topology::DimSpec{DimKind::Switch, 8, b200, l350, 4},
                                 topology::DimSpec{DimKind::Switch, 8, b800, l850, 1}});
}

void BM_ThemisScf1GB(benchmark::State& state, const char* backend) {
  const auto topo = sw_sw_sw_homo();
  std::uint64_t events = 0;
  for (auto _ : state) {
    scheduler::HierarchicalSpec spec;
    spec.size = core::Bytes{1'000'000'000};
    spec.chunks = 64;
    spec.schedule = scheduler::InterDimPolicy::Themis;
    spec.intra = scheduler::IntraDimPolicy::Scf;
    core::Simulation sim;
    auto net = network::make_backend(network::find_backend(backend, "bench"), sim, topo, {}, "b");
    endpoint::Ideal ep(sim, *net);
    scheduler::Executor ex(sim, ep);
    scheduler::HierarchicalCollective h(topo, ex, spec);
    h.start();
    scheduler::run_until_finished(sim, ex, *net, core::Time{});
    events += sim.events_processed();
    benchmark::DoNotOptimize(h.stats().end);
  }
  state.counters["events/s"] = benchmark::Counter(double(events), benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(BM_ThemisScf1GB, analytical, "analytical")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ThemisScf1GB, flow, "flow")->Unit(benchmark::kMillisecond);

}  // namespace
