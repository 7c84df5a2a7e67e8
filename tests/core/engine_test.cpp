// Tests of the discrete-event engine (src/core/engine.hpp): (time, scheduling order) execution,
// bounded runs, errors on scheduling into the past, counters, and independence of simulations.
#include "core/engine.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <ostream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/units.hpp"

namespace collsim::core {
namespace {

struct Fired {
  std::int64_t ps;
  std::uint64_t tag;
  int handler;
  friend bool operator==(const Fired&, const Fired&) = default;
};

std::ostream& operator<<(std::ostream& os, const Fired& f) {
  return os << "{" << f.ps << " ps, tag " << f.tag << ", handler " << f.handler << "}";
}

// Logs every event it receives (time, tag, its own id) into a shared log, then runs an optional
// reaction (to schedule more events from inside a handler).
class Recorder final : public EventHandler {
 public:
  Recorder(Simulation& sim, std::vector<Fired>& log, int id) : sim_(sim), log_(log), id_(id) {}

  void on_event(std::uint64_t tag) override {
    log_.push_back(Fired{sim_.now().ps, tag, id_});
    if (react) react(tag);
  }

  std::function<void(std::uint64_t)> react;

 private:
  Simulation& sim_;
  std::vector<Fired>& log_;
  int id_;
};

Time ps(std::int64_t v) { return Time::from_ps(v); }

TEST(Engine, StartsEmptyAtTimeZero) {
  Simulation sim;
  EXPECT_EQ(sim.now().ps, 0);
  EXPECT_EQ(sim.pending(), 0u);
  EXPECT_EQ(sim.events_processed(), 0u);
  const auto r = sim.run();
  EXPECT_TRUE(r.drained);
  EXPECT_EQ(r.events, 0u);
  EXPECT_EQ(r.end.ps, 0);
}

TEST(Engine, RunsEventsInTimeOrder) {
  Simulation sim;
  std::vector<Fired> log;
  Recorder h(sim, log, 0);
  sim.schedule_at(ps(30), h, 3);
  sim.schedule_at(ps(10), h, 1);
  sim.schedule_at(ps(20), h, 2);
  EXPECT_EQ(sim.pending(), 3u);
  const auto r = sim.run();
  EXPECT_EQ(log, (std::vector<Fired>{{10, 1, 0}, {20, 2, 0}, {30, 3, 0}}));
  EXPECT_TRUE(r.drained);
  EXPECT_EQ(r.events, 3u);
  EXPECT_EQ(r.end.ps, 30);
  EXPECT_EQ(sim.now().ps, 30);
  EXPECT_EQ(sim.pending(), 0u);
}

TEST(Engine, TagsPassThroughUnchanged) {
  Simulation sim;
  std::vector<Fired> log;
  Recorder h(sim, log, 0);
  constexpr std::uint64_t kBig = std::numeric_limits<std::uint64_t>::max();
  sim.schedule_at(ps(1), h, kBig);
  sim.schedule_at(ps(2), h, 0);
  sim.run();
  EXPECT_EQ(log, (std::vector<Fired>{{1, kBig, 0}, {2, 0, 0}}));
}

TEST(Engine, EqualTimesRunInSchedulingOrderAcrossHandlers) {
  Simulation sim;
  std::vector<Fired> log;
  Recorder a(sim, log, 0);
  Recorder b(sim, log, 1);
  // Interleave handlers and put a later and an earlier event between the equal-time ones; the
  // five events at t = 100 must run in the order they were scheduled.
  sim.schedule_at(ps(100), b, 0);
  sim.schedule_at(ps(200), a, 99);
  sim.schedule_at(ps(100), a, 1);
  sim.schedule_at(ps(100), a, 2);
  sim.schedule_at(ps(50), b, 98);
  sim.schedule_at(ps(100), b, 3);
  sim.schedule_at(ps(100), a, 4);
  sim.run();
  EXPECT_EQ(log, (std::vector<Fired>{{50, 98, 1},
                                     {100, 0, 1},
                                     {100, 1, 0},
                                     {100, 2, 0},
                                     {100, 3, 1},
                                     {100, 4, 0},
                                     {200, 99, 0}}));
}

TEST(Engine, EventsScheduledFromHandlersQueueBehindEarlierOnesAtTheSameTime) {
  Simulation sim;
  std::vector<Fired> log;
  Recorder a(sim, log, 0);
  Recorder b(sim, log, 1);
  // At t = 10, a schedules tags 10 and 11 at t = 100 (after b's tag 1 there, scheduled up front).
  // At t = 100, b's tag 1 schedules tag 12 at the current time (schedule_in(0)): it runs after
  // every event already queued for t = 100, i.e. after 10 and 11.
  a.react = [&](std::uint64_t tag) {
    if (tag == 0) {
      sim.schedule_at(ps(100), a, 10);
      sim.schedule_at(ps(100), b, 11);
    }
  };
  b.react = [&](std::uint64_t tag) {
    if (tag == 1) sim.schedule_in(Time::zero(), a, 12);
    if (tag == 11) sim.schedule_in(ps(5), b, 13);  // relative: 100 + 5
  };
  sim.schedule_at(ps(10), a, 0);
  sim.schedule_at(ps(100), b, 1);
  const auto r = sim.run();
  EXPECT_EQ(log,
            (std::vector<Fired>{
                {10, 0, 0}, {100, 1, 1}, {100, 10, 0}, {100, 11, 1}, {100, 12, 0}, {105, 13, 1}}));
  EXPECT_EQ(r.events, 6u);
  EXPECT_EQ(r.end.ps, 105);
}

TEST(Engine, ManyEventsRunInTimeThenSequenceOrder) {
  // 1000 events with times (i * 7919) mod 13 scheduled in index order: the log must be sorted by
  // time, and within one time by index, which is the scheduling order. This exercises the heap
  // far beyond a handful of elements.
  Simulation sim;
  std::vector<Fired> log;
  Recorder h(sim, log, 0);
  std::vector<std::pair<std::int64_t, std::uint64_t>> expected;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const auto t = static_cast<std::int64_t>((i * 7919) % 13);
    sim.schedule_at(ps(t), h, i);
    expected.emplace_back(t, i);
  }
  std::stable_sort(expected.begin(), expected.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  sim.run();
  ASSERT_EQ(log.size(), 1000u);
  for (std::size_t k = 0; k < log.size(); ++k) {
    EXPECT_EQ(log[k].ps, expected[k].first) << "position " << k;
    EXPECT_EQ(log[k].tag, expected[k].second) << "position " << k;
  }
  EXPECT_EQ(sim.events_processed(), 1000u);
}

TEST(Engine, RunUntilStopsBeforeLaterEventsAndRunsThoseAtTheBound) {
  Simulation sim;
  std::vector<Fired> log;
  Recorder h(sim, log, 0);
  sim.schedule_at(ps(10), h, 1);
  sim.schedule_at(ps(20), h, 2);
  sim.schedule_at(ps(30), h, 3);
  sim.schedule_at(ps(40), h, 4);

  // Bound 20: the events at 10 and at exactly 20 run; 30 and 40 stay pending.
  auto r = sim.run(ps(20));
  EXPECT_FALSE(r.drained);
  EXPECT_EQ(r.events, 2u);
  EXPECT_EQ(r.end.ps, 20);
  EXPECT_EQ(sim.now().ps, 20);
  EXPECT_EQ(sim.pending(), 2u);
  EXPECT_EQ(log, (std::vector<Fired>{{10, 1, 0}, {20, 2, 0}}));

  // Bound 25: nothing is due; the clock stays at the last event (it does not jump to the bound).
  r = sim.run(ps(25));
  EXPECT_FALSE(r.drained);
  EXPECT_EQ(r.events, 0u);
  EXPECT_EQ(r.end.ps, 20);
  EXPECT_EQ(sim.now().ps, 20);
  EXPECT_EQ(sim.pending(), 2u);

  // A later unbounded run continues with what is left.
  r = sim.run();
  EXPECT_TRUE(r.drained);
  EXPECT_EQ(r.events, 2u);
  EXPECT_EQ(r.end.ps, 40);
  EXPECT_EQ(log, (std::vector<Fired>{{10, 1, 0}, {20, 2, 0}, {30, 3, 0}, {40, 4, 0}}));
  EXPECT_EQ(sim.events_processed(), 4u);
}

TEST(Engine, RunUntilIncludesEventsScheduledDuringTheRun) {
  Simulation sim;
  std::vector<Fired> log;
  Recorder h(sim, log, 0);
  // Each event schedules the next one 10 ps later: a chain at 0, 10, 20, ...
  h.react = [&](std::uint64_t tag) { sim.schedule_in(ps(10), h, tag + 1); };
  sim.schedule_at(ps(0), h, 0);
  // Bound 35: events at 0, 10, 20, 30 run; the one at 40 (scheduled by the event at 30) waits.
  const auto r = sim.run(ps(35));
  EXPECT_FALSE(r.drained);
  EXPECT_EQ(r.events, 4u);
  EXPECT_EQ(r.end.ps, 30);
  EXPECT_EQ(sim.pending(), 1u);
  EXPECT_EQ(log.back(), (Fired{30, 3, 0}));
  h.react = nullptr;  // let the chain end
  const auto r2 = sim.run(ps(1000));
  EXPECT_TRUE(r2.drained);  // the queue emptied before the bound
  EXPECT_EQ(r2.events, 1u);
  EXPECT_EQ(r2.end.ps, 40);
  EXPECT_EQ(log.back(), (Fired{40, 4, 0}));
}

TEST(Engine, RunUntilBeforeTheFirstEventRunsNothing) {
  Simulation sim;
  std::vector<Fired> log;
  Recorder h(sim, log, 0);
  sim.schedule_at(ps(10), h, 1);
  const auto r = sim.run(ps(9));
  EXPECT_FALSE(r.drained);
  EXPECT_EQ(r.events, 0u);
  EXPECT_EQ(r.end.ps, 0);
  EXPECT_TRUE(log.empty());
  EXPECT_EQ(sim.pending(), 1u);
}

TEST(Engine, SchedulingInThePastThrows) {
  Simulation sim;
  std::vector<Fired> log;
  Recorder h(sim, log, 0);
  sim.schedule_at(ps(20), h, 1);
  sim.run();
  ASSERT_EQ(sim.now().ps, 20);
  EXPECT_THROW(sim.schedule_at(ps(19), h, 2), std::logic_error);
  EXPECT_THROW(sim.schedule_in(ps(-1), h, 3), std::logic_error);
  EXPECT_EQ(sim.pending(), 0u);  // nothing was queued by the failed calls
  // Exactly now is allowed.
  EXPECT_NO_THROW(sim.schedule_at(ps(20), h, 4));
  EXPECT_EQ(sim.pending(), 1u);
  sim.run();
  EXPECT_EQ(log, (std::vector<Fired>{{20, 1, 0}, {20, 4, 0}}));
}

TEST(Engine, SchedulingInThePastFromAHandlerPropagates) {
  Simulation sim;
  std::vector<Fired> log;
  Recorder h(sim, log, 0);
  h.react = [&](std::uint64_t tag) {
    if (tag == 1) sim.schedule_at(ps(5), h, 2);  // now is 10
  };
  sim.schedule_at(ps(10), h, 1);
  sim.schedule_at(ps(30), h, 3);
  EXPECT_THROW(sim.run(), std::logic_error);
  // The event that threw has run; the rest is still queued and can be run afterwards.
  EXPECT_EQ(sim.now().ps, 10);
  EXPECT_EQ(sim.pending(), 1u);
  h.react = nullptr;
  sim.run();
  EXPECT_EQ(log, (std::vector<Fired>{{10, 1, 0}, {30, 3, 0}}));
}

TEST(Engine, EventsProcessedCountsAcrossRuns) {
  Simulation sim;
  std::vector<Fired> log;
  Recorder h(sim, log, 0);
  for (std::int64_t t = 1; t <= 5; ++t) sim.schedule_at(ps(t * 100), h, 0);
  EXPECT_EQ(sim.run(ps(250)).events, 2u);  // 100, 200
  EXPECT_EQ(sim.events_processed(), 2u);
  EXPECT_EQ(sim.run(ps(400)).events, 2u);  // 300, 400
  EXPECT_EQ(sim.events_processed(), 4u);
  sim.schedule_in(ps(1), h, 0);     // 401
  EXPECT_EQ(sim.run().events, 2u);  // 401, 500
  EXPECT_EQ(sim.events_processed(), 6u);
  EXPECT_EQ(log.size(), 6u);
}

TEST(Engine, TwoSimulationsAreIndependent) {
  Simulation s1;
  Simulation s2;
  std::vector<Fired> log1;
  std::vector<Fired> log2;
  Recorder h1(s1, log1, 1);
  Recorder h2(s2, log2, 2);
  s1.schedule_at(ps(100), h1, 1);
  s1.schedule_at(ps(300), h1, 3);
  s2.schedule_at(ps(50), h2, 7);

  s1.run();
  EXPECT_EQ(s1.now().ps, 300);
  EXPECT_EQ(s1.events_processed(), 2u);
  // s2 has not moved.
  EXPECT_EQ(s2.now().ps, 0);
  EXPECT_EQ(s2.pending(), 1u);
  EXPECT_EQ(s2.events_processed(), 0u);
  EXPECT_TRUE(log2.empty());
  // s2 may schedule at times s1 has already passed.
  EXPECT_NO_THROW(s2.schedule_at(ps(60), h2, 8));
  s2.run();
  EXPECT_EQ(log1, (std::vector<Fired>{{100, 1, 1}, {300, 3, 1}}));
  EXPECT_EQ(log2, (std::vector<Fired>{{50, 7, 2}, {60, 8, 2}}));
  EXPECT_EQ(s2.now().ps, 60);
  EXPECT_EQ(s1.now().ps, 300);
}

TEST(Engine, SameScheduleGivesTheSameRun) {
  // Determinism: two simulations fed the same schedule produce identical logs.
  auto run_once = [] {
    Simulation sim;
    std::vector<Fired> log;
    Recorder a(sim, log, 0);
    Recorder b(sim, log, 1);
    a.react = [&](std::uint64_t tag) {
      if (tag < 50) sim.schedule_in(ps(static_cast<std::int64_t>(tag % 3)), b, tag + 1);
    };
    b.react = [&](std::uint64_t tag) {
      if (tag < 50) sim.schedule_in(ps(static_cast<std::int64_t>(tag % 2)), a, tag + 1);
    };
    for (std::uint64_t i = 0; i < 10; ++i) sim.schedule_at(ps(0), i % 2 ? a : b, i * 5);
    sim.run();
    return log;
  };
  const auto first = run_once();
  EXPECT_GT(first.size(), 10u);
  EXPECT_EQ(first, run_once());
}

TEST(Engine, LatestRepresentableTime) {
  Simulation sim;
  std::vector<Fired> log;
  Recorder h(sim, log, 0);
  sim.schedule_at(Time::max(), h, 1);
  sim.schedule_at(ps(1), h, 0);
  const auto r = sim.run();
  EXPECT_EQ(r.end, Time::max());
  EXPECT_EQ(log, (std::vector<Fired>{{1, 0, 0}, {Time::max().ps, 1, 0}}));
}

}  // namespace
}  // namespace collsim::core
