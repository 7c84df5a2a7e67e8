#pragma once
// How many channels NCCL splits one point-to-point send (or receive) over, by size: NCCL 2.2x's
// rule, learned from its source (src/enqueue.cc addP2pToPlan and scheduleP2pTasksToPlan;
// src/graph/paths.cc ncclTopoGetNchannels and ncclTopoComputeP2pChannels; src/init.cc, where the
// P2P chunk sizes are chosen). docs/nccl.md "p2p" and "Known deviation" use it.
//
// A channel is one CUDA block; NCCL cuts an operation of S bytes to one peer into equal parts,
// one per channel, and runs them at once. Small operations get few channels, and the count
// doubles with S until each part is at most a bound (or the per-peer maximum is reached):
//   - channels   = comm->p2pnChannels: the collective channel count rounded up to a power of
//     two (paths.cc), at most NCCL's MAXCHANNELS (64);
//   - per peer   = comm->p2pnChannelsPerPeer: over NVLink 2 per NVLink between the two GPUs
//     (ncclTopoGetNchannels), rounded up to a power of two, at most `channels`;
//   - minimum    = per peer, halved while minimum x ranks > channels (every peer of an
//     all-to-all gets its own channels in one round), at least 1;
//   - an operation starts at min(minimum, ceil(S / min part)) channels and doubles while its
//     part exceeds the max part and the count is at most per peer / 2; with the P2P chunk C
//     (NCCL_P2P_NVL_CHUNKSIZE, 512 KiB, on one NVLink domain; NCCL_P2P_NET_CHUNKSIZE, 128 KiB,
//     across nodes) min part = C/8 and max part = 32 C on one node, C/2 and C across nodes.
// On 8 x H100 (24 collective channels, as NCCL logs on that machine; 18 NVLinks per GPU pair
// through the NVSwitch): 32 channels, 32 per peer, minimum 4; a sendrecv of 32 or 64 MiB runs on
// 4 channels, 128 MiB on 8, 256 MiB on 16, 512 MiB and up on 32.
//
// Units: bytes. Only the count is modelled here: what one channel's rate is, NCCL's code does
// not say (docs/nccl.md "Known deviation").
#include <cstdint>

namespace collsim::collective::nccl {

/// NCCL's per-communicator point-to-point setup.
struct P2pChannelSetup {
  int channels = 0;           ///< comm->p2pnChannels (a power of two)
  int channels_per_peer = 0;  ///< comm->p2pnChannelsPerPeer (a power of two, <= channels)
  double chunk_bytes = 0;     ///< comm->p2pChunkSize
};

/// The setup on one NVLink domain: `collective_channels` (comm->nChannels, e.g. 24 on 8 x H100)
/// rounded up to a power of two and capped at 64; per peer 2 x `nvlinks` rounded up, capped at
/// the channels; chunk 512 KiB (NCCL_P2P_NVL_CHUNKSIZE default). Throws std::invalid_argument
/// unless both counts are positive.
P2pChannelSetup nvlink_p2p_setup(int collective_channels, int nvlinks);

/// The channels one send of `bytes` to one peer uses, with `ranks` ranks over `nodes` nodes
/// (the part bounds differ on one node and across nodes). 0 bytes: 1 channel.
int p2p_channels(double bytes, std::uint32_t ranks, std::uint32_t nodes,
                 const P2pChannelSetup& setup);

}  // namespace collsim::collective::nccl
