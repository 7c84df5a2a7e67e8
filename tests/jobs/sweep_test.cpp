// jobs::Sweep (issue 45): points of any row type on threads come back in input order, costliest
// first; a failed or interrupted sweep keeps what one thread keeps; --shard slices are whole
// blocks; the progress data counts points. Points here are plain functions (no simulation): the
// whole file runs in well under a second.
#include "jobs/sweep.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"

namespace collsim::jobs {
namespace {

// A point whose row is its index, delivered to `to`, after `body` (which may check or throw).
Point<std::size_t> indexed(std::size_t i, std::vector<std::size_t>& to,
                           std::function<void(PointRun&)> body = {}) {
  Point<std::size_t> p;
  p.name = std::to_string(i);
  p.run = [i, body = std::move(body)](PointRun& r) {
    if (body) body(r);
    return i;
  };
  p.deliver = [&to](std::size_t&& row) { to.push_back(row); };
  return p;
}

std::vector<std::size_t> iota(std::size_t n) {
  std::vector<std::size_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

TEST(Sweep, DeliversEveryRowInInputOrderOnTheCallingThread) {
  // The later points finish first on 4 threads; rows still come in input order, on this thread.
  const std::size_t n = 40;
  for (unsigned jobs : {1u, 4u}) {
    std::vector<std::size_t> order;
    const auto caller = std::this_thread::get_id();
    SweepOptions o;
    o.jobs = jobs;
    Sweep sweep(o);
    for (std::size_t i = 0; i < n; ++i) {
      Point<std::size_t> p = indexed(i, order, [i](PointRun& r) {
        r.check();
        std::this_thread::sleep_for(std::chrono::microseconds((n - i) * 50));
      });
      auto deliver = std::move(p.deliver);
      p.deliver = [deliver, caller](std::size_t&& row) {
        EXPECT_EQ(std::this_thread::get_id(), caller);
        deliver(std::move(row));
      };
      sweep.add(std::move(p));
    }
    EXPECT_EQ(sweep.threads(), jobs);
    sweep.run();
    EXPECT_EQ(order, iota(n)) << jobs;
  }
}

TEST(Sweep, PointsOfDifferentRowTypesShareOneSweep) {
  // A collective point's row, a concurrent job's rows and a training row are different types.
  std::vector<std::string> got;
  SweepOptions o;
  o.jobs = 3;
  Sweep sweep(o);
  Point<int> a;
  a.run = [](PointRun&) { return 7; };
  a.deliver = [&](int&& v) { got.push_back(std::to_string(v)); };
  Point<std::vector<std::string>> b;
  b.run = [](PointRun&) { return std::vector<std::string>{"x", "y"}; };
  b.deliver = [&](std::vector<std::string>&& v) { got.insert(got.end(), v.begin(), v.end()); };
  Point<std::string> c;
  c.run = [](PointRun&) { return std::string("z"); };
  c.deliver = [&](std::string&& v) { got.push_back(v); };
  sweep.add(std::move(a));
  sweep.add(std::move(b));
  sweep.add(std::move(c));
  sweep.run();
  EXPECT_EQ(got, (std::vector<std::string>{"7", "x", "y", "z"}));
}

TEST(Sweep, CostliestPointsStartFirst) {
  // The start order: by cost, ties in input order.
  EXPECT_EQ(start_order({1, 5, 3, 5, 0}), (std::vector<std::size_t>{1, 3, 2, 0, 4}));
  EXPECT_EQ(start_order({0, 0, 0}), (std::vector<std::size_t>{0, 1, 2}));
  // On two threads: point 1 (the costliest) holds one thread until every other point has run,
  // so the other thread takes the rest one at a time, costliest first: 3, 2, 0.
  const std::vector<double> cost = {1, 9, 2, 5};
  std::mutex mu;
  std::vector<std::size_t> started, delivered;
  std::atomic<int> others_done{0};
  std::atomic<bool> first_started{false};
  SweepOptions o;
  o.jobs = 2;
  Sweep sweep(o);
  for (std::size_t i = 0; i < cost.size(); ++i) {
    Point<std::size_t> p = indexed(i, delivered, [&, i](PointRun&) {
      {
        std::lock_guard<std::mutex> lock(mu);
        started.push_back(i);
      }
      if (i == 1) {
        first_started = true;
        while (others_done < 3) std::this_thread::yield();
      } else {
        while (!first_started) std::this_thread::yield();
        ++others_done;
      }
    });
    p.cost = cost[i];
    sweep.add(std::move(p));
  }
  sweep.run();
  std::vector<std::size_t> others;
  for (std::size_t i : started) {
    if (i != 1) others.push_back(i);
  }
  EXPECT_EQ(others, (std::vector<std::size_t>{3, 2, 0}));
  EXPECT_EQ(delivered, iota(4));
}

TEST(Sweep, AFailureKeepsTheRowsBeforeItAndRethrowsIts) {
  // Point 3 fails at once; the slower points before it still finish and are delivered, none
  // after it is, and point 3's error is the one thrown: what one thread shows.
  for (unsigned jobs : {1u, 2u, 3u}) {
    std::vector<std::size_t> delivered;
    SweepOptions o;
    o.jobs = jobs;
    Sweep sweep(o);
    for (std::size_t i = 0; i < 8; ++i) {
      sweep.add(indexed(i, delivered, [i](PointRun& r) {
        if (i == 3) throw core::SimulationError("point 3 failed");
        if (i == 5) throw core::SimulationError("point 5 failed");
        for (int k = 0; k < 20; ++k) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
          r.check();
        }
      }));
    }
    try {
      sweep.run();
      ADD_FAILURE() << "no exception with " << jobs << " threads";
    } catch (const core::SimulationError& e) {
      EXPECT_STREQ(e.what(), "point 3 failed") << jobs;
    }
    EXPECT_EQ(delivered, iota(3)) << jobs;
  }
}

// The signal flag of cli/interrupt.hpp, as SweepOptions::interrupted sees it.
struct Signal {
  std::atomic<bool> raised{false};
  void check() const {
    if (raised) throw core::Interrupted("interrupted (test)");
  }
};

TEST(Sweep, AnInterruptKeepsEveryFinishedRowInInputOrder) {
  // Four threads: points 0 and 2 finish; then the signal comes (raised by point 1, which ends
  // at its next check); point 3, still running, stops at its next check. Rows 0 and 2 are
  // delivered, in order, and the interrupt is rethrown.
  Signal signal;
  std::atomic<int> finished{0};
  std::vector<std::size_t> delivered;
  SweepOptions o;
  o.jobs = 4;
  o.interrupted = [&signal] { signal.check(); };
  Sweep sweep(o);
  for (std::size_t i = 0; i < 4; ++i) {
    sweep.add(indexed(i, delivered, [&, i](PointRun& r) {
      if (i == 1) {
        while (finished < 2) std::this_thread::yield();
        signal.raised = true;
        r.check();
        ADD_FAILURE() << "point 1 went on after the signal";
      }
      if (i == 3) {
        for (;;) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
          r.check();
        }
      }
      ++finished;  // points 0 and 2: no check left, so they finish
    }));
  }
  EXPECT_THROW(sweep.run(), core::Interrupted);
  EXPECT_EQ(delivered, (std::vector<std::size_t>{0, 2}));

  // One thread: a signal during point 1 keeps rows 0 and 1 (point 1 finished: it made no
  // check after the signal) and point 2 never starts.
  signal.raised = false;
  delivered.clear();
  o.jobs = 1;
  Sweep serial(o);
  std::vector<std::size_t> ran;
  for (std::size_t i = 0; i < 4; ++i) {
    serial.add(indexed(i, delivered, [&, i](PointRun&) {
      ran.push_back(i);
      if (i == 1) signal.raised = true;
    }));
  }
  EXPECT_THROW(serial.run(), core::Interrupted);
  EXPECT_EQ(ran, iota(2));
  EXPECT_EQ(delivered, iota(2));
}

TEST(Sweep, ADeliveryThatFailsStopsTheSweep) {
  // Taking row 1 fails (an output that cannot be written, --strict-memory): rows after it are
  // not delivered and its error is thrown, with one thread and with several.
  for (unsigned jobs : {1u, 3u}) {
    std::vector<std::size_t> delivered;
    SweepOptions o;
    o.jobs = jobs;
    Sweep sweep(o);
    for (std::size_t i = 0; i < 6; ++i) {
      Point<std::size_t> p = indexed(i, delivered);
      if (i == 1) p.deliver = [](std::size_t&&) { throw core::InputError("row 1 refused"); };
      sweep.add(std::move(p));
    }
    EXPECT_THROW(sweep.run(), core::InputError) << jobs;
    EXPECT_EQ(delivered, iota(1)) << jobs;
  }
}

TEST(Sweep, ShardsAreWholeBlocksThatCoverEveryPointOnceInOrder) {
  // Ten points in four blocks (a collective job's sizes: the algorithms of a size together), with
  // unequal costs; three shards.
  const std::vector<bool> joins = {false, true, true, false, true, false, false, true, true, true};
  const std::vector<double> cost = {1, 1, 1, 5, 5, 2, 1, 1, 1, 1};
  std::vector<std::size_t> all;
  std::string fingerprint;
  for (std::uint32_t k = 0; k < 3; ++k) {
    std::vector<std::size_t> mine;
    Sweep sweep;
    for (std::size_t i = 0; i < joins.size(); ++i) {
      Point<std::size_t> p = indexed(i, mine);
      p.cost = cost[i];
      p.key = "point " + std::to_string(i);
      p.joins_previous = joins[i];
      sweep.add(std::move(p));
    }
    const std::string line = sweep.slice(Shard{k, 3});
    ASSERT_EQ(line.rfind("# collsim shard " + std::to_string(k) + "/3: blocks ", 0), 0u) << line;
    const std::string fp = line.substr(line.find("sweep "));
    if (k == 0) fingerprint = fp;
    EXPECT_EQ(fp, fingerprint);  // one sweep, whatever the shard
    sweep.run();
    EXPECT_FALSE(mine.empty()) << k;
    // Each shard starts a block and ends one.
    if (!mine.empty()) {
      EXPECT_FALSE(joins[mine.front()]) << k;
      EXPECT_TRUE(mine.back() + 1 == joins.size() || !joins[mine.back() + 1]) << k;
    }
    all.insert(all.end(), mine.begin(), mine.end());
  }
  EXPECT_EQ(all, iota(joins.size()));
  // Not sharded: no line, every point.
  Sweep whole;
  std::vector<std::size_t> every;
  for (std::size_t i = 0; i < 3; ++i) whole.add(indexed(i, every));
  EXPECT_EQ(whole.slice(Shard{}), "");
  whole.run();
  EXPECT_EQ(every, iota(3));
}

// Records what a sweep tells its progress line.
struct Recorder final : SweepProgress {
  std::vector<std::string> events;
  SweepStatus first, last;
  void begin(const SweepStatus& s) override { first = s; }
  void point_started(const SweepStatus& s, const std::string& what) override {
    events.push_back("start " + what), last = s;
  }
  void point_finished(const SweepStatus& s, const std::string& what) override {
    events.push_back("done " + what), last = s;
  }
  void run_started(const SweepStatus&, const std::string& what, const RunContext*) override {
    events.push_back("run " + what);
  }
  void run_tick(const SweepStatus& s, const std::string& what, core::Time t, std::uint64_t,
                const RunContext*) override {
    events.push_back("tick " + what + " " + core::to_string(t)), last = s;
  }
  void run_finished(const SweepStatus& s, const std::string& what) override {
    events.push_back("end " + what), last = s;
  }
  void note(const std::string& text) override { events.push_back("note " + text); }
};

TEST(Sweep, ProgressCountsPointsAndTheirRuns) {
  // Two points, the second of three simulations: one thread tells every event in order; the
  // count of points done and running and the runs in all are the sweep's.
  Recorder rec;
  SweepOptions o;
  o.progress = &rec;
  Sweep sweep(o);
  Point<int> a;
  a.name = "a";
  a.run = [](PointRun& r) {
    r.note("first");
    r.begin("a sim");
    r.tick("a sim", core::Time::from_ps(1000000), 10);
    return 1;
  };
  a.deliver = [](int&&) {};
  Point<int> b;
  b.name = "b";
  b.runs = 3;
  b.run = [&rec](PointRun& r) {
    EXPECT_EQ(r.index(), 1u);
    EXPECT_EQ(r.count(), 2u);
    EXPECT_EQ(rec.last.done, 1u);
    EXPECT_EQ(rec.last.running, 1u);
    r.end("b 1");  // the first of its three runs; the other two end with the point
    EXPECT_EQ(rec.last.runs_done, 2u);
    return 2;
  };
  b.deliver = [](int&&) {};
  sweep.add(std::move(a));
  sweep.add(std::move(b));
  sweep.run();
  EXPECT_EQ(rec.first.points, 2u);
  EXPECT_EQ(rec.first.runs, 4u);
  EXPECT_EQ(rec.first.threads, 1u);
  // A point finishes under the name of its last simulation, or its own without one; the runs
  // it did not report ending end with it.
  EXPECT_EQ(rec.events, (std::vector<std::string>{"start a", "note first", "run a sim",
                                                  "tick a sim 1 us", "end a sim", "done a sim",
                                                  "start b", "end b 1", "end b", "done b"}));
  EXPECT_EQ(rec.last.done, 2u);
  EXPECT_EQ(rec.last.running, 0u);
  EXPECT_EQ(rec.last.runs_done, 4u);

  // Several threads: every point started and finished once, done counts up to all.
  Recorder many;
  o.progress = &many;
  o.jobs = 3;
  Sweep parallel(o);
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < 6; ++i) parallel.add(indexed(i, rows));
  parallel.run();
  EXPECT_EQ(rows, iota(6));
  EXPECT_EQ(many.first.threads, 3u);
  EXPECT_EQ(many.events.size(), 18u);
  EXPECT_EQ(many.last.done, 6u);
  EXPECT_EQ(many.last.runs_done, 6u);
  EXPECT_EQ(many.last.running, 0u);
}

TEST(Sweep, JobsZeroIsTheCoresAndTooManyIsRefused) {
  EXPECT_EQ(resolve_jobs(0), default_jobs());
  EXPECT_GE(default_jobs(), 1u);
  EXPECT_EQ(resolve_jobs(3), 3u);
  EXPECT_THROW(resolve_jobs(100000), core::InputError);
  // At most one thread per point.
  SweepOptions o;
  o.jobs = 8;
  Sweep sweep(o);
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < 3; ++i) sweep.add(indexed(i, rows));
  EXPECT_EQ(sweep.threads(), 3u);
}

}  // namespace
}  // namespace collsim::jobs
