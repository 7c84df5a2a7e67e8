// ACE's admission in closed form (MICRO'20 Sec. 4.3 and 6): a chunk-stage starts only when its
// phase's SRAM partition has room for it and one of the phase's state machines is free, so on a
// latency-bound ring the chunks run in waves of what fits, and a chunk's bytes stay in its
// partition until it has entered the next one (Sec. 4.3.1).
#include <gtest/gtest.h>

#include <cstdint>

#include "endpoint/endpoint.hpp"
#include "jobs/collective_sweep.hpp"
#include "network/analytical.hpp"
#include "paper_settings.hpp"
#include "topology/builders.hpp"

namespace collsim {
namespace {

// One ring of 4 NPUs, 1 us per hop and a bandwidth that makes serialization vanish; ACE with
// free buses and ALUs. The hierarchical all-reduce runs the ring as two phases, reduce-scatter
// then all-gather (3 steps of one hop each: 3 us whatever the bytes), so only admission can make
// chunks wait.
double ace_all_reduce_us(std::uint64_t sram, std::uint32_t machines,
                         const char* algorithm = "hierarchical:active_chunks=32:flat=run") {
  const auto t = topology::hierarchical({test::ring_dim(4, 1e6, 1000)});  // 1e15 B/s, 1 us
  jobs::CollectiveJob job;
  job.collective = collective::Collective::AllReduce;
  job.sizes = {core::Bytes{16 * 4096}};  // 16 chunks of 4 KB per NPU
  job.algorithms = {collective::parse_algorithm(algorithm, "t")};
  job.chunks = 16;
  job.endpoint = &endpoint::find_endpoint("ace", "t");
  auto& p = job.endpoint_params;
  p.bus_latency = p.bus_overhead = p.bus_gap = core::Time{};
  p.npu_nic_bandwidth = p.npu_memory_bandwidth = core::Bandwidth{1e18};
  p.ace_alus = 1000000;
  p.ace_sram = core::Bytes{sram};
  p.ace_state_machines = machines;
  const auto rows = run_collective_job("p", t, network::find_backend("analytical", "b"), job);
  return rows.at(0).time.us();
}

TEST(AceAdmission, ChunksRunInWavesOfWhatTheSramPartitionHolds) {
  // Two phases and the results partition, weighted alike (bandwidth x 4 KB each: a chunk holds
  // 4 KB in the reduce-scatter, the all-gather and the results), so SRAM = 3 x k x 4 KB holds k
  // chunks per partition: k chunks reduce-scatter while the k before them all-gather, and 16
  // chunks take ceil(16 / k) + 1 waves of 3 us (32 state machines: 16 per phase, not binding).
  for (const std::uint32_t k : {16u, 4u, 3u, 1u}) {
    const double waves = (16 + k - 1) / k + 1;
    EXPECT_NEAR(ace_all_reduce_us(3ull * k * 4096, 32), waves * 3.0, 0.01) << "k = " << k;
  }
}

TEST(AceAdmission, ChunksRunInWavesOfTheFreeStateMachines) {
  // 4 MB of SRAM holds every chunk; m = machines / 2 state machines per phase: ceil(16 / m) + 1
  // waves of 3 us.
  EXPECT_NEAR(ace_all_reduce_us(4u << 20, 4), (8 + 1) * 3.0, 0.01);   // m = 2
  EXPECT_NEAR(ace_all_reduce_us(4u << 20, 10), (4 + 1) * 3.0, 0.01);  // m = 5
}

// One pipelining rule for every endpoint: a dimension holds active_chunks places, and ACE's
// 64 KB chunks, finer than the chunks asked for, each hold their share of one, so ACE keeps the
// bytes in flight the pass-through keeps. 1 MiB per NPU (16 ACE chunks of 64 KB) asked in 4 chunks
// at one place: `none` runs its 4 chunks' 8 stages one at a time (8 x 3 us); ACE, free and
// unbounded, runs 4 of its 16 chunks' 32 stages at a time, the same 8 waves.
double latency_bound_us(const char* endpoint, std::uint32_t machines) {
  const auto t = topology::hierarchical({test::ring_dim(4, 1e6, 1000)});  // 1e15 B/s, 1 us
  jobs::CollectiveJob job;
  job.collective = collective::Collective::AllReduce;
  job.sizes = {core::Bytes{16 * 65536}};
  job.algorithms = {collective::parse_algorithm("hierarchical:flat=run", "t")};
  job.chunks = 4;
  job.endpoint = &endpoint::find_endpoint(endpoint, "t");
  auto& p = job.endpoint_params;
  p.bus_latency = p.bus_overhead = p.bus_gap = core::Time{};
  p.npu_nic_bandwidth = p.npu_memory_bandwidth = core::Bandwidth{1e18};
  p.ace_alus = 1000000;
  p.ace_sram = core::Bytes{1u << 30};
  p.ace_state_machines = machines;
  const auto rows = run_collective_job("p", t, network::find_backend("analytical", "b"), job);
  return rows.at(0).time.us();
}

TEST(AceAdmission, EveryEndpointKeepsTheSameBytesInFlightPerDimension) {
  EXPECT_NEAR(latency_bound_us("none", 64), 8 * 3.0, 0.01);
  EXPECT_NEAR(latency_bound_us("ace", 64), 8 * 3.0, 0.01);
  // Its state machines can only lower that: 2 machines, one per phase, run one of its 16 chunks'
  // stages at a time per phase: the 16 reduce-scatters, then the all-gathers behind them.
  EXPECT_GT(latency_bound_us("ace", 2), 8 * 3.0 + 1);
}

TEST(AceAdmission, AChunksBytesStayInItsPartitionUntilItEntersTheNext) {
  const auto t = topology::from_compact("fc:2", core::Bandwidth{100e9}, core::Time::from_ns(100));
  core::Simulation sim;
  network::AnalyticalBackend net(sim, t);
  endpoint::EndpointParams p;
  p.ace_sram = core::Bytes{3000};
  p.ace_state_machines = 2;
  auto ace = endpoint::find_endpoint("ace", "t").make(sim, net, t, p);
  endpoint::ChunkAdmission* a = ace->admission();
  ASSERT_NE(a, nullptr);
  a->shape({{1, 1, 1}, {1, 1, 1}, {1, 1, 1}});  // two phases and results, 1000 bytes each; one
                                               // machine per phase
  ASSERT_TRUE(a->try_enter(0, 600));
  EXPECT_FALSE(a->try_enter(0, 100));  // the phase's one state machine is busy
  a->finish(0);                        // the stage ended: the machine is free ...
  EXPECT_FALSE(a->try_enter(0, 500));  // ... but the chunk's 600 bytes are still there
  ASSERT_TRUE(a->try_enter(0, 400));
  a->finish(0);
  // The first chunk moves on to phase 1: its bytes leave phase 0 once it is in.
  ASSERT_TRUE(a->try_enter(1, 900));
  a->leave(0, 600);
  ASSERT_TRUE(a->try_enter(0, 600));
  a->finish(0);
  // A chunk that stays in its partition for its next stage counts its own bytes as room:
  // 600 held + 400 of another = 1000; it grows to 600 -> 600 and fits, to 700 it would not.
  EXPECT_FALSE(a->try_enter(0, 700, 600));
  EXPECT_TRUE(a->try_enter(0, 600, 600));
  EXPECT_EQ(ace->stats().oversize, 0u);
}

}  // namespace
}  // namespace collsim
