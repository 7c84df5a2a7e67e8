// Speed of whole collectives: program build + simulation, on the analytical backend.
// Counters: simulated events per wall second and messages. Results go in docs/performance.md.
#include <benchmark/benchmark.h>

#include "runtime/execute.hpp"
#include "collective/algorithm.hpp"
#include "core/engine.hpp"
#include "network/analytical.hpp"
#include "network/packet.hpp"
#include "scheduler/executor.hpp"
#include "topology/builders.hpp"

namespace {

using namespace collsim;

void run(benchmark::State& state, const topology::Topology& topo, const char* algo,
         std::uint64_t bytes, std::uint32_t chunks) {
  const auto choice = collective::parse_algorithm(algo, "bench");
  std::uint64_t events = 0, messages = 0;
  for (auto _ : state) {
    const auto program = collective::build_program(choice, topo, collective::Collective::AllReduce,
                                                   core::Bytes{bytes}, chunks);
    core::Simulation sim;
    network::AnalyticalBackend net(sim, topo);
    const auto r = runtime::execute(program, net, sim);
    events += r.events;
    messages += r.messages;
    benchmark::DoNotOptimize(r.time);
  }
  state.counters["events/s"] = benchmark::Counter(double(events), benchmark::Counter::kIsRate);
  state.counters["messages"] =
      benchmark::Counter(double(messages), benchmark::Counter::kAvgIterations);
}

// ASTRA-sim's reference job (issue 3): 64 MB ring all-reduce in 4 chunks on an N-NPU switch.
void BM_RingSwitch(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  const auto topo = topology::switch_star(n, core::Bandwidth{50e9}, core::Time::from_ns(500));
  run(state, topo, "ring", 64ull << 20, 4);
}
BENCHMARK(BM_RingSwitch)->Arg(64)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);

void BM_HalvingDoublingSwitch(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  const auto topo = topology::switch_star(n, core::Bandwidth{50e9}, core::Time::from_ns(500));
  run(state, topo, "halving-doubling", 64ull << 20, 4);
}
BENCHMARK(BM_HalvingDoublingSwitch)->Arg(64)->Arg(1024)->Unit(benchmark::kMillisecond);

void BM_DirectSwitch(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  const auto topo = topology::switch_star(n, core::Bandwidth{50e9}, core::Time::from_ns(500));
  run(state, topo, "direct", 64ull << 20, 1);
}
BENCHMARK(BM_DirectSwitch)->Arg(64)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);

// The MultiTree platform: 8x8 torus, 16 GB/s, 150 ns.
void BM_RingTorus8x8(benchmark::State& state) {
  const auto topo = topology::torus({8, 8}, core::Bandwidth{16e9}, core::Time::from_ns(150));
  run(state, topo, "ring", 64ull << 20, static_cast<std::uint32_t>(state.range(0)));
}
BENCHMARK(BM_RingTorus8x8)->Arg(1)->Arg(64)->Unit(benchmark::kMillisecond);

}  // namespace

namespace {

// The packet backend on MultiTree's platform (8x8 torus, Table III options): flit-hops per
// wall second is the figure to compare with BookSim's 0.1-1 M (issue 4 target: 50 M).
void BM_PacketRingTorus8x8(benchmark::State& state) {
  using namespace collsim;
  const auto topo = topology::torus({8, 8}, core::Bandwidth{16e9}, core::Time::from_ns(150));
  const auto choice = collective::parse_algorithm("ring", "bench");
  const auto size = static_cast<std::uint64_t>(state.range(0)) << 20;
  double flit_hops = 0, events = 0, packets = 0;  // packets: 17 flits each (Table III)
  for (auto _ : state) {
    const auto program = collective::build_program(choice, topo, collective::Collective::AllReduce,
                                                   core::Bytes{size}, 1);
    core::Simulation sim;
    network::PacketBackend net(sim, topo, {});
    benchmark::DoNotOptimize(runtime::execute(program, net, sim).time);
    for (const auto& [key, value] : net.summary()) {
      if (key == "flit_hops") flit_hops += value;
      if (key == "flits") packets += value / 17;
    }
    events += static_cast<double>(sim.events_processed());
  }
  state.counters["flit-hops/s"] = benchmark::Counter(flit_hops, benchmark::Counter::kIsRate);
  state.counters["events/packet"] = events / packets;
}
BENCHMARK(BM_PacketRingTorus8x8)->Arg(1)->Arg(4)->Unit(benchmark::kMillisecond);

}  // namespace
