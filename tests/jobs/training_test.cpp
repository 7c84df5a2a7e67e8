// The training loop (jobs/training.hpp) against timelines derived by hand: fc:4 with the
// direct algorithm, so that an all-reduce of S takes 2 (alpha + S / (N B)) on every backend.
#include "jobs/training.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "jobs/result.hpp"
#include "topology/builders.hpp"

namespace collsim::workload {
namespace {

using namespace collsim::jobs;  // NOLINT: the drivers under test

using collective::Collective;
using core::Time;

const core::Bandwidth kBw{16e9};
const Time kLat = Time::from_ns(150);
const Time k10us = Time::from_ns(10000);
// Direct all-reduce of 1 MiB on 4 NPUs: 2 x (150 ns + 262144 B / 16 GB/s) = 33.068 us.
constexpr std::int64_t kAr4 = 33068000;

Layer layer(std::string name, std::optional<Collective> wg) {
  Layer l;
  l.name = std::move(name);
  l.compute = {k10us, k10us, k10us};
  if (wg) l.comm[2] = Comm{wg, core::Bytes{1 << 20}, Scope::All};
  return l;
}

Workload two_layers() {
  Workload w;
  w.name = "two";
  w.layers = {layer("l0", Collective::AllReduce), layer("l1", Collective::AllReduce)};
  return w;
}

TrainingResult train(const Workload& w, Overlap overlap, std::uint32_t iterations = 1,
                     IssueOrder order = IssueOrder::Fifo, const char* backend = "analytical") {
  const auto t = topology::from_compact("fc:4", kBw, kLat);
  TrainingOptions o;
  o.algorithm = collective::parse_algorithm("direct", "t");
  o.overlap = overlap;
  o.iterations = iterations;
  o.order = order;
  return run_training(t, network::find_backend(backend, "b"), w, o);
}

TEST(Training, LayerWiseOverlapHidesTheFirstAllReduceBehindBackPropagation) {
  // fwd l0 [0,10], fwd l1 [10,20], wg l1 [20,30] -> AR1 [30, 63.068]; ig l1 [30,40];
  // wg l0 [40,50] -> AR0 waits for AR1 (one at a time), [63.068, 96.136]; ig l0 [50,60];
  // then the tail waits for AR0: exposed 36.136 us, all on l0.
  for (const char* backend : {"analytical", "flow"}) {
    const TrainingResult r = train(two_layers(), Overlap::Layer, 1, IssueOrder::Fifo, backend);
    EXPECT_EQ(r.total.ps, 60000000 + 2 * kAr4 - 30000000) << backend;
    EXPECT_EQ(r.compute.ps, 60000000);
    EXPECT_EQ(r.exposed.ps, r.total.ps - 60000000);
    EXPECT_EQ(r.comm.ps, 2 * kAr4);
    EXPECT_EQ(r.layers[0].exposed.ps, r.exposed.ps);
    EXPECT_EQ(r.layers[1].exposed.ps, 0);
    EXPECT_EQ(r.layers[0].comm.ps, kAr4);
    EXPECT_EQ(r.layers[1].compute.ps, 30000000);
    EXPECT_EQ(r.collectives, 2u);
    EXPECT_EQ(r.messages, 2u * 2 * 4 * 3);  // 2 all-reduces x 2 phases x 4 NPUs x 3 peers
  }
}

TEST(Training, NoOverlapRunsEveryAllReduceAfterBackPropagation) {
  // MultiTree Fig. 11a: both all-reduces after the 60 us of compute, one after the other.
  const TrainingResult r = train(two_layers(), Overlap::None);
  EXPECT_EQ(r.total.ps, 60000000 + 2 * kAr4);
  EXPECT_EQ(r.exposed.ps, 2 * kAr4);
}

TEST(Training, TheNextForwardWaitsForItsLayersAllReduce) {
  // Iteration 0 as above, ending its back-propagation at 60 us; iteration 1's forward of l0
  // waits for AR0 until 96.136 us, then runs as iteration 0 shifted by 36.136 us, and its tail
  // waits 36.136 us again: total 192.272 us, exposed 72.272 us, compute 120 us.
  const TrainingResult r = train(two_layers(), Overlap::Layer, 2);
  EXPECT_EQ(r.total.ps, 192272000);
  EXPECT_EQ(r.exposed.ps, 72272000);
  EXPECT_EQ(r.compute.ps, 120000000);
  ASSERT_EQ(r.iteration_end.size(), 2u);
  EXPECT_EQ(r.iteration_end[0].ps, 60000000);
  EXPECT_EQ(r.iteration_end[1].ps, 192272000);
}

TEST(Training, LifoServesTheLatestIssuedCollectiveFirst) {
  // Three layers with 4 MiB all-reduces, T = 2 x (150 ns + 1048576 B / 16 GB/s) = 131.372 us:
  // AR2 runs [40, 40 + T]; AR1 (issued at 60) and AR0 (at 80) both wait behind it.
  // FIFO: AR1 then AR0, so the tail (from 90 us) waits for AR0 until 40 + 3 T.
  // LIFO: AR0 then AR1: the tail waits for AR0 until 40 + 2 T, then for AR1 until 40 + 3 T.
  constexpr std::int64_t t4 = 131372000;
  Workload w = two_layers();
  w.layers.insert(w.layers.begin(), layer("l-1", Collective::AllReduce));
  for (Layer& l : w.layers) l.comm[2].size = core::Bytes{4 << 20};
  const TrainingResult fifo = train(w, Overlap::Layer, 1, IssueOrder::Fifo);
  const TrainingResult lifo = train(w, Overlap::Layer, 1, IssueOrder::Lifo);
  EXPECT_EQ(fifo.total.ps, 40000000 + 3 * t4);
  EXPECT_EQ(lifo.total.ps, 40000000 + 3 * t4);
  EXPECT_EQ(fifo.layers[0].exposed.ps, 40000000 + 3 * t4 - 90000000);
  EXPECT_EQ(fifo.layers[1].exposed.ps, 0);
  EXPECT_EQ(lifo.layers[0].exposed.ps, 40000000 + 2 * t4 - 90000000);
  EXPECT_EQ(lifo.layers[1].exposed.ps, t4);
}

TEST(Training, ModelParallelCollectivesBlockTheNextStep) {
  // One layer with blocking forward and input-gradient all-reduces, no weight-gradient one:
  // fwd [0,10], AR [10, 43.068], wg and ig [43.068, 63.068], AR until 96.136 us.
  Workload w;
  w.name = "mp";
  w.model_parallel_npus = 0;
  Layer l = layer("l0", std::nullopt);
  l.comm[0] = Comm{Collective::AllReduce, core::Bytes{1 << 20}, Scope::ModelParallel};
  l.comm[1] = Comm{Collective::AllReduce, core::Bytes{1 << 20}, Scope::ModelParallel};
  w.layers = {l};
  const TrainingResult r = train(w, Overlap::Layer);
  EXPECT_EQ(r.total.ps, 30000000 + 2 * kAr4);
  EXPECT_EQ(r.exposed.ps, 2 * kAr4);
}

TEST(Training, DataParallelGroupsRunTheirCopiesAtOnce) {
  // M = 2 on fc:4: data-parallel groups {0, 2} and {1, 3}, each a direct all-reduce on 2 NPUs,
  // 2 x (150 ns + 524288 B / 16 GB/s) = 65.836 us, the two groups on disjoint links.
  Workload w;
  w.name = "dp2";
  w.model_parallel_npus = 2;
  Layer l = layer("l0", Collective::AllReduce);
  l.comm[2].scope = Scope::DataParallel;
  w.layers = {l};
  const TrainingResult r = train(w, Overlap::Layer);
  EXPECT_EQ(r.total.ps, 10000000 + 10000000 + 65836000);  // fwd, wg, then the all-reduce
  EXPECT_EQ(r.messages, 2u * 2 * 2 * 1);                  // 2 groups x 2 phases x 2 NPUs x 1 peer
}

TEST(Training, IdealCollectivesTakeTheirSizeOverTheNpuBandwidth) {
  // Themis Table 3: an NPU of fc:4 has 3 links of 16 GB/s, so a 1 MiB all-reduce takes
  // 1048576 B / 48 GB/s = 21.845 us, with no network and no queueing: AR1 [30, 51.845],
  // AR0 [50, 71.845]; the tail (from 60 us) waits 11.845 us for AR0.
  const auto t = topology::from_compact("fc:4", kBw, kLat);
  TrainingOptions o;
  o.ideal = true;
  const TrainingResult r =
      run_training(t, network::find_backend("analytical", "b"), two_layers(), o);
  EXPECT_NEAR(static_cast<double>(r.total.ps), 71845333.0, 1.0);
  EXPECT_NEAR(static_cast<double>(r.exposed.ps), 11845333.0, 1.0);
  EXPECT_EQ(r.exposed_weight_gradient.ps, r.exposed.ps);
  EXPECT_EQ(r.compute_forward.ps, 20000000);
  EXPECT_EQ(r.messages, 0u);
}

TEST(Training, OverlappedCollectivesAreWaitedForWhereTheyAreNeeded) {
  // DLRM's embedding all-to-all (Themis Sec. 6.2): layer 0's forward collective (33.068 us from
  // 10 us) runs beside layer 1 and is needed before layer 2: the forward pass waits from 20 to
  // 43.068 us, then back-propagation takes 60 us (to 113.068); layer 0's input-gradient
  // collective, overlapped, is waited for at the end: 146.136 us.
  Workload w;
  w.name = "dlrm-like";
  for (int i = 0; i < 3; ++i) w.layers.push_back(layer("l" + std::to_string(i), std::nullopt));
  w.layers[0].comm[0] = Comm{Collective::AllReduce, core::Bytes{1 << 20}, Scope::All, true, 2};
  w.layers[0].comm[1] = Comm{Collective::AllReduce, core::Bytes{1 << 20}, Scope::All, true, 0};
  const TrainingResult r = train(w, Overlap::Layer);
  EXPECT_EQ(r.total.ps, 90000000 + 2 * kAr4 - 20000000 + 10000000);
  EXPECT_EQ(r.exposed.ps, (kAr4 - 10000000) + kAr4);
  EXPECT_EQ(r.layers[0].exposed.ps, r.exposed.ps);
  // Needed by an earlier layer or itself: refused.
  w.layers[0].comm[0].needed_before = 0;
  EXPECT_THROW(train(w, Overlap::Layer), core::InputError);
}

TEST(Training, BadInputIsRefusedBeforeSimulating) {
  Workload w = two_layers();
  w.model_parallel_npus = 3;  // does not divide 4
  EXPECT_THROW(train(w, Overlap::Layer), core::InputError);
  EXPECT_THROW(train(two_layers(), Overlap::Layer, 0), core::InputError);
  Workload empty;
  empty.name = "empty";
  EXPECT_THROW(train(empty, Overlap::Layer), core::InputError);
  // halving-doubling needs a power-of-two group: 3 NPUs cannot.
  const auto ring3 = topology::from_compact("fc:3", kBw, kLat);
  TrainingOptions o;
  o.algorithm = collective::parse_algorithm("halving-doubling", "t");
  try {
    run_training(ring3, network::find_backend("analytical", "b"), two_layers(), o);
    FAIL() << "expected an InputError";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("layer l0, weight-gradient all-reduce"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(parse_overlap("some", "overlap"), core::InputError);
  EXPECT_THROW(parse_issue_order("random", "order"), core::InputError);
}

}  // namespace
}  // namespace collsim::workload

namespace collsim::workload {
namespace {

using namespace collsim::jobs;  // NOLINT: the drivers under test

TEST(Training, HierarchicalCollectivesRunThroughTheDimensionQueues) {
  // torus:4x4, one-way rings per dimension, 1 chunk: the 1 MiB all-reduce is four ring stages,
  // 124.68 us (tests/scheduler/hierarchical_test.cpp); issued after fwd and wg, at 20 us.
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  TrainingOptions o;
  o.algorithm = collective::parse_algorithm("hierarchical:dim0=ring:dim1=ring", "t");
  Workload w;
  w.name = "h";
  w.layers = {layer("l0", Collective::AllReduce)};
  const TrainingResult r = run_training(t, network::find_backend("analytical", "b"), w, o);
  EXPECT_EQ(r.total.ps, 20000000 + 124680000);
  EXPECT_EQ(r.messages, 4u * 4 * 4 * 3);
  // M = 4 = dim0: the data-parallel all-reduce runs on the Y rings (dim1) only, every ring its
  // own 1 MiB: RS + AG = 6 x (150 ns + 16.384 us) = 99.204 us.
  w.model_parallel_npus = 4;
  w.layers[0].comm[2].scope = Scope::DataParallel;
  EXPECT_EQ(run_training(t, network::find_backend("analytical", "b"), w, o).total.ps,
            20000000 + 99204000);
  // M = 2 is no prefix of the dimensions: refused, naming the layer.
  w.model_parallel_npus = 2;
  EXPECT_THROW(run_training(t, network::find_backend("analytical", "b"), w, o), core::InputError);
}

}  // namespace
}  // namespace collsim::workload

namespace collsim::workload {
namespace {

using namespace collsim::jobs;  // NOLINT: the drivers under test

TEST(Training, TimelinesRecordTheChunkStagesOfHierarchicalCollectives) {
  // torus:4x4, one-way rings, 1 chunk: the all-reduce is reduce-scatter on dim0 then dim1,
  // all-gather on dim1 then dim0, back to back from 20 us to 144.68 us (124.68 us, above).
  const auto t = topology::from_compact("torus:4x4", kBw, kLat);
  TrainingOptions o;
  o.algorithm = collective::parse_algorithm("hierarchical:dim0=ring:dim1=ring", "t");
  o.timeline = true;
  Workload w;
  w.name = "h";
  w.layers = {layer("l0", Collective::AllReduce)};
  const TrainingResult r = run_training(t, network::find_backend("analytical", "b"), w, o);
  EXPECT_EQ(r.total.ps, 20000000 + 124680000);  // recording changes nothing
  ASSERT_EQ(r.stages.size(), 4u);
  const std::uint32_t dims[] = {0, 1, 1, 0};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(r.stages[i].dim, dims[i]);
    EXPECT_EQ(r.stages[i].op, i < 2 ? Collective::ReduceScatter : Collective::AllGather);
    if (i > 0) {
      EXPECT_EQ(r.stages[i].begin.ps, r.stages[i - 1].end.ps);
    }
  }
  EXPECT_EQ(r.stages.front().begin.ps, 20000000);
  EXPECT_EQ(r.stages.back().end.ps, 144680000);
}

}  // namespace
}  // namespace collsim::workload

namespace collsim::workload {
namespace {

TEST(Training, LinkStatisticsCoverTheWholeRun) {
  // Two direct all-reduces of 1 MiB on fc:4: each puts 262144 B on every directed link in its
  // reduce-scatter and again in its all-gather, so 4 x 262144 B per link; utilization is that
  // over 16 GB/s x the whole run, compute time included.
  const TrainingResult r = train(two_layers(), Overlap::Layer, 1, IssueOrder::Fifo, "flow");
  const auto t = topology::from_compact("fc:4", kBw, kLat);
  ASSERT_EQ(r.links.size(), t.links().size());
  for (const network::LinkStats& s : r.links) EXPECT_EQ(s.bytes, 4u * 262144u);
  ResultRow row;
  row.time = r.total;
  fill_link_metrics(row, t, r.links, 2, r.resources);
  ASSERT_EQ(row.dim_utilization.size(), 1u);
  EXPECT_NEAR(row.dim_utilization[0], 4.0 * 262144 / (16e9 * r.total.seconds()), 1e-12);
  EXPECT_EQ(row.busiest_links.size(), 2u);
}

}  // namespace
}  // namespace collsim::workload
