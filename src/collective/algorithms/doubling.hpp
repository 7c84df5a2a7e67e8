#pragma once
// The recursive-doubling all-gather shared by halving-doubling and recursive-doubling.
#include "collective/ir/program.hpp"

namespace collsim::collective {

/// log2(N) steps, d = 1, 2, ..., N/2: rank r sends the aligned block range of size d it holds,
/// [r & ~(d-1), +d) of every chunk, to r XOR d. N must be a power of two.
void recursive_doubling_all_gather(Program& p, std::uint32_t chunks);

}  // namespace collsim::collective
