// Closed-form program sizes (AlgorithmInfo::size, issue 36 item 6): every algorithm's one-chunk
// bound covers the program it builds (sends and stored ops) and is within a small factor of it,
// so the limits can refuse a job before building anything; and the commands that used to build
// gigabytes of schedule before any refusal are refused at once.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "refusal.hpp"
#include "collective/algorithm.hpp"
#include "core/error.hpp"
#include "scheduler/limits.hpp"
#include "topology/builders.hpp"

namespace collsim::collective {
namespace {

TEST(ProgramSize, EveryAlgorithmHasAClosedForm) {
  for (const AlgorithmInfo& info : algorithms()) {
    EXPECT_EQ(info.size == nullptr, info.staged) << info.name;
  }
}

TEST(ProgramSize, BoundsTheBuiltProgram) {
  std::size_t checked = 0;
  for (const char* t : {"switch:16", "switch:64", "ring:12", "torus:4x4", "torus:8x8", "mesh:4x6",
                        "bigraph:4x4", "bigraph:8x8", "swfc:2:4:2", "fc:9"}) {
    const topology::Topology topo =
        topology::from_compact(t, core::Bandwidth{1e9}, core::Time::from_ns(1), "t");
    for (const AlgorithmInfo& info : algorithms()) {
      if (info.staged) continue;
      for (Collective c : info.collectives) {
        const AlgorithmChoice choice = make_choice(info, {}, info.name, "a");
        Program p;
        try {
          p = build_program(choice, topo, c, core::Bytes{1 << 20}, 1);
        } catch (const core::InputError&) {
          continue;  // cannot run here
        }
        const ProgramSize s = program_size(choice, topo, whole(topo), c, 1);
        std::uint64_t sends = 0;
        for (Lane l = 0; l < p.num_lanes(); ++l) {
          for (std::uint32_t i = 0; i < p.num_ops(l); ++i) sends += p.op(l, i).is_send() ? 1 : 0;
        }
        const std::string what = fmt::format("{} {} on {}", info.name, to_string(c), t);
        EXPECT_GE(s.sends, sends) << what;
        // Tight enough not to refuse a job the limits allow (WRHT's all-to-all bound is loose;
        // package-doubling counts the stripes of every local-switch dimension).
        if (info.name != "wrht") {
          EXPECT_LE(s.sends, 4 * sends + 16) << what;
        }
        if (!p.generator) {
          EXPECT_GE(s.stored_ops, p.total_ops()) << what;
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 150u);
}

TEST(ProgramSize, SchedulesPastTheLimitsAreNotBuilt) {
  // Multitree on 65536 NPUs: 2 N (N - 1) = 8.6e9 sends; it used to build 2 GiB and run out of
  // memory before any refusal.
  test::expect_refused("collective -t switch:65536 -a multitree",
                         "switch:65536 all-reduce multitree in 1 chunk: about 8.59e+09 messages");
  // -a all on a million NPUs: every algorithm's schedule (4-8 GiB) was built to check it.
  test::expect_refused("collective -t switch:1000000 -a all -c reduce-scatter",
                         "switch:1000000 reduce-scatter ring in 1 chunk: about 1e+12 messages");
  // Staged (hierarchical) collectives: each dimension's stage algorithm's sends per group and
  // phase (the 1024-ring's 2 x 1024 x 1023, fc:8's direct 8 x 7, sw32's halving-doubling
  // 32 x 5), the first group standing for all (groups=auto):
  // 2 (2 * 1024 * 1023 + 56 + 160) = 4.19e6.
  test::expect_refused("collective -t hier:ring1024xfc8xsw32 -s 64MiB -a hierarchical "
                       "--max-messages 1e6",
                       "hierarchical in 1 chunk: about 4.19e+06 messages, over the limit of 1e+06");
  // ... but the 1024-NPU ring dimension is too large to check for symmetry, so every group runs:
  // 2 (256 * 2 * 1024 * 1023 + 32768 * 56 + 8192 * 160) = 1.08e9, refused before the run (it
  // used to pass the one-group estimate and spend minutes comparing routes).
  test::expect_refused("collective -t hier:ring1024xfc8xsw32 -s 64MiB -a hierarchical "
                       "--max-messages 1e7",
                       "(every group simulated: dim0: more than 200000000 route hops to compare "
                       "(groups of 1024 NPUs); not checked): about 1.08e+09 messages");
  // The verifier's state (a bitset per rank and piece) is checked first, in closed form.
  test::expect_refused("verify -t torus:1024x1024 -a halving-doubling",
                         "verify halving-doubling all-reduce on torus:1024x1024 in 1 chunk: about "
                         "128 PiB of simulator memory, over the limit");
}

}  // namespace
}  // namespace collsim::collective
