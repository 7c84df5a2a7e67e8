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
  heap_.push_back(Event{t, next_seq_++, &h, tag});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
}

Simulation::RunResult Simulation::run(std::optional<Time> until) {
  RunResult r;
  while (!heap_.empty()) {
    if (until && heap_.front().time > *until) {
      r.end = now_;
      return r;
    }
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    const Event e = heap_.back();
    heap_.pop_back();
    now_ = e.time;
    ++r.events;
    ++events_processed_;
    e.handler->on_event(e.tag);
  }
  r.drained = true;
  r.end = now_;
  return r;
}

}  // namespace collsim::core
