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
  heap_.push_back(Event{t, next_seq_++, &h, tag});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
}

Simulation::RunResult Simulation::run(std::optional<Time> until) {
  RunResult r;
  for (;;) {
    Event e;
    if (!heap_.empty() && heap_.front().time == now_) {
      // Scheduled at an earlier instant for this one: runs before the same-instant FIFO.
      std::pop_heap(heap_.begin(), heap_.end(), Later{});
      e = heap_.back();
      heap_.pop_back();
    } else if (now_head_ < now_queue_.size()) {
      e = now_queue_[now_head_++];
      if (now_head_ == now_queue_.size()) {
        now_queue_.clear();
        now_head_ = 0;
      }
    } else if (heap_.empty()) {
      r.drained = true;
      break;
    } else if (until && heap_.front().time > *until) {
      break;
    } else {
      std::pop_heap(heap_.begin(), heap_.end(), Later{});
      e = heap_.back();
      heap_.pop_back();
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
