// Hierarchical collectives: stages per dimension on every group at once, chunks pipelined through
// per-dimension queues, baseline and Themis schedules. Closed forms on the analytical backend.
#include "scheduler/hierarchical.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "network/analytical.hpp"
#include "network/backend.hpp"
#include "jobs/result.hpp"
#include "jobs/collective_sweep.hpp"
#include "topology/builders.hpp"

namespace collsim::scheduler {
namespace {

using namespace collsim::jobs;  // NOLINT: the drivers under test

using collective::Collective;

const core::Bandwidth kBw{16e9};
const core::Time kLat = core::Time::from_ns(150);

struct Outcome {
  CollectiveStats stats;
  std::vector<DimActivity> activity;
  Plan plan;
};

Outcome run(const topology::Topology& t, HierarchicalSpec spec,
            const char* backend = "analytical") {
  core::Simulation sim;
  auto net = network::make_backend(network::find_backend(backend, "b"), sim, t, {}, "b");
  endpoint::Ideal ep(sim, *net);
  Executor ex(sim, ep);
  HierarchicalCollective h(t, ex, std::move(spec));
  bool done = false;
  h.start([&](const CollectiveStats&) { done = true; });
  run_until_finished(sim, ex, *net, core::Time{});
  EXPECT_TRUE(done);
  EXPECT_TRUE(h.finished());
  return Outcome{h.stats(), h.activity(), h.plan()};
}

// One-way rings in both dimensions, so that the closed forms below use one link per step (the
// default, ring both ways, halves each step's serialization).
HierarchicalSpec all_reduce(std::uint64_t bytes, std::uint32_t chunks) {
  HierarchicalSpec s;
  s.size = core::Bytes{bytes};
  s.chunks = chunks;
  s.dim_algorithms = {collective::parse_algorithm("ring", "t"),
                      collective::parse_algorithm("ring", "t")};
  return s;
}

TEST(Hierarchical, OneChunkIsFourRingStagesInSequence) {
  // torus:4x4, baseline, 1 chunk of S = 1 MiB; ring in each dimension, one direction (B = 16 GB/s):
  //   RS dim0 on S: 3 (alpha + S/(4B)); RS dim1 on S/4: 3 (alpha + S/(16B));
  //   AG dim1 to S/4: 3 (alpha + S/(16B)); AG dim0 to S: 3 (alpha + S/(4B)).
  // = 12 x 150 ns + 6 x 16.384 us + 6 x 4.096 us = 124.68 us, on the analytical and flow backends
  // alike (the four X rings of a stage share no link).
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  for (const char* backend : {"analytical", "flow"}) {
    const Outcome o = run(t, all_reduce(1 << 20, 1), backend);
    EXPECT_EQ(o.stats.time().ps, 124680000) << backend;
    // 4 stages x 4 groups x 4 ranks x 3 messages.
    EXPECT_EQ(o.stats.messages, 4u * 4 * 4 * 3) << backend;
    ASSERT_EQ(o.activity.size(), 2u);
    EXPECT_EQ(o.activity[0].busy.size(), 2u);  // RS and AG on dim0
    EXPECT_EQ(o.activity[1].busy.size(), 2u);
  }
}

TEST(Hierarchical, TwoChunksPipelineThroughTheDimensionQueues) {
  // The same with 2 chunks of S/2 (baseline, FIFO, one chunk-stage per dimension at a time).
  // A dim0 stage takes T0 = 3 (150 ns + 8.192 us) = 25.026 us, a dim1 stage T1 = 3 (150 ns +
  // 2.048 us) = 6.594 us. Chunk 1's RS on dim0 runs while chunk 0 is in dim1; chunk 0's AG on
  // dim0 (ready at T0 + 2 T1) waits for it; dim0 is never idle: the run takes 4 T0 = 100.104 us
  // against 124.68 us in one chunk.
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  const Outcome o = run(t, all_reduce(1 << 20, 2));
  EXPECT_EQ(o.stats.time().ps, 100104000);
  ASSERT_EQ(o.activity[0].busy.size(), 4u);
  // dim0 in order: c0 RS [0, T0], c1 RS [T0, 2 T0], c0 AG [2 T0, 3 T0], c1 AG [3 T0, 4 T0].
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(o.activity[0].busy[i].first.ps, static_cast<std::int64_t>(i) * 25026000) << i;
    EXPECT_EQ(o.activity[0].busy[i].second.ps, static_cast<std::int64_t>(i + 1) * 25026000) << i;
  }
  // dim1: c0 RS [T0, T0 + T1], c0 AG [T0 + T1, T0 + 2 T1], c1 RS [2 T0, 2 T0 + T1], c1 AG.
  ASSERT_EQ(o.activity[1].busy.size(), 4u);
  EXPECT_EQ(o.activity[1].busy[1].first.ps, 25026000 + 6594000);
  EXPECT_EQ(o.activity[1].busy[2].first.ps, 2 * 25026000);
}

TEST(Hierarchical, ActivityShareOfEachDimension) {
  // The two-chunk pipeline above: dim0 runs a stage all the time (4 T0 of 4 T0), dim1 four stages
  // of T1 = 6.594 us out of 100.104 us: 26.376 / 100.104 = 26.35%.
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  const Outcome o = run(t, all_reduce(1 << 20, 2));
  const auto share = activity_share(o.activity, o.stats.start, o.stats.end);
  ASSERT_EQ(share.size(), 2u);
  EXPECT_DOUBLE_EQ(share[0], 1.0);
  EXPECT_NEAR(share[1], 4 * 6594000.0 / 100104000.0, 1e-12);
  // Overlapping stages (active_chunks > 1) count once.
  DimActivity a;
  a.busy = {{core::Time{0}, core::Time{10}},
            {core::Time{5}, core::Time{20}},
            {core::Time{30}, core::Time{40}}};
  EXPECT_DOUBLE_EQ(activity_share({a}, core::Time{0}, core::Time{40})[0], 30.0 / 40.0);
  // And rows carry it: CSV dim_activity for a hierarchical job.
  CollectiveJob job;
  job.sizes = {core::Bytes{1 << 20}};
  job.chunks = 2;
  job.algorithms = {collective::parse_algorithm("hierarchical", "t")};
  const auto rows = run_collective_job("p", t, network::find_backend("analytical", "b"), job);
  ASSERT_EQ(rows[0].dim_activity.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[0].dim_activity[0], 1.0);
  EXPECT_TRUE(rows[1].dim_activity.empty());  // the ideal row
}

TEST(Hierarchical, ThemisBeatsBaselineWhenTheSecondDimensionHasSpareBandwidth) {
  // Themis Sec. 3.3: 4 x 4 with BW(dim2) = BW(dim1) / 2 (not / 4), 256 MB in 4 chunks; rings of
  // 50 and 25 GB/s per direction, the ring algorithm using one direction. Per chunk walked dim1
  // first, dim1 carries RS + AG = 2 x 3 x 16 MB / 50 GB/s = 1.92 ms and dim2 0.96 ms, so the
  // baseline takes 4 x 1.92 = 7.68 ms (+ latencies). Themis plans chunk 2 dim2-first (Fig. 7):
  // dimension loads end at (6.24, 6.72) ms. With SCF the run reaches that bound, 6.7236 ms; with
  // FIFO the last chunks starve dim1 and nothing is gained (Sec. 4.3: SCF is needed).
  const auto t = topology::hierarchical(
      {topology::DimSpec{topology::DimKind::Ring, 4, core::Bandwidth{50e9}, kLat, 2},
       topology::DimSpec{topology::DimKind::Ring, 4, core::Bandwidth{25e9}, kLat, 2}});
  HierarchicalSpec base = all_reduce(256000000, 4);
  HierarchicalSpec themis = base;
  themis.schedule = InterDimPolicy::Themis;
  HierarchicalSpec scf = themis;
  scf.intra = IntraDimPolicy::Scf;
  const Outcome b = run(t, base), th = run(t, themis), s = run(t, scf);
  EXPECT_EQ(th.plan.chunks[1].dims, (std::vector<std::uint32_t>{1, 0, 0, 1}));
  EXPECT_NEAR(b.stats.time().seconds(), 7.68e-3, 0.01e-3);
  EXPECT_NEAR(th.stats.time().seconds(), b.stats.time().seconds(), 0.001 * 7.68e-3);
  EXPECT_NEAR(s.stats.time().seconds(), 6.72e-3, 0.01e-3);
  // ASTRA-sim's reading of SCF (scf-astra: a chunk's second-to-last stage to the tail) cannot
  // beat the dimension-load bound of 6.72 ms nor lose to the baseline's 7.68 ms.
  HierarchicalSpec astra = themis;
  astra.intra = IntraDimPolicy::ScfAstra;
  const double ta = run(t, astra).stats.time().seconds();
  EXPECT_GE(ta, 6.72e-3 - 0.01e-3);
  EXPECT_LE(ta, 7.68e-3 + 0.01e-3);
  EXPECT_EQ(parse_intra_dim_policy("scf-astra", "f"), IntraDimPolicy::ScfAstra);
  // With Themis's default 64 chunks FIFO also gains: 7.7376 ms baseline, 6.4776 ms Themis.
  HierarchicalSpec base64 = all_reduce(256000000, 64), themis64 = base64;
  themis64.schedule = InterDimPolicy::Themis;
  const double tb = run(t, base64).stats.time().seconds();
  const double tt = run(t, themis64).stats.time().seconds();
  EXPECT_NEAR(tb, 7.7376e-3, 0.001e-3);
  EXPECT_NEAR(tt, 6.4776e-3, 0.001e-3);
}

TEST(Hierarchical, DefaultRingsRunBothWays) {
  // The Table 1 default on a bidirectional ring is the ring both ways: each step moves S/(2N)
  // per direction, so one chunk on torus:4x4 takes 12 x 150 ns + 6 x 8.192 us + 6 x 2.048 us =
  // 63.24 us (124.68 us one way).
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  HierarchicalSpec s = all_reduce(1 << 20, 1);
  s.dim_algorithms.clear();
  EXPECT_EQ(run(t, s).stats.time().ps, 63240000);
  EXPECT_EQ(default_dim_algorithm(topology::DimKind::Ring).label, "ring:directions=2");
  EXPECT_EQ(default_dim_algorithm(topology::DimKind::Switch).label, "halving-doubling");
  EXPECT_EQ(default_dim_algorithm(topology::DimKind::FullyConnected).label, "direct");
  // Halving-doubling needs a power of two: a switch of 10 takes direct, one of 8 keeps it.
  EXPECT_EQ(default_dim_algorithm(topology::DimKind::Switch, Collective::AllReduce,
                                  InterDimPolicy::Baseline, 10).label,
            "direct");
  EXPECT_EQ(default_dim_algorithm(topology::DimKind::Switch, Collective::AllReduce,
                                  InterDimPolicy::Baseline, 8).label,
            "halving-doubling");
}

TEST(Hierarchical, PerDimensionAllReduceBaselineOfTheAuthorsCode) {
  // schedule=per-dim-all-reduce: a full ring all-reduce of S in dim0, then of S in dim1 (one-way
  // rings): 2 x 2 x 3 (alpha + S/(4B)) = 12 x 150 ns + 12 x 16.384 us = 198.408 us.
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  HierarchicalSpec s = all_reduce(1 << 20, 1);
  s.schedule = InterDimPolicy::PerDimAllReduce;
  const Outcome o = run(t, s);
  EXPECT_EQ(o.stats.time().ps, 198408000);
  EXPECT_EQ(o.plan.chunks[0].ops,
            (std::vector<Collective>{Collective::AllReduce, Collective::AllReduce}));
}

TEST(Hierarchical, AllToAllRunsOneAllToAllPerDimension) {
  // ACE Table 5: an all-to-all in each dimension; fc 4 x fc 4 (a link to every peer of a group),
  // S = 1 MiB per NPU, 1 chunk, direct in both (the default for fc): each stage sends S/4 to each
  // of 3 peers on its own link at once, so 2 (alpha + S/(4B)) = 2 x (150 ns + 16.384 us) =
  // 33.068 us; the bytes per NPU do not shrink between the stages.
  using topology::DimKind;
  const auto t =
      topology::hierarchical({topology::DimSpec{DimKind::FullyConnected, 4, kBw, kLat, 3},
                              topology::DimSpec{DimKind::FullyConnected, 4, kBw, kLat, 3}});
  HierarchicalSpec s;
  s.collective = Collective::AllToAll;
  s.size = core::Bytes{1 << 20};
  s.chunks = 1;
  for (const char* backend : {"analytical", "flow"}) {
    const Outcome o = run(t, s, backend);
    EXPECT_EQ(o.stats.time().ps, 33068000) << backend;
    EXPECT_EQ(o.stats.messages, 2u * 16 * 3) << backend;  // 2 stages x 16 NPUs x 3 peers
    EXPECT_EQ(o.stats.bytes, 2u * 16 * 3 * (1 << 18)) << backend;
    EXPECT_EQ(o.plan.chunks[0].dims, (std::vector<std::uint32_t>{0, 1}));
    EXPECT_EQ(o.plan.chunks[0].ops,
              (std::vector<Collective>{Collective::AllToAll, Collective::AllToAll}));
  }
  // Table 5's choices by kind: ring on rings (both ways round a bidirectional one) and lines,
  // direct on fc and switches.
  EXPECT_EQ(default_dim_algorithm(DimKind::Ring, Collective::AllToAll).label, "ring:directions=2");
  EXPECT_EQ(default_dim_algorithm(DimKind::Switch, Collective::AllToAll).label, "direct");
  EXPECT_EQ(default_dim_algorithm(DimKind::Switch).label, "halving-doubling");
}

TEST(Hierarchical, JobsWithAStagedAlgorithmGetTheIdealReferenceRow) {
  // Themis Table 3's Ideal: size / total bandwidth; on torus:4x4 an NPU has 4 links of 16 GB/s,
  // so 64 MiB takes 67108864 B / 64 GB/s = 1048.576 us. A job of flat algorithms gets no such row.
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  CollectiveJob job;
  job.sizes = {core::Bytes{64 << 20}};
  job.chunks = 4;
  job.algorithms = {collective::parse_algorithm("hierarchical", "t")};
  const auto rows = run_collective_job("p", t, network::find_backend("flow", "b"), job);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].algorithm, "ideal");
  EXPECT_EQ(rows[1].time.ps, 1048576000);
  EXPECT_EQ(rows[1].messages, 0u);
  EXPECT_NEAR(rows[1].speedup, rows[0].time.seconds() / rows[1].time.seconds(), 1e-9);
  job.algorithms = {collective::parse_algorithm("ring", "t")};
  EXPECT_EQ(run_collective_job("p", t, network::find_backend("flow", "b"), job).size(), 1u);
}

TEST(Hierarchical, ErrorsAreInputErrors) {
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  core::Simulation sim;
  network::AnalyticalBackend net(sim, t);
  endpoint::Ideal ep(sim, net);
  Executor ex(sim, ep);
  HierarchicalSpec a2a = all_reduce(1024, 1);
  a2a.collective = Collective::AllToAll;
  a2a.dim_algorithms[0] = collective::parse_algorithm("halving-doubling", "t");  // no all-to-all
  EXPECT_THROW(HierarchicalCollective(t, ex, a2a), core::InputError);
  HierarchicalSpec idle = all_reduce(1024, 1);
  idle.active_chunks = 0;
  EXPECT_THROW(HierarchicalCollective(t, ex, idle), core::InputError);
  HierarchicalSpec rd = all_reduce(1024, 1);
  rd.dim_algorithms[0] = collective::parse_algorithm("recursive-doubling", "t");  // no RS
  EXPECT_THROW(HierarchicalCollective(t, ex, rd), core::InputError);
  EXPECT_EQ(parse_intra_dim_policy("scf", "f"), IntraDimPolicy::Scf);
  EXPECT_THROW(parse_intra_dim_policy("random", "intra"), core::InputError);
}

}  // namespace
}  // namespace collsim::scheduler

namespace collsim::report {
namespace {

using namespace collsim::jobs;  // NOLINT: the drivers under test

TEST(ActivitySeries, WindowsCoverTheUnionOfTheBusyIntervals) {
  // Busy [0, 10) and [5, 20) overlap (count once), [30, 40) alone; span 45, windows of 20:
  // [0, 20) fully busy, [20, 40) half, [40, 45) idle (measured over its 5).
  using T = core::Time;
  const std::vector<std::vector<std::pair<T, T>>> busy = {
      {{T{5}, T{20}}, {T{0}, T{10}}, {T{30}, T{40}}}, {}};
  const auto s = activity_series(busy, T{45}, T{20});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0], (std::vector<double>{1.0, 0.5, 0.0}));
  EXPECT_EQ(s[1], (std::vector<double>{0.0, 0.0, 0.0}));
  // An interval across a window edge is split; past the span it is cut.
  const auto t = activity_series({{{T{15}, T{50}}}}, T{45}, T{20});
  EXPECT_EQ(t[0], (std::vector<double>{0.25, 1.0, 1.0}));
  EXPECT_THROW(activity_series(busy, T{45}, T{0}), core::InputError);
}

}  // namespace
}  // namespace collsim::report

namespace collsim::scheduler {
namespace {

using namespace collsim::jobs;  // NOLINT: the drivers under test

TEST(Hierarchical, PerDimensionAlgorithmOverridesFromTheAlgorithmChoice) {
  // hierarchical:dim0=ring:dim1=ring is the one-way closed form (124.68 us for 1 MiB in one
  // chunk on torus:4x4); the default (Table 1: ring both ways on a bidirectional ring) 63.24 us.
  const auto t =
      topology::from_compact("torus:4x4", core::Bandwidth{16e9}, core::Time::from_ns(150));
  auto spec = [&](const char* text) {
    return spec_from_choice(collective::parse_algorithm(text, "t"),
                            collective::Collective::AllReduce, core::Bytes{1 << 20}, 1);
  };
  auto time = [&](HierarchicalSpec s) {
    core::Simulation sim;
    auto net = network::make_backend(network::find_backend("analytical", "b"), sim, t, {}, "b");
    endpoint::Ideal ep(sim, *net);
    Executor ex(sim, ep);
    HierarchicalCollective h(t, ex, std::move(s));
    h.start();
    run_until_finished(sim, ex, *net, core::Time{});
    return h.stats().time().ps;
  };
  EXPECT_EQ(time(spec("hierarchical:dim0=ring:dim1=ring")), 124680000);
  EXPECT_EQ(time(spec("hierarchical")), 63240000);
  EXPECT_EQ(time(spec("hierarchical:dim0=ring-both:dim1=ring-both")), 63240000);
  // A dimension the platform does not have, and an algorithm a dimension cannot run, are input
  // errors naming the dimension.
  auto message = [&](const char* text) {
    try {
      HierarchicalSpec s = spec(text);
      prepare(t, s);
    } catch (const core::InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message("hierarchical:dim2=ring").find("dim2 is set but torus:4x4 has 2 dimensions"),
            std::string::npos);
  const auto t6 =
      topology::from_compact("torus:4x6", core::Bandwidth{16e9}, core::Time::from_ns(150));
  HierarchicalSpec hd = spec("hierarchical:dim1=halving-doubling");
  try {
    prepare(t6, hd);
    ADD_FAILURE() << "halving-doubling on 6 NPUs was accepted";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("dim1 (ring of 6 NPUs)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace collsim::scheduler

namespace collsim::scheduler {
namespace {

using namespace collsim::jobs;  // NOLINT: the drivers under test

TEST(Hierarchical, ConcurrentCollectivesShareTheDimensionQueues) {
  // Two all-reduces of 512 KiB in one chunk each, started together on shared FIFO queues, are the
  // two-chunk pipeline of TwoChunksPipelineThroughTheDimensionQueues: A takes dim0 first, B waits
  // for it; dim0 is never idle and the last ends at 4 T0 = 100.104 us. A ends when its AG on dim0
  // does, at 3 T0 = 75.078 us. Each on its own queues they would overlap freely (2 T0 each on the
  // analytical backend, which lets links be oversubscribed).
  const auto t =
      topology::from_compact("torus:4x4", core::Bandwidth{16e9}, core::Time::from_ns(150));
  auto spec = [] {
    HierarchicalSpec s;
    s.size = core::Bytes{1 << 19};
    s.chunks = 1;
    s.dim_algorithms = {collective::parse_algorithm("ring", "t"),
                        collective::parse_algorithm("ring", "t")};
    return s;
  };
  core::Simulation sim;
  auto net = network::make_backend(network::find_backend("analytical", "b"), sim, t, {}, "b");
  endpoint::Ideal ep(sim, *net);
  Executor ex(sim, ep);
  DimensionQueues queues(2, IntraDimPolicy::Fifo, 1);
  HierarchicalCollective a(t, ex, spec(), &queues), b(t, ex, spec(), &queues);
  a.start();
  b.start();
  run_until_finished(sim, ex, *net, core::Time{});
  EXPECT_EQ(a.stats().end.ps, 75078000);
  EXPECT_EQ(b.stats().end.ps, 100104000);
  // B's stages on dim0: RS [T0, 2 T0], AG [3 T0, 4 T0].
  ASSERT_EQ(b.activity()[0].busy.size(), 2u);
  EXPECT_EQ(b.activity()[0].busy[0].first.ps, 25026000);
  EXPECT_EQ(b.activity()[0].busy[1].first.ps, 3 * 25026000);
  EXPECT_THROW(DimensionQueues(2, IntraDimPolicy::Fifo, 0), core::InputError);
}

}  // namespace
}  // namespace collsim::scheduler

namespace collsim::scheduler {
namespace {

using namespace collsim::jobs;  // NOLINT: the drivers under test

TEST(Hierarchical, ASubsetOfDimensionsRunsEveryGroupOfThemAtOnce) {
  // dims = {0} on torus:4x4: the four X rings each all-reduce their own 1 MiB, one-way ring:
  // RS + AG = 6 (alpha + S/(4B)) = 6 x (150 ns + 16.384 us) = 99.204 us; 4 rings x 4 NPUs x 6
  // messages. dims = {1}: the Y rings, the same time.
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  for (std::uint32_t d : {0u, 1u}) {
    HierarchicalSpec s = all_reduce(1 << 20, 1);
    s.dims = {d};
    const Outcome o = run(t, s);
    EXPECT_EQ(o.stats.time().ps, 99204000) << d;
    EXPECT_EQ(o.stats.messages, 4u * 4 * 6) << d;
    EXPECT_EQ(o.plan.chunks[0].dims, (std::vector<std::uint32_t>{d, d}));
  }
  core::Simulation sim;
  network::AnalyticalBackend net(sim, t);
  endpoint::Ideal ep(sim, net);
  Executor ex(sim, ep);
  HierarchicalSpec bad = all_reduce(1024, 1);
  bad.dims = {2};
  EXPECT_THROW(HierarchicalCollective(t, ex, bad), core::InputError);
  bad.dims = {0, 0};
  EXPECT_THROW(HierarchicalCollective(t, ex, bad), core::InputError);
}

}  // namespace
}  // namespace collsim::scheduler

namespace collsim::scheduler {
namespace {

// Issue 28: a 5-D torus hierarchical all-reduce runs to the end with the defaults and with an
// override of dimension 4 (past the old dim0..dim3 limit); dim5 there is an input error.
TEST(Hierarchical, FiveDimensionTorusRunsWithAndWithoutAnOverride) {
  const auto t = topology::from_compact("torus:2x2x2x2x2", kBw, kLat);
  auto spec = [&](const char* text) {
    HierarchicalSpec s = spec_from_choice(collective::parse_algorithm(text, "t"),
                                          Collective::AllReduce, core::Bytes{1 << 20}, 4);
    return s;
  };
  const Outcome plain = run(t, spec("hierarchical"));
  const Outcome direct = run(t, spec("hierarchical:dim4=direct"));
  EXPECT_GT(plain.stats.time().ps, 0);
  EXPECT_GT(direct.stats.time().ps, 0);
  EXPECT_EQ(plain.activity.size(), 5u);
  HierarchicalSpec bad = spec("hierarchical:dim5=ring");
  try {
    prepare(t, bad);
    ADD_FAILURE() << "dim5 on a 5-D torus was accepted";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("dim5 is set but torus:2x2x2x2x2 has 5 dimensions"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace collsim::scheduler

namespace collsim::scheduler {
namespace {

// The per-kind defaults now live in the dimension-kind entries (topology/dim_kind.cpp); this pins
// them to the rules the scheduler used to spell out: Themis Table 1 (ring both ways on
// bidirectional rings, ring on uni-rings and lines, direct on fc, halving-doubling on switches),
// ACE Table 5 for all-to-all (ring on ring-like kinds, else direct), and on local switches the
// package algorithm for all-gather and a whole per-dimension all-reduce, else direct.
TEST(Hierarchical, DefaultAlgorithmPerKindFollowsTable1) {
  using topology::DimKind;
  const Collective rs = Collective::ReduceScatter, ag = Collective::AllGather,
                   ar = Collective::AllReduce, a2a = Collective::AllToAll;
  struct Case {
    DimKind kind;
    Collective c;
    InterDimPolicy schedule;
    const char* label;
  };
  const Case cases[] = {
      {DimKind::Ring, ar, InterDimPolicy::Baseline, "ring:directions=2"},
      {DimKind::Ring, ar, InterDimPolicy::PerDimAllReduce, "ring:directions=2"},
      {DimKind::Ring, a2a, InterDimPolicy::Baseline, "ring:directions=2"},
      {DimKind::UniRing, ag, InterDimPolicy::Themis, "ring"},
      {DimKind::UniRing, a2a, InterDimPolicy::Themis, "ring"},
      {DimKind::Line, rs, InterDimPolicy::Baseline, "ring"},
      {DimKind::Line, a2a, InterDimPolicy::Baseline, "ring"},
      {DimKind::FullyConnected, ar, InterDimPolicy::Themis, "direct"},
      {DimKind::FullyConnected, a2a, InterDimPolicy::Themis, "direct"},
      {DimKind::Switch, rs, InterDimPolicy::Baseline, "halving-doubling"},
      {DimKind::Switch, ar, InterDimPolicy::PerDimAllReduce, "halving-doubling"},
      {DimKind::Switch, a2a, InterDimPolicy::Baseline, "direct"},
      {DimKind::LocalSwitches, ar, InterDimPolicy::Baseline, "direct"},
      {DimKind::LocalSwitches, ar, InterDimPolicy::Themis, "direct"},
      {DimKind::LocalSwitches, ar, InterDimPolicy::PerDimAllReduce, "package-doubling"},
      {DimKind::LocalSwitches, ag, InterDimPolicy::Baseline, "package-doubling"},
      {DimKind::LocalSwitches, rs, InterDimPolicy::Baseline, "direct"},
      {DimKind::LocalSwitches, a2a, InterDimPolicy::Baseline, "direct"},
  };
  for (const Case& k : cases) {
    const auto a = default_dim_algorithm(k.kind, k.c, k.schedule);
    EXPECT_EQ(a.label, k.label) << topology::to_string(k.kind) << " " << collective::to_string(k.c);
  }
  // Every entry names an algorithm that implements its stage.
  for (const topology::DimKindTraits& t : topology::dim_kinds()) {
    const auto& d = t.hierarchical;
    EXPECT_TRUE(collective::parse_algorithm(d.split, "t").info->supports(rs)) << t.name;
    EXPECT_TRUE(collective::parse_algorithm(d.split, "t").info->supports(ag)) << t.name;
    EXPECT_TRUE(collective::parse_algorithm(d.all_gather, "t").info->supports(ag)) << t.name;
    EXPECT_TRUE(collective::parse_algorithm(d.all_reduce, "t").info->supports(ar)) << t.name;
    EXPECT_TRUE(collective::parse_algorithm(d.all_to_all, "t").info->supports(a2a)) << t.name;
  }
}

// Stage steps come from the algorithm entries (Themis Sec. 4.4): ring P - 1, direct 1, the
// halving / doubling family log2 P; the planner's fixed delay is 2 phases x steps x hop latency.
TEST(Hierarchical, StageStepsComeFromTheAlgorithmEntries) {
  const auto steps = [](const char* algo, std::uint32_t p) {
    const auto a = collective::parse_algorithm(algo, "t");
    return a.info->stage_steps(Collective::ReduceScatter, p, a.params);
  };
  EXPECT_EQ(steps("ring", 8), 7u);
  EXPECT_EQ(steps("ring:directions=2", 8), 7u);
  EXPECT_EQ(steps("direct", 8), 1u);
  EXPECT_EQ(steps("halving-doubling", 8), 3u);
  EXPECT_EQ(steps("recursive-doubling", 16), 4u);
  EXPECT_EQ(steps("package-doubling", 4), 2u);
  // torus:8x4 (150 ns per hop), all-reduce: dim0 ring one way 2 x 7 x 150 ns, dim1 direct
  // 2 x 1 x 150 ns; the one-way ring gets half of dim0's bandwidth (2 links of 16 GB/s each way).
  const auto t = topology::from_compact("torus:8x4", kBw, kLat);
  const auto m = dim_models(
      t, Collective::AllReduce,
      {collective::parse_algorithm("ring", "t"), collective::parse_algorithm("direct", "t")}, {});
  EXPECT_EQ(m[0].fixed_delay, core::Time::from_ns(2 * 7 * 150));
  EXPECT_EQ(m[1].fixed_delay, core::Time::from_ns(2 * 1 * 150));
  EXPECT_DOUBLE_EQ(m[0].bandwidth.bytes_per_s, 16e9);
  EXPECT_DOUBLE_EQ(m[1].bandwidth.bytes_per_s, 32e9);
}

}  // namespace
}  // namespace collsim::scheduler
