// The list of algorithms. Adding one: a file in algorithms/ with an *_info() function, declared in
// algorithms/algorithms.hpp and listed here.
#include "collective/algorithm.hpp"
#include "collective/algorithms/algorithms.hpp"

namespace collsim::collective {

const std::vector<AlgorithmInfo>& algorithms() {
  static const std::vector<AlgorithmInfo> all = {ring_info(),
                                                 direct_info(),
                                                 halving_doubling_info(),
                                                 recursive_doubling_info(),
                                                 hierarchical_info(),
                                                 wrht_info(),
                                                 multitree_info(),
                                                 ring_2d_info(),
                                                 double_binary_tree_info(),
                                                 hdrm_info(),
                                                 package_doubling_info()};
  return all;
}

}  // namespace collsim::collective
