#pragma once
// Storage for in-flight things (messages, flows) addressed by small integer ids: released ids are
// reused, so a steady state allocates nothing and ids stay dense. A released slot keeps its
// contents (and any vector capacity in them) until it is acquired again.
#include <cstdint>
#include <vector>

namespace collsim::core {

template <class T>
class SlotPool {
 public:
  /// An id whose slot the caller now owns; its contents are whatever the last user left.
  std::uint32_t acquire() {
    if (free_.empty()) {
      slots_.emplace_back();
      return static_cast<std::uint32_t>(slots_.size() - 1);
    }
    const std::uint32_t id = free_.back();
    free_.pop_back();
    return id;
  }
  void release(std::uint32_t id) { free_.push_back(id); }

  T& operator[](std::uint32_t id) { return slots_[id]; }
  const T& operator[](std::uint32_t id) const { return slots_[id]; }
  /// Every slot ever created, free or in use (for scans in tests and diagnostics).
  const std::vector<T>& all() const { return slots_; }

 private:
  std::vector<T> slots_;
  std::vector<std::uint32_t> free_;
};

}  // namespace collsim::core
