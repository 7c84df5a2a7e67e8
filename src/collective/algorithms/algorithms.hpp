#pragma once
// One entry point per algorithm file, listed by registry.cpp.
#include "collective/algorithm.hpp"

namespace collsim::collective {

AlgorithmInfo ring_info();                // algorithms/ring.cpp
AlgorithmInfo direct_info();              // algorithms/direct.cpp
AlgorithmInfo halving_doubling_info();    // algorithms/halving_doubling.cpp
AlgorithmInfo recursive_doubling_info();  // algorithms/recursive_doubling.cpp
AlgorithmInfo hierarchical_info();        // algorithms/hierarchical.cpp (staged)
AlgorithmInfo wrht_info();                // algorithms/wrht.cpp
AlgorithmInfo multitree_info();           // algorithms/multitree.cpp
AlgorithmInfo ring_2d_info();             // algorithms/ring_2d.cpp
AlgorithmInfo double_binary_tree_info();  // algorithms/double_binary_tree.cpp
AlgorithmInfo hdrm_info();                // algorithms/hdrm.cpp
AlgorithmInfo package_doubling_info();    // algorithms/package_doubling.cpp

}  // namespace collsim::collective
