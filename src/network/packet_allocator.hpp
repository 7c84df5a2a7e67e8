#pragma once
// Switch allocators of the packet backend (Dally & Towles ch. 19; BookSim's allocators/): which
// of the requests waiting at the free output channels are granted. The router pipeline
// (packet_fabric.hpp) runs one allocation pass per instant, after everything that instant
// changes (requests, credits, channels and ports freeing), as a cycle-based router allocates
// after the cycle's updates; the allocator's allocate() is that pass. Adding an allocator is one
// file (a SwitchAllocatorUnit), its test and one line in switch_allocators()
// (packet_allocators.cpp); `switch_allocator` then offers it by name. Internal to
// src/network/packet*.cpp.
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

namespace collsim::network::packet {

class Fabric;

class SwitchAllocatorUnit {
 public:
  virtual ~SwitchAllocatorUnit() = default;
  /// One pass at the current instant over Fabric::alloc_now (the outputs with something new, in
  /// channel order). For each output it considers, it calls Fabric::take_arrivals first, then
  /// grants with Fabric::grant; outputs that should allocate again in this instant go through
  /// Fabric::request_alloc (a further pass).
  virtual void allocate(Fabric& f) = 0;
};

struct SwitchAllocatorInfo {
  std::string_view name;         // the `switch_allocator` choice
  std::string_view description;  // one line for `collsim list`
  std::unique_ptr<SwitchAllocatorUnit> (*make)();
};

/// Every switch allocator, in the order of network::SwitchAllocator (its values index this).
std::span<const SwitchAllocatorInfo> switch_allocators();

}  // namespace collsim::network::packet
