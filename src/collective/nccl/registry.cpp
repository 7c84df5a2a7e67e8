// The list of NCCL algorithms (model.hpp). Adding one: a file here defining its *_algorithm(),
// and its line below.
#include "collective/nccl/model.hpp"

namespace collsim::collective::nccl {

AlgorithmInfo ring_algorithm();           // ring.cpp
AlgorithmInfo tree_algorithm();           // tree.cpp
AlgorithmInfo nvls_algorithm();           // nvls.cpp
AlgorithmInfo nvls_tree_algorithm();      // nvls_tree.cpp
AlgorithmInfo p2p_algorithm();            // p2p.cpp
AlgorithmInfo pat_algorithm();            // pat.cpp
AlgorithmInfo collnet_algorithm();        // collnet.cpp
AlgorithmInfo collnet_chain_algorithm();  // collnet_chain.cpp

const std::vector<AlgorithmInfo>& algorithms() {
  static const std::vector<AlgorithmInfo> all = {
      ring_algorithm(), tree_algorithm(), nvls_algorithm(),    nvls_tree_algorithm(),
      p2p_algorithm(),  pat_algorithm(),  collnet_algorithm(), collnet_chain_algorithm()};
  return all;
}

}  // namespace collsim::collective::nccl
