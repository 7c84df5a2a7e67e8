#include "core/event_queue.hpp"

#include <algorithm>
#include <bit>

namespace collsim::core {

std::size_t EventQueue::bucket(std::uint64_t key, std::uint64_t last) {
  return key == last ? 0 : static_cast<std::size_t>(std::bit_width(key ^ last));
}

void EventQueue::push(const Event& e) {
  const auto key = static_cast<std::uint64_t>(e.time.ps);
  if (key < last_) {
    // Earlier than the current minimum: re-bucket everything around the new one.
    std::vector<Event> all;
    all.reserve(size_);
    for (auto& b : buckets_) {
      all.insert(all.end(), b.begin(), b.end());
      b.clear();
    }
    last_ = key;
    for (const Event& x : all)
      buckets_[bucket(static_cast<std::uint64_t>(x.time.ps), last_)].push_back(x);
    // Bucket 0 must stay sorted for pop(): highest sequence first.
    std::sort(buckets_[0].begin(), buckets_[0].end(),
              [](const Event& a, const Event& b) { return a.seq > b.seq; });
  }
  auto& b = buckets_[bucket(key, last_)];
  if (&b == &buckets_[0]) {
    // Equal to the minimum: after the events already waiting for it, which have lower sequence
    // numbers (bucket 0 pops from the back). Rare: the engine sends same-instant events to its
    // own FIFO.
    b.insert(b.begin(), e);
  } else {
    b.push_back(e);
  }
  ++size_;
}

void EventQueue::refill() {
  if (!buckets_[0].empty()) return;
  std::size_t i = 1;
  while (buckets_[i].empty()) ++i;
  auto& from = buckets_[i];
  std::uint64_t min = UINT64_MAX;
  for (const Event& e : from) min = std::min(min, static_cast<std::uint64_t>(e.time.ps));
  last_ = min;
  for (const Event& e : from)
    buckets_[bucket(static_cast<std::uint64_t>(e.time.ps), last_)].push_back(e);
  from.clear();
  auto& zero = buckets_[0];
  if (zero.size() > 1) {
    std::sort(zero.begin(), zero.end(),
              [](const Event& a, const Event& b) { return a.seq > b.seq; });
  }
}

const Event& EventQueue::top() {
  refill();
  return buckets_[0].back();
}

void EventQueue::pop() {
  refill();
  buckets_[0].pop_back();
  --size_;
}

}  // namespace collsim::core
