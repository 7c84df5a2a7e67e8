// The list of algorithms. Adding one: a file in algorithms/ defining its *_info(), and its line
// here (declared here only: nothing else calls it).
#include "collective/algorithm.hpp"

namespace collsim::collective {

// One line each, in the order of `collsim list` and of the "valid:" lists.
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
AlgorithmInfo nvls_info();                // algorithms/nvls.cpp
AlgorithmInfo pat_info();                 // algorithms/pat.cpp
AlgorithmInfo nvls_tree_info();           // algorithms/nvls_tree.cpp
AlgorithmInfo collnet_info();             // algorithms/collnet.cpp

const core::Registry<AlgorithmInfo>& algorithms() {
  static const core::Registry<AlgorithmInfo> all(
      "algorithm", {ring_info(), direct_info(), halving_doubling_info(), recursive_doubling_info(),
                    hierarchical_info(), wrht_info(), multitree_info(), ring_2d_info(),
                    double_binary_tree_info(), hdrm_info(), package_doubling_info(),
                    nvls_info(), pat_info(), nvls_tree_info(), collnet_info()});
  return all;
}

}  // namespace collsim::collective
