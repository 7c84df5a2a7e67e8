#pragma once
// Routes an algorithm reserved for its own messages, instead of the topology's deterministic
// route: MultiTree's reference mode on switched networks, whose tree builder (the authors'
// simulator, MultiTree (ISCA'21) Sec. III-C3) takes any free switch path for a tree edge; the
// edge's messages must then cross the links it reserved. A route is keyed by (source NPU,
// destination NPU, time step); the executor hands the step to the backend as the message's
// priority, and a backend given the table (network::Backend::pin_routes) routes a message whose
// key is in it over the stored links. Messages without a step, or whose key is absent, take the
// topology's route.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "topology/topology.hpp"

namespace collsim::topology {

class PinnedRoutes {
 public:
  /// Store `links` (a contiguous src -> dst path) for (src, dst, step). A second add of the same
  /// key keeps the first path. Call seal() before lookups.
  void add(NodeId src, NodeId dst, std::uint32_t step, std::span<const LinkId> links) {
    entries_.push_back({key(src, dst, step), static_cast<std::uint32_t>(links_.size()),
                        static_cast<std::uint32_t>(links.size())});
    links_.insert(links_.end(), links.begin(), links.end());
  }
  /// Sort for lookups (stable: the first add of a key wins).
  void seal() {
    std::stable_sort(entries_.begin(), entries_.end(),
                     [](const Entry& a, const Entry& b) { return a.key < b.key; });
    entries_.erase(std::unique(entries_.begin(), entries_.end(),
                               [](const Entry& a, const Entry& b) { return a.key == b.key; }),
                   entries_.end());
  }
  /// Append the pinned links of (src, dst, step) to `out`; false (nothing appended) if none.
  bool append(NodeId src, NodeId dst, std::uint32_t step, std::vector<LinkId>& out) const {
    if (step == 0) return false;
    const std::uint64_t k = key(src, dst, step);
    const auto it = std::lower_bound(entries_.begin(), entries_.end(), k,
                                     [](const Entry& e, std::uint64_t v) { return e.key < v; });
    if (it == entries_.end() || it->key != k) return false;
    out.insert(out.end(), links_.begin() + it->first, links_.begin() + it->first + it->count);
    return true;
  }
  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::uint64_t key;
    std::uint32_t first, count;
  };
  static std::uint64_t key(NodeId src, NodeId dst, std::uint32_t step) {
    return (std::uint64_t{src} << 42) | (std::uint64_t{dst} << 20) | (step & 0xfffffu);
  }
  std::vector<Entry> entries_;
  std::vector<LinkId> links_;
};

}  // namespace collsim::topology
