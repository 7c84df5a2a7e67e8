// ideal is a true bound of ACE (MICRO'20 Sec. 5: "an upper bound to our design"): with every
// cost of ACE's engine set to zero (LogGP-free buses of unlimited bandwidth for its DMA, ALUs of
// unlimited rate), ACE takes ideal's time within 1%: nothing else in the engine (admission,
// RX DMA, staging events) costs time. ACE's SRAM and state machines are not costs but its
// schedule, which ideal shares (ace.cpp). ideal at the paper's parameters keeps one cost, its
// TX DMA over Table 7's buses (docs/ace.md "Ideal").
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "endpoint/endpoint.hpp"
#include "jobs/collective_sweep.hpp"
#include "paper_settings.hpp"
#include "topology/builders.hpp"

namespace collsim {
namespace {

topology::DimSpec ring(std::uint32_t n, double gbps, std::int64_t ns) {
  return test::ring_dim(n, gbps, ns);
}

// One all-reduce on Table 5's 4x2x2 torus (Table 7's links, 94% efficiency), Fig. 9's
// hierarchical settings, flow backend.
double all_reduce_us(const char* endpoint, std::uint64_t size, bool free_engine) {
  const auto t = topology::hierarchical({ring(4, 200, 90), ring(2, 25, 200), ring(2, 25, 200)});
  jobs::CollectiveJob job;
  job.collective = collective::Collective::AllReduce;
  job.sizes = {core::Bytes{size}};
  job.algorithms = {collective::parse_algorithm("hierarchical:active_chunks=4", "t")};
  job.chunks = 16;
  job.endpoint = &endpoint::find_endpoint(endpoint, "t");
  auto& p = job.endpoint_params;
  p.link_efficiency = 0.94;
  if (free_engine) {
    const double inf = std::numeric_limits<double>::infinity();
    p.bus_latency = p.bus_overhead = p.bus_gap = core::Time{};
    p.npu_nic_bandwidth = p.npu_memory_bandwidth = core::Bandwidth{inf};
    p.ace_clock_hz = inf;  // ALUs of unlimited rate
  }
  const auto rows = run_collective_job("p", t, network::find_backend("flow", "b"), job);
  return rows.at(0).time.us();
}

TEST(AceIdealBound, AceWithEveryCostZeroTakesIdealsTime) {
  for (const std::uint64_t size : {std::uint64_t{256} << 10, std::uint64_t{4} << 20}) {
    const double free_ace = all_reduce_us("ace", size, true);
    const double free_ideal = all_reduce_us("ideal", size, true);
    const double ideal = all_reduce_us("ideal", size, false);
    const std::string what = std::to_string(size) + " bytes";
    EXPECT_NEAR(free_ace / free_ideal, 1.0, 0.01) << what << ": " << free_ace << " vs "
                                                  << free_ideal;
    // With its costs ACE is slower than ideal (the test can fail both ways).
    EXPECT_GT(all_reduce_us("ace", size, false), ideal * 1.01) << what;
  }
}

}  // namespace
}  // namespace collsim
