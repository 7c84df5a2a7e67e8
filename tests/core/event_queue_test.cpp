// Tests of the radix-heap event queue (src/core/event_queue.hpp) against a plain sort: events
// leave in (time, sequence) order through every path: equal keys, keys equal to the current
// minimum, keys below it (scheduled after a peek moved the minimum up), and far-apart times.
#include "core/event_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace collsim::core {
namespace {

using Key = std::pair<std::int64_t, std::uint64_t>;  // (time ps, sequence)

Event event(std::int64_t ps, std::uint64_t seq) { return Event{Time{ps}, seq, nullptr, seq}; }

TEST(EventQueue, EqualTimesLeaveInSequenceOrder) {
  EventQueue q;
  for (std::uint64_t s = 0; s < 5; ++s) q.push(event(7, s));
  q.push(event(3, 5));
  std::vector<Key> out;
  while (!q.empty()) {
    out.emplace_back(q.top().time.ps, q.top().seq);
    q.pop();
  }
  EXPECT_EQ(out, (std::vector<Key>{{3, 5}, {7, 0}, {7, 1}, {7, 2}, {7, 3}, {7, 4}}));
}

TEST(EventQueue, PushAtTheCurrentMinimumQueuesBehindIt) {
  EventQueue q;
  q.push(event(10, 0));
  q.push(event(10, 1));
  EXPECT_EQ(q.top().seq, 0u);  // 10 is now the minimum, in bucket 0
  q.push(event(10, 2));
  std::vector<std::uint64_t> seqs;
  while (!q.empty()) {
    seqs.push_back(q.top().seq);
    q.pop();
  }
  EXPECT_EQ(seqs, (std::vector<std::uint64_t>{0, 1, 2}));
}

TEST(EventQueue, PushBelowTheMinimumIsServedFirst) {
  EventQueue q;
  q.push(event(100, 0));
  q.push(event(50, 1));
  q.push(event(100, 2));
  EXPECT_EQ(q.top().time.ps, 50);  // minimum is now 50
  q.push(event(20, 3));            // after a peek moved the minimum to 50: the early heap
  q.push(event(50, 4));
  std::vector<Key> out;
  while (!q.empty()) {
    out.emplace_back(q.top().time.ps, q.top().seq);
    q.pop();
  }
  EXPECT_EQ(out, (std::vector<Key>{{20, 3}, {50, 1}, {50, 4}, {100, 0}, {100, 2}}));
}

// A random simulation-like workload: pops interleaved with pushes at or after the last popped
// time (a few below it), with many ties and times spanning 40 bits.
TEST(EventQueue, RandomWorkloadMatchesSortedOrder) {
  std::mt19937_64 rng(11);
  EventQueue q;
  std::vector<Key> pending;  // the reference: sorted on demand
  std::uint64_t seq = 0;
  std::int64_t now = 0;
  std::size_t popped = 0;
  for (int step = 0; step < 60000; ++step) {
    const auto r = rng() % 100;
    if (r < 52 || pending.empty()) {
      std::int64_t t = now;
      const auto kind = rng() % 10;
      if (kind < 3)
        t = now + static_cast<std::int64_t>(rng() % 4);  // ties
      else if (kind < 9)
        t = now + static_cast<std::int64_t>(rng() % 100000);
      else
        t = now + static_cast<std::int64_t>(rng() % (1ll << 40));
      if (rng() % 1000 == 0 && now > 10) t = now - 5;  // below the minimum: the early heap
      q.push(event(t, seq));
      pending.emplace_back(t, seq++);
    } else {
      const auto it = std::min_element(pending.begin(), pending.end());
      ASSERT_EQ(q.top().time.ps, it->first) << "pop " << popped;
      ASSERT_EQ(q.top().seq, it->second) << "pop " << popped;
      now = it->first;
      pending.erase(it);
      q.pop();
      ++popped;
    }
    ASSERT_EQ(q.size(), pending.size());
  }
  EXPECT_GT(popped, 25000u);
}

}  // namespace
}  // namespace collsim::core
