#include "core/event_queue.hpp"

#include <algorithm>
#include <bit>

namespace collsim::core {
namespace {

constexpr std::size_t kKeepCapacity = 1 << 16;  // events (2 MiB)

// Min-heap order for the early heap: earlier time first, then lower sequence number.
bool later(const Event& a, const Event& b) {
  return a.time != b.time ? a.time > b.time : a.seq > b.seq;
}

}  // namespace

std::size_t EventQueue::bucket(std::uint64_t key, std::uint64_t last) {
  return key == last ? 0 : static_cast<std::size_t>(std::bit_width(key ^ last));
}

void EventQueue::push(const Event& e) {
  ++size_;
  const auto key = static_cast<std::uint64_t>(e.time.ps);
  if (key < last_) {
    // Earlier than every bucketed event (a peek moved the minimum past it): the early heap.
    early_.push_back(e);
    std::push_heap(early_.begin(), early_.end(), later);
    return;
  }
  // Equal to the minimum goes behind the events already waiting for it: its sequence number is
  // the highest so far, and bucket 0 is kept in sequence order.
  buckets_[bucket(key, last_)].push_back(e);
}

void EventQueue::refill() {
  auto& zero = buckets_[0];
  if (head0_ < zero.size()) return;
  if (zero.capacity() > kKeepCapacity) {
    std::vector<Event>().swap(zero);
  } else {
    zero.clear();
  }
  head0_ = 0;
  std::size_t i = 1;
  while (buckets_[i].empty()) ++i;
  auto& from = buckets_[i];
  std::uint64_t min = UINT64_MAX;
  for (const Event& e : from) min = std::min(min, static_cast<std::uint64_t>(e.time.ps));
  last_ = min;
  for (const Event& e : from) {
    buckets_[bucket(static_cast<std::uint64_t>(e.time.ps), last_)].push_back(e);
  }
  // A drained bucket keeps its capacity for the next events, unless it is huge (a million
  // messages in flight at once): then the memory goes back.
  if (from.capacity() > kKeepCapacity) {
    std::vector<Event>().swap(from);
  } else {
    from.clear();
  }
  if (zero.size() > 1) {
    std::sort(zero.begin(), zero.end(),
              [](const Event& a, const Event& b) { return a.seq < b.seq; });
  }
}

const Event& EventQueue::top() {
  if (!early_.empty()) return early_.front();
  refill();
  return buckets_[0][head0_];
}

void EventQueue::pop() {
  --size_;
  if (!early_.empty()) {
    std::pop_heap(early_.begin(), early_.end(), later);
    early_.pop_back();
    return;
  }
  refill();
  ++head0_;
}

}  // namespace collsim::core
