#pragma once
// The discrete-event engine (docs/design.md "No global simulator"). A Simulation owns the clock and
// the event queue; components get a reference. Events at equal times run in the order they were
// scheduled (tie-break on a sequence number), so runs are deterministic.
//
// Hot path: an event is a 32-byte POD in a radix heap (core/event_queue.hpp) of vectors;
// scheduling allocates only when a bucket outgrows its capacity, not per event in steady state
// (buckets above 65,536 events give their memory back when drained). Events scheduled for the
// current instant (zero delay: batching, callbacks) skip the heap and go to a FIFO: every event
// already in the heap for this instant was scheduled at an earlier instant, so it has a smaller
// sequence number and runs first, and the FIFO keeps the rest in scheduling order. A handler is
// an object with one virtual method, and the 64-bit tag tells it which of its events fired.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/event_queue.hpp"
#include "core/units.hpp"

namespace collsim::core {

class EventHandler {
 public:
  virtual void on_event(std::uint64_t tag) = 0;

 protected:
  ~EventHandler() = default;
};

class Simulation {
 public:
  Time now() const { return now_; }

  /// Schedule h.on_event(tag) at absolute time t. Throws std::logic_error if t < now().
  void schedule_at(Time t, EventHandler& h, std::uint64_t tag);
  /// Schedule h.on_event(tag) after dt (dt >= 0).
  void schedule_in(Time dt, EventHandler& h, std::uint64_t tag) { schedule_at(now_ + dt, h, tag); }

  struct RunResult {
    bool drained = false;      ///< true if the queue emptied; false if stopped at a bound
    bool budget = false;       ///< stopped because max_events events ran
    Time end;                  ///< time of the last event run
    std::uint64_t events = 0;  ///< events run by this call
  };
  /// Run events in (time, sequence) order until the queue is empty, the next event is later than
  /// `until`, or `max_events` events have run (so a driver can report progress and go on).
  /// Events at exactly `until` still run.
  RunResult run(std::optional<Time> until = std::nullopt, std::uint64_t max_events = UINT64_MAX);

  std::uint64_t events_processed() const { return events_processed_; }
  std::size_t pending() const { return heap_.size() + (now_queue_.size() - now_head_); }

 private:
  EventQueue heap_;
  std::vector<Event> now_queue_;  // events for the current instant, in scheduling order
  std::size_t now_head_ = 0;
  Time now_;
  std::uint64_t next_seq_ = 0;
  std::uint64_t events_processed_ = 0;
};

}  // namespace collsim::core
