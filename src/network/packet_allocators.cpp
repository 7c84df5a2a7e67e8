// The packet backend's switch allocators: one line each, in the order of network::SwitchAllocator.
#include <array>

#include "network/packet_allocator.hpp"

namespace collsim::network::packet {

std::unique_ptr<SwitchAllocatorUnit> make_input_first();   // packet_input_first.cpp
std::unique_ptr<SwitchAllocatorUnit> make_output_order();  // packet_output_order.cpp
std::unique_ptr<SwitchAllocatorUnit> make_islip();         // packet_islip.cpp

std::span<const SwitchAllocatorInfo> switch_allocators() {
  static constexpr std::array<SwitchAllocatorInfo, 3> kAll = {{
      {"input-first", "separable input-first (BookSim separable_input_first)", &make_input_first},
      {"output-order", "outputs in channel order (collsim before issue 37)", &make_output_order},
      {"islip", "iSLIP, one iteration (BookSim islip)", &make_islip},
  }};
  return kAll;
}

}  // namespace collsim::network::packet
