#pragma once
// The engine's pending events, ordered by (time, sequence number): a radix heap.
//
// Why a radix heap: simulated time never goes backwards, so every key pushed is >= the last key
// popped. Bucket i holds the events whose time differs from that last key first in bit i-1
// (bucket 0: equal to it). Popping empties the lowest non-empty bucket into lower ones; an event
// moves down at most 64 times in its life and usually once or twice, against ~2 log2(n) moves of
// 32-byte events per binary-heap operation. Measured on the packet backend: see
// docs/performance.md.
//
// Ties: events at one time leave in sequence order (bucket 0 is sorted by sequence when it is
// refilled, and later pushes at its time have higher sequence numbers).
//
// A peek (top()) moves the minimum up to the next pending time, and the engine may then schedule
// an event between the current time and that minimum (a zero-delay handler scheduling a little
// ahead). Such events are earlier than everything bucketed, so they wait in a small binary heap
// that top() and pop() serve first; no push ever re-buckets the queue.
#include <array>
#include <cstdint>
#include <vector>

#include "core/units.hpp"

namespace collsim::core {

class EventHandler;

struct Event {
  Time time;
  std::uint64_t seq = 0;
  EventHandler* handler = nullptr;
  std::uint64_t tag = 0;
};

class EventQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  void push(const Event& e);
  /// The earliest event (lowest sequence among equal times). Precondition: !empty().
  const Event& top();
  void pop();  ///< removes top(); precondition: !empty()

 private:
  static std::size_t bucket(std::uint64_t key, std::uint64_t last);
  void refill();  // makes bucket 0 non-empty (precondition: !empty())

  std::array<std::vector<Event>, 65> buckets_;
  std::size_t head0_ = 0;     // bucket 0 is served from here (it is in sequence order)
  std::vector<Event> early_;  // binary min-heap of events earlier than last_
  std::uint64_t last_ = 0;    // keys are Time::ps, never negative
  std::size_t size_ = 0;
};

}  // namespace collsim::core
