#include "core/engine.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace collsim::core {

void Simulation::schedule_at(Time t, EventHandler& h, std::uint64_t tag) {
  if (t < now_) {
    throw std::logic_error("Simulation::schedule_at: event in the past (" + std::to_string(t.ps) +
                           " ps < now " + std::to_string(now_.ps) + " ps)");
  }
  if (t == now_) {
    now_queue_.push_back(Event{t, next_seq_++, &h, tag});
    return;
  }
  heap_.push(Event{t, next_seq_++, &h, tag});
}

Simulation::RunResult Simulation::run(std::optional<Time> until, std::uint64_t max_events) {
  RunResult r;
  for (;;) {
    if (r.events == max_events) {
      r.budget = true;
      break;
    }
    Event e;
    if (!heap_.empty() && heap_.top().time == now_) {
      // Scheduled at an earlier instant for this one: runs before the same-instant FIFO.
      e = heap_.top();
      heap_.pop();
    } else if (now_head_ < now_queue_.size()) {
      e = now_queue_[now_head_++];
      if (now_head_ == now_queue_.size()) {
        now_queue_.clear();
        now_head_ = 0;
      }
    } else if (heap_.empty()) {
      r.drained = true;
      break;
    } else if (until && heap_.top().time > *until) {
      break;
    } else {
      e = heap_.top();
      heap_.pop();
      now_ = e.time;
    }
    ++r.events;
    ++events_processed_;
    e.handler->on_event(e.tag);
  }
  r.end = now_;
  return r;
}

}  // namespace collsim::core
