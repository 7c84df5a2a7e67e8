// Bounded resources: jobs far beyond the machine are refused before they run, with the estimate
// and the option that raises the limit (scheduler/limits.hpp), exit status 2. Each case is a
// command that used to run until killed or end in std::bad_alloc; the refusal comes from the
// estimate (no simulation starts), so these tests take as long as building the topology.
#include <gtest/gtest.h>

#include <string>

#include "cli_run.hpp"
#include "refusal.hpp"
#include "core/error.hpp"
#include "scheduler/limits.hpp"
#include "test_paths.hpp"
#include "topology/builders.hpp"

namespace {

using collsim::test::collsim;

using collsim::test::expect_refused;

TEST(ResourceLimits, TooManyMessagesAreRefused) {
  // Direct on 2^20 NPUs: 2 N (N-1) = 2.2e12 messages.
  expect_refused("collective -t switch:1048576 -a direct -s 1MiB",
                 "switch:1048576 all-reduce direct in 1 chunk: about 2.2e+12 messages, over the "
                 "limit of 5e+08 (--max-messages");
  // Ring: 2 (N-1) N.
  expect_refused("collective -t switch:1000000 -a ring -s 1MiB",
                 "switch:1000000 all-reduce ring in 1 chunk: about 2e+12 messages");
  expect_refused("collective -t torus:1024x1024 -a ring",
                 "torus:1024x1024 all-reduce ring in 1 chunk: about 2.2e+12 messages");
  // 4 ranks, 6 messages per rank and chunk, 2^32 - 1 chunks: 1e11 messages, but first 1.7e10
  // pieces, past the 32-bit piece ids (checked before any estimate).
  expect_refused("collective -t ring:4 -a ring -s 1TiB --chunks 4294967295",
                 "chunks: all-reduce on 4 ranks in 4294967295 chunks has 17179869180 pieces");
  expect_refused("collective -t ring:4 -a ring -s 1TiB --chunks 1000000000",
                 "ring:4 all-reduce ring in 1000000000 chunks: about 2.4e+10 messages");
  // The limit is an option.
  expect_refused("collective -t ring:8 -a ring -s 1MiB --max-messages 100",
                 "about 112 messages, over the limit of 100");
  const auto ok = collsim("collective -t ring:8 -a ring -s 1MiB --max-messages 112 -q");
  EXPECT_EQ(ok.status, 0) << ok.err;
}

TEST(ResourceLimits, TooMuchMemoryIsRefused) {
  // Direct on 4096 NPUs keeps N (N-1) = 16.8 M messages in flight: 64 MiB + 8192 links x 130 B
  // + 16.8 M x 600 B = 9.4 GiB.
  expect_refused("collective -t switch:4096 -a direct -s 64MiB",
                 "switch:4096 all-reduce direct in 1 chunk: about 9.4 GiB of simulator memory "
                 "(1.68e+07 messages in flight at once), over the limit of 8 GiB "
                 "(--max-memory)");
  expect_refused("collective -t fc:4096 -a direct -s 1GiB",
                 "fc:4096 all-reduce direct in 1 chunk: about 11.5 GiB");  // + 16.8 M links
  // The verifier's contribution sets: 4096 ranks x 4096 pieces x 64 words.
  expect_refused("verify -t switch:4096 -a ring",
                 "verify ring all-reduce on switch:4096 in 1 chunk: about 8.1 GiB");
  expect_refused("verify -t torus:64x64 -a direct", "verify direct all-reduce on torus:64x64");
  expect_refused("collective -t ring:8 -a direct -s 1MiB --max-memory 1MiB",
                 "over the limit of 1 MiB (--max-memory)");
  const auto bad = collsim("collective -t ring:8 -a direct -s 1MiB --max-memory lots");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--max-memory"), std::string::npos) << bad.err;
}

TEST(ResourceLimits, ChunksAndPiecesAreBounded) {
  expect_refused("collective -t fc:4096 -a all -c reduce-scatter --chunks 80 -s 3B,1KiB",
                 "chunks: 80 chunks split 3 B over 4096 ranks into less than one byte per rank "
                 "and chunk; use at most 1 chunk for this size");
  expect_refused("verify -t ring:4 --chunks 4294967295 -a ring",
                 "--chunks (of 1 MiB): 4294967295 chunks split 1 MiB over 4 ranks into less than "
                 "one byte per rank and chunk; use at most 262144 chunks for this size");
  // All-to-all has N^2 pieces per chunk; piece ids are 32-bit.
  expect_refused("collective -t switch:65536 -c all-to-all -a direct",
                 "chunks: all-to-all on 65536 ranks in 1 chunk has 4294967296 pieces");
}

#if defined(__SANITIZE_ADDRESS__)
#define COLLSIM_NO_ULIMIT 1  // ASan reserves terabytes of address space
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COLLSIM_NO_ULIMIT 1
#endif
#endif

// Past the estimate (a limit raised to 100 GiB), memory runs out during the direct run: the error
// names that run, exit status 2, and the ring row that finished before it is still shown. One
// point at a time (-j 1): on two threads the ring and direct runs share the 450 MB, and either
// may be the one that runs out.
TEST(ResourceLimits, OutOfMemoryNamesTheRunAndKeepsFinishedRows) {
#ifdef COLLSIM_NO_ULIMIT
  GTEST_SKIP() << "address space limits do not mix with the address sanitizer";
#else
  // collsim() runs `cd SOURCE && 'BINARY' ARGS 2>FILE`: ARGS end the command and start a
  // subshell with 450 MB of address space.
  const auto r = collsim("--version >/dev/null; (ulimit -v 450000; exec '" COLLSIM_BINARY
                         "' collective -t fc:1024 -a ring,direct -s 1MiB --max-memory 100GiB -q -j 1)");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("collsim: error: fc:1024 direct 1 MiB flow: out of memory while "
                       "simulating; the rows before it are kept"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("1 MiB  ring"), std::string::npos) << r.out;
#endif
}

TEST(ResourceLimits, EstimateFollowsTheFormula) {
  using namespace collsim;
  const auto t = topology::from_compact("torus:4x4", core::Bandwidth{1e9}, core::Time{});
  const auto comms = collective::parse_groups("all", t, "g");
  // Ring on 16 ranks, 4 chunks: 2 x 15 x 16 x 4 = 1920 messages; 16 channels x 4 in flight.
  const auto ring = scheduler::estimate_work(collective::parse_algorithm("ring", "a"), t, comms,
                                             collective::Collective::AllReduce, 4);
  EXPECT_EQ(ring.messages, 1920u);
  EXPECT_EQ(ring.in_flight, 64u);
  EXPECT_EQ(ring.stored_ops, 0u);  // generated
  EXPECT_EQ(ring.memory(), scheduler::kBaseBytes + 64 * 130 + 64 * 600);
  // Halving-doubling is stored: 2 x 4 steps x 2 ops x 16 ranks = 256 ops per chunk.
  const auto hd = scheduler::estimate_work(collective::parse_algorithm("halving-doubling", "a"), t,
                                           comms, collective::Collective::AllReduce, 2);
  EXPECT_EQ(hd.stored_ops, 512u);
  EXPECT_EQ(hd.messages, 256u);
  EXPECT_THROW(scheduler::check_limits(ring, {1000, 8ull << 30}, "x"), core::ResourceError);
  EXPECT_NO_THROW(scheduler::check_limits(ring, {1920, 8ull << 30}, "x"));
}

// A staged collective is bounded by each dimension's stage algorithm's closed form, not by a ring
// both ways on every dimension (which refused Themis Fig. 12's 1024-NPU training scenario).
// hier:sw16xsw64 runs halving-doubling on both switches: 16 x 4 and 64 x 6 sends per phase.
TEST(ResourceLimits, StagedEstimateCountsEachDimensionsStageAlgorithm) {
  using namespace collsim;
  const auto t = topology::from_compact("hier:sw16xsw64", core::Bandwidth{1e9}, core::Time{});
  const auto comms = collective::parse_groups("all", t, "g");
  const auto hier = collective::parse_algorithm("hierarchical", "a");
  const auto c = collective::Collective::AllReduce;
  // One group per dimension stands for all: (2 x 16 x 4 + 2 x 64 x 6) x 64 chunks.
  EXPECT_EQ(scheduler::bound_work(hier, t, comms, c, 64).messages, (128u + 768u) * 64u);
  // Every group: 64 groups of 16 and 16 of 64 (a ring both ways would be 2.0e7).
  EXPECT_EQ(scheduler::bound_work(hier, t, comms, c, 64, true).messages,
            (64u * 128u + 16u * 768u) * 64u);
}

}  // namespace
