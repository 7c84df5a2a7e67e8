#pragma once
// Rotation symmetry: simulate three ranks of a flat ring when every rank would do the same.
//
// On a flat ring all-reduce (reduce-scatter, all-gather) of N ranks, the rank at ring position k
// runs position 0's ops with peers and blocks shifted by k: the same sends and receives, of the
// same sizes, to the ranks one ahead and one behind. When the ring is the NPU order and every
// rank's routes to its neighbours have the same shape (hop by hop the same bandwidth and latency,
// links shared between the same neighbours' routes: a one-dimensional switch or fully connected
// network), the backend lets messages interact only through links, and the endpoint not at all,
// every rank does everything at the same instants. Three ranks whose peers wrap round after the
// third then run exactly as three ranks of the N-rank ring: rank 1 receives from rank 0 what
// rank 1 of the real ring receives from rank 0, and rank 0 receives from rank 2 what the real
// rank 0 receives from rank N-1 at the same instant. The run simulates 3/N of the messages (the
// flat 4,096-NPU ring all-reduce: 134 M messages become 98 K), with the same simulated time; the
// messages and bytes are scaled by N/3 and every link used by the ring gets the statistics of
// the proxy link playing its part, so reports read as if every rank ran.
//
// Checked, not assumed: the program's ops of ranks 0, 1, 2, N/2 and N-1 against rank 0's (kind,
// size, step, peer offset +-1), equal piece sizes (a size that does not divide into the pieces
// evenly gives messages a byte apart, and the full run is simulated), and every rank's routes
// to its neighbours against the proxy's, link by link (O(N) routes). Anything else (a trace
// watching messages, other traffic on the machine, a stored or staged program, an endpoint
// other than the ideal one, a backend with shared resources) simulates every rank.
#include <cstdint>
#include <string>
#include <vector>

#include "collective/algorithm.hpp"
#include "collective/ir/program.hpp"
#include "network/backend.hpp"
#include "topology/topology.hpp"

namespace collsim::scheduler {

/// RotationSymmetry::representative of a link the ring does not use.
inline constexpr topology::LinkId kUnusedLink = 0xffffffffu;
/// Ranks of the stand-in ring.
inline constexpr std::uint32_t kRotationProxyRanks = 3;
/// Rings of fewer ranks run in full (nothing to gain, and they keep every test's full path).
inline constexpr std::uint32_t kRotationMinRanks = 64;

struct RotationSymmetry {
  /// Empty if the three-rank stand-in gives the same times; else why not.
  std::string broken;
  std::uint32_t ranks = 0;  ///< N
  /// Per link of the topology: the link of the stand-in run whose statistics it takes, or
  /// kUnusedLink for a link the ring does not use.
  std::vector<topology::LinkId> representative;
  bool holds() const { return broken.empty(); }
};

/// Whether `p` (a flat program on `topo`) may run as its three-rank stand-in; see above. Cheap:
/// a few ranks' ops and every rank's two neighbour routes.
RotationSymmetry rotation_symmetry(const collective::Program& p, const topology::Topology& topo);

/// The stand-in of `p` (rotation_symmetry(p, ...) must hold): ranks 0, 1, 2 with p's ops, their
/// peers wrapped round after rank 2. Shares p's generator; p must outlive it.
collective::Program rotation_proxy(const collective::Program& p);

/// Before a run (for the work estimate): whether a flat `algorithm` program of `ranks` ranks
/// could take the stand-in on this backend and endpoint -- the ring algorithm without
/// parameters, on one communicator of the whole platform, on a one-dimensional switch or fully
/// connected topology, a links-only backend and the ideal endpoint with no parameters. The run
/// checks the program itself (rotation_symmetry) and agrees wherever the piece sizes are equal.
bool rotation_planned(const collective::AlgorithmChoice& algorithm, std::uint32_t ranks,
                      const topology::Topology& topo, const network::BackendInfo& backend,
                      const network::BackendOptions& options, bool ideal_endpoint);

/// Link statistics as if every rank ran.
std::vector<network::LinkStats> expand_rotation_link_stats(
    const std::vector<network::LinkStats>& stats, const RotationSymmetry& symmetry);

}  // namespace collsim::scheduler
