// NCCL's point-to-point collectives as nccl-tests runs them: alltoall (every rank sends S/n to
// every rank at once) and sendrecv (rank r sends S to r+1 and receives from r-1). Inside a node
// every peer is one NVSwitch hop away; across nodes the off-node share goes through the rank's
// own NIC (rail), and the slower of the two sets the time (nccl-tests reports the slowest rank).
//
// Rates. NCCL splits each send into equal parts over a number of channels that grows with its
// size (p2p_channels.hpp: on 8 x H100 a sendrecv of 32-64 MiB runs on 4 channels, 512 MiB and up
// on 32), one CUDA block each. A channel moves at most one NVLink's rate as NCCL rates a link
// (topo.h SMxx_NVLINK_BW, as NCCL gives it: nvlink_channel_rate): NCCL sizes every GPU-to-GPU
// path in whole links of that rate, and counts its p2p channels per peer in links (paths.cc
// ncclTopoGetNchannels). So over NVLink a send moves min(NVLink rate, channels x one link's
// rate). Across nodes the NIC bounds it.
//
// Protocol and latency. NCCL sends a part with LL when it is at most NCCL_P2P_LL_THRESHOLD
// (16 KiB) bytes, else with Simple (enqueue.cc); LL moves half the rate. NCCL's tuner prices no
// point-to-point operation, so collsim prices one with the tuner's ring constants for that
// protocol: a sendrecv as one ring step (base + one NVLink or network step), an alltoall, which
// gathers a shard from each of the other n - 1 ranks, as NCCL's ring all-gather over the same
// ranks (base + n - 1 steps, N - 1 of them across nodes). That reading is collsim's, not NCCL's
// (docs/nccl.md "p2p").
#include <algorithm>
#include <limits>

#include "collective/nccl/model.hpp"
#include "collective/nccl/p2p_channels.hpp"
#include "collective/nccl/tuner.hpp"

namespace collsim::collective::nccl {

namespace {

constexpr double kLlThreshold = 16384;  // enqueue.cc NCCL_P2P_LL_THRESHOLD default

std::string_view refusal(Op op, const Context&) {
  if (op != Op::AllToAll && op != Op::SendRecv) return "p2p runs alltoall and sendrecv";
  return "";
}

double per_peer_bytes(Op op, double bytes, const Context& ctx) {
  return op == Op::AllToAll ? bytes / ctx.shape.ranks() : bytes;
}

Protocol protocol(Op op, double bytes, const Context& ctx) {
  return per_peer_bytes(op, bytes, ctx) <= kLlThreshold ? Protocol::LL : Protocol::Simple;
}

// The NVLink rate of `peers` concurrent sends of `per_peer` bytes each: NCCL's channels for one
// send, all peers' at once up to the communicator's p2p channels, each at one link's rate.
double nvlink_send_rate(double per_peer, double peers, const Context& ctx) {
  const auto& view = ctx.system.nccl;
  if (view.channels.value <= 0 || view.nvlinks == 0) return nvlink_rate(ctx);  // not known
  const P2pChannelSetup setup =
      nvlink_p2p_setup(static_cast<int>(view.channels.value), static_cast<int>(view.nvlinks));
  const double per_send = p2p_channels(per_peer, ctx.shape.ranks(), ctx.shape.nodes, setup);
  const double at_once = std::min(per_send * peers, static_cast<double>(setup.channels));
  return std::min(nvlink_rate(ctx), at_once * nvlink_channel_rate(ctx));
}

double latency(Op op, Protocol p, const Context& ctx) {
  if (op == Op::AllToAll) return tuner_latency(TunerAlgo::Ring, p, Op::AllGather, ctx);
  const double device = ctx.system.nccl.net_device_latency.value;
  const double step = ctx.shape.nodes > 1 ? hw_latency(Hw::Net, TunerAlgo::Ring, p) + device +
                                                (p == Protocol::Simple ? device : 0)
                                          : hw_latency(Hw::NVLink, TunerAlgo::Ring, p);
  return base_latency(TunerAlgo::Ring, p) + step;
}

double seconds(Op op, double bytes, const Context& ctx, Protocol p) {
  const Shape& s = ctx.shape;
  const double n = s.ranks(), g = s.gpus;
  const double per_peer = per_peer_bytes(op, bytes, ctx);
  double t = 0;
  if (op == Op::AllToAll) {
    if (g > 1) t = (g - 1) / n * bytes / nvlink_send_rate(per_peer, g - 1, ctx);
    if (s.nodes > 1) t = std::max(t, (n - g) / n * bytes / nic_rate(ctx));
  } else if (s.nodes > 1) {
    t = bytes / nic_rate(ctx);  // the ranks at a node's edge send to the next node
  } else {
    t = bytes / nvlink_send_rate(per_peer, 1, ctx);
  }
  if (p == Protocol::LL) t *= 2;  // 4 data bytes in each 8-byte line
  return ctx.calibration.overhead_s + latency(op, p, ctx) + t;
}

}  // namespace

AlgorithmInfo p2p_algorithm() {
  return {.name = "p2p",
          .description =
              "NCCL's send/receive: alltoall and sendrecv over NVLink and the NICs, "
              "on NCCL's p2p channels (LL up to 16 KiB per peer, then Simple)",
          .source =
              "NCCL src/enqueue.cc (p2p tasks, NCCL_P2P_LL_THRESHOLD), src/graph/paths.cc "
              "(p2p channels); nccl-tests src/alltoall.cu, sendrecv.cu",
          .refusal = refusal,
          .seconds = seconds,
          .protocols =
              (1 << static_cast<int>(Protocol::Simple)) | (1 << static_cast<int>(Protocol::LL)),
          .fixed_protocol = protocol};
}

}  // namespace collsim::collective::nccl
