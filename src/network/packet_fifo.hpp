#pragma once
// A FIFO of slots of one core::SlotPool, linked through the slots' own `next` member: pushing and
// popping touch two slots and allocate nothing (the packet backend keeps one per input VC for its
// packets and one for its credit returns; a std::deque each cost ~600 bytes of scattered memory
// per VC). Internal to src/network/packet*.cpp.
#include <cstdint>

namespace collsim::network::packet {

constexpr std::uint32_t kNil = UINT32_MAX;

struct Fifo {
  std::uint32_t head = kNil;
  std::uint32_t tail = kNil;

  bool empty() const { return head == kNil; }
  /// Exactly one element.
  bool single() const { return head != kNil && head == tail; }
  template <class Pool>
  void push_back(Pool& pool, std::uint32_t id) {
    pool[id].next = kNil;
    if (tail == kNil) {
      head = id;
    } else {
      pool[tail].next = id;
    }
    tail = id;
  }
  /// Removes the front (precondition: !empty()) and returns its id.
  template <class Pool>
  std::uint32_t pop_front(Pool& pool) {
    const std::uint32_t id = head;
    head = pool[id].next;
    if (head == kNil) tail = kNil;
    return id;
  }
};

}  // namespace collsim::network::packet
