// HDRM (halving-doubling with EFLOPS rank mapping): the mapping's two properties, the program,
// and its bandwidth on the BiGraph.
#include "runtime/execute.hpp"
#include "collective/algorithms/hdrm.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>

#include "collective/algorithm.hpp"
#include "collective/ir/verifier.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "network/flow.hpp"
#include "scheduler/executor.hpp"
#include "topology/builders.hpp"

namespace collsim::collective {
namespace {

topology::Topology net(const char* spec) {
  return topology::from_compact(spec, core::Bandwidth{16e9}, core::Time::from_ns(150));
}

TEST(Hdrm, EveryPairSpansTheLayersAndNoLinkIsOverloaded) {
  for (const auto& [s, p] :
       {std::pair{4u, 8u}, std::pair{4u, 16u}, std::pair{2u, 4u}, std::pair{8u, 4u}}) {
    const HdrmMapping m = hdrm_mapping(s, p);
    const std::uint32_t n = s * p, half = s / 2;
    ASSERT_EQ(m.npu.size(), n);
    std::vector<std::uint32_t> sorted = m.npu;
    std::sort(sorted.begin(), sorted.end());
    for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(sorted[i], i);  // a permutation
    EXPECT_EQ(m.overloaded_pairs, 0u) << s << "x" << p;
    // Recount from the NPUs: in step k every pair (r, r ^ 2^k) has one NPU on each layer, and
    // each upper-lower switch pair carries at most P / (S/2) of them.
    const std::uint32_t cap = std::max(1u, p / half);
    for (std::uint32_t k = 0; (1u << k) < n; ++k) {
      std::vector<std::uint32_t> load(s * s, 0);
      for (std::uint32_t r = 0; r < n; ++r) {
        const std::uint32_t a = m.npu[r] / p, b = m.npu[r ^ (1u << k)] / p;
        EXPECT_NE(a < half, b < half) << "rank " << r << " step " << k;
        ++load[a * s + b];
      }
      EXPECT_LE(*std::max_element(load.begin(), load.end()), cap) << s << "x" << p << " k " << k;
    }
  }
}

TEST(Hdrm, VerifiedOnBiGraphsAndRefusedElsewhere) {
  for (const char* spec : {"bigraph:4x8", "bigraph:4x16", "bigraph:2x4"}) {
    for (std::uint32_t chunks : {1u, 3u}) {
      const auto p = build_program(parse_algorithm("hdrm", "a"), net(spec), Collective::AllReduce,
                                   core::Bytes{1 << 20}, chunks);
      const auto v = verify(p);
      EXPECT_TRUE(v.ok) << spec << ": " << v.reason;
    }
  }
  EXPECT_EQ(refusal(find_algorithm("hdrm", "a"), net("torus:4x4")),
            "needs a BiGraph (bigraph:SxP), got torus:4x4");
  EXPECT_THROW(build_program(parse_algorithm("hdrm", "a"), net("bigraph:6x4"),
                             Collective::AllReduce, core::Bytes{1 << 20}, 1),
               core::InputError);  // 24 NPUs: not a power of two
}

TEST(Hdrm, FullBandwidthAtLargeSizesUnlikeUnmappedHalvingDoubling) {
  // Contention-free: 64 MiB takes the halving-doubling bound 2 (N-1)/N S/B (plus latency) on
  // the flow backend, within 1%; plain halving-doubling's pairs share links and take >= 1.5x.
  const auto t = net("bigraph:4x8");
  const std::uint64_t s = 64ull << 20;
  auto time = [&](const char* algo) {
    const auto p =
        build_program(parse_algorithm(algo, "a"), t, Collective::AllReduce, core::Bytes{s}, 1);
    core::Simulation sim;
    network::FlowBackend backend(sim, t, {});
    return runtime::execute(p, backend, sim).time.seconds();
  };
  const double bound = 2.0 * 31 / 32 * double(s) / 16e9;
  const double hdrm = time("hdrm");
  EXPECT_GT(hdrm, bound);
  EXPECT_LT(hdrm, bound * 1.01);
  EXPECT_GT(time("halving-doubling"), 1.5 * hdrm);
}

}  // namespace
}  // namespace collsim::collective
