// NCCL's point-to-point channel count (p2p_channels.hpp has the rule and its sources).
#include "collective/nccl/p2p_channels.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace collsim::collective::nccl {

namespace {

constexpr int kMaxChannels = 64;            // NCCL's MAXCHANNELS
constexpr double kNvlChunk = 512.0 * 1024;  // NCCL_P2P_NVL_CHUNKSIZE default

int pow2_up(int x) {
  int p = 1;
  while (p < x) p *= 2;
  return p;
}

}  // namespace

P2pChannelSetup nvlink_p2p_setup(int collective_channels, int nvlinks) {
  if (collective_channels <= 0 || nvlinks <= 0) {
    throw std::invalid_argument("nvlink_p2p_setup: channel and NVLink counts must be positive");
  }
  P2pChannelSetup s;
  s.channels = std::min(pow2_up(collective_channels), kMaxChannels);
  s.channels_per_peer = std::min(pow2_up(2 * nvlinks), s.channels);
  s.chunk_bytes = kNvlChunk;
  return s;
}

int p2p_channels(double bytes, std::uint32_t ranks, std::uint32_t nodes,
                 const P2pChannelSetup& setup) {
  if (bytes <= 0) return 1;
  const int per_peer = std::max(1, setup.channels_per_peer);
  int minimum = per_peer;
  while (minimum > 1 && static_cast<double>(minimum) * ranks > setup.channels) minimum /= 2;
  const bool one_node = nodes <= 1;
  const double min_part = one_node ? setup.chunk_bytes / 8 : setup.chunk_bytes / 2;
  const double max_part = one_node ? setup.chunk_bytes * 32 : setup.chunk_bytes;
  int n = static_cast<int>(std::min<double>(minimum, std::ceil(bytes / min_part)));
  double part = std::max(min_part, std::ceil(bytes / n));
  while (part > max_part && n <= per_peer / 2) {
    n *= 2;
    part = std::ceil(bytes / n);
  }
  return n;
}

}  // namespace collsim::collective::nccl
