#pragma once
// Dense ids for the channels (ordered rank pairs) a program uses, so that per-channel state
// (sequence numbers, "still serializing") lives in plain vectors. Most algorithms give a rank few
// peers (ring 1-2, halving-doubling log2 N): a short per-rank list searched linearly answers them
// without hashing; ranks with many peers (direct) spill into a hash map.
#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "collective/collective.hpp"

namespace collsim::collective {

class ChannelTable {
 public:
  explicit ChannelTable(std::uint32_t ranks) : small_(ranks) {}

  /// The id of channel src -> dst, assigned on first use (0, 1, 2, ...).
  std::uint32_t id(Rank src, Rank dst) {
    auto& list = small_[src];
    for (const auto& [peer, id] : list) {
      if (peer == dst) return id;
    }
    if (list.size() < kSmall) {
      list.emplace_back(dst, next_);
      return next_++;
    }
    const auto [it, inserted] = big_.try_emplace((std::uint64_t{src} << 32) | dst, next_);
    if (inserted) ++next_;
    return it->second;
  }
  std::uint32_t size() const { return next_; }

 private:
  static constexpr std::size_t kSmall = 8;
  std::vector<std::vector<std::pair<Rank, std::uint32_t>>> small_;
  absl::flat_hash_map<std::uint64_t, std::uint32_t> big_;
  std::uint32_t next_ = 0;
};

}  // namespace collsim::collective
