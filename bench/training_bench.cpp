// Speed of training runs (issue 11): one data-parallel ResNet-50 iteration (the zoo model,
// MultiTree's systolic arrays, 16 samples per NPU) on 1024 NPUs (a 16 x 8 x 8 torus),
// hierarchical all-reduce (rings both ways in each dimension) in one chunk, analytical backend
// (target < 2 s; ASTRA-sim takes about 80 s). Results go in docs/performance.md.
#include <benchmark/benchmark.h>

#include "compute/systolic.hpp"
#include "topology/builders.hpp"
#include "workload/model_zoo.hpp"
#include "jobs/training.hpp"

namespace {

using namespace collsim;

void BM_ResNet50Iteration1024(benchmark::State& state, const char* topo_text) {
  const auto topo =
      topology::from_compact(topo_text, core::Bandwidth{25e9}, core::Time::from_ns(175));
  const compute::Systolic arrays({32, 32, 16, 1e9, {}});
  const workload::Workload w = workload::data_parallel(workload::find_model("resnet50", "bench"),
                                                       arrays, workload::BuildOptions{16, 4});
  jobs::TrainingOptions o;
  o.algorithm = collective::parse_algorithm("hierarchical", "bench");
  std::uint64_t events = 0;
  for (auto _ : state) {
    const auto r = jobs::run_training(topo, network::find_backend("analytical", "b"), w, o);
    events += r.events;
    benchmark::DoNotOptimize(r.total);
  }
  state.counters["events/s"] = benchmark::Counter(double(events), benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(BM_ResNet50Iteration1024, torus16x8x8, "torus:16x8x8")
    ->Unit(benchmark::kMillisecond);

}  // namespace
