#pragma once
// Multipath routing on the flow and packet backends (docs/multipath.md): how the messages between
// two NPUs spread over the topology's equal-cost shortest paths (topology/equal_cost_paths.hpp).
//
//   none           the topology's deterministic route (fat tree: nearest-common-ancestor d-mod-k
//                  up-links; BiGraph: the middle switch by destination). The default.
//   ecmp           per flow: a hash of the flow's key picks one of the P paths (path h mod P),
//                  as a RoCE/IB switch's ECMP hashes a queue pair's 5-tuple. The key of a message
//                  is (source NPU, destination NPU, collective, program stream): NCCL's
//                  connection per peer and channel. Same seed, same paths.
//   spray-message  each message a source NPU sends takes the next path: path (h + m) mod P for
//                  its m-th message (any destination), round-robin from the flow's hash.
//   spray-packet   packet backend: packet j of such a message takes path (h + m + j) mod P
//                  (Spectrum-X-style per-packet spraying; packets may arrive out of order, the
//                  message is delivered with its last). Flow backend (no packets): the message's
//                  bytes split evenly over min(P, 64) paths, one sub-flow each (its fluid
//                  limit); the message leaves its source when its last sub-flow has.
//
// A program's pinned routes (pin_routes) still win. Graph topologies (fattree, bigraph, ...),
// switched networks with dimensions (railfat: graph-routed) and switch:N; other product topologies
// route dimension-order and refuse multipath.
#include <cstdint>
#include <vector>

#include "network/backend.hpp"
#include "network/params.hpp"
#include "topology/equal_cost_paths.hpp"

namespace collsim::network {

/// `multipath` and `ecmp_seed`: schema entries shared by the flow and packet backends.
BackendParam multipath_param();
BackendParam ecmp_seed_param();

/// Sub-flows of a spray-packet message on the flow backend, at most.
inline constexpr std::uint32_t kMaxSprayPaths = 64;

/// The hash of a message's flow key (src, dst, attrs.flow, attrs.path) under `seed`: SplitMix64
/// steps, the same on every platform.
std::uint64_t flow_hash(std::uint32_t seed, topology::NodeId src, topology::NodeId dst,
                        const MessageAttributes& attrs);

class PathChooser {
 public:
  /// Throws core::InputError naming the backend option when `rule` is not none on a product
  /// topology other than switch:N, or `seed` is set with rule none.
  PathChooser(const topology::Topology& topo, Multipath rule, std::uint32_t seed,
              std::string_view backend);

  Multipath rule() const { return rule_; }
  bool active() const { return rule_ != Multipath::None; }
  /// The index of a new message's path (ecmp: its flow's hash; spraying: the hash plus the
  /// messages its source sent before, counted here).
  std::uint64_t message_path(topology::NodeId src, topology::NodeId dst,
                             const MessageAttributes& attrs);
  /// Equal-cost paths from src to dst.
  std::uint64_t paths(topology::NodeId src, topology::NodeId dst) {
    return paths_.count(src, dst);
  }
  /// Append path `index` mod paths(src, dst).
  void append(topology::NodeId src, topology::NodeId dst, std::uint64_t index,
              std::vector<topology::LinkId>& out) {
    paths_.append(src, dst, index, out);
  }

 private:
  Multipath rule_;
  std::uint32_t seed_;
  topology::EqualCostPaths paths_;
  std::vector<std::uint32_t> sent_;  // spraying: messages each NPU has sent
};

}  // namespace collsim::network
