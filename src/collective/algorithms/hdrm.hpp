#pragma once
// HDRM's rank mapping (hdrm.cpp), for tests and tools.
#include <cstdint>
#include <vector>

namespace collsim::collective {

struct HdrmMapping {
  std::vector<std::uint32_t> npu;      ///< rank -> NPU of bigraph:SxP
  std::uint64_t overloaded_pairs = 0;  ///< pairs beyond an inter-layer link's capacity, all steps
};

/// The mapping for bigraph:SxP (S even, S x P a power of two). Throws core::InputError otherwise.
HdrmMapping hdrm_mapping(std::uint32_t switches, std::uint32_t per_switch);

}  // namespace collsim::collective
