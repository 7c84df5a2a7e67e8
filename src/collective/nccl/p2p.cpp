// NCCL's point-to-point collectives as nccl-tests runs them: alltoall (every rank sends S/n to
// every rank at once) and sendrecv (rank r sends S to r+1 and receives from r-1). Inside a node
// every peer is one NVSwitch hop away, so a rank's (n-1)/n S (alltoall) or S (sendrecv) leaves at
// its NVLink rate; across nodes the off-node share goes through the rank's own NIC (rail), and
// the slower of the two sets the time (nccl-tests reports the slowest rank).
//
// NCCL splits each send over a number of channels that grows with its size (p2p_channels.hpp:
// on 8 x H100 a sendrecv of 32-64 MiB runs on 4 channels, 512 MiB and up on 32). The time here
// does not use it: what one channel moves is in neither NCCL's code nor a datasheet, so small
// sendrecvs are too fast (docs/nccl.md "Known deviation").
#include <algorithm>

#include "collective/nccl/model.hpp"

namespace collsim::collective::nccl {

namespace {

std::string_view refusal(Op op, const Context&) {
  if (op != Op::AllToAll && op != Op::SendRecv) return "p2p runs alltoall and sendrecv";
  return "";
}

double seconds(Op op, double bytes, const Context& ctx) {
  const Shape& s = ctx.shape;
  const double n = s.ranks(), g = s.gpus;
  double intra_bytes = 0, inter_bytes = 0;
  if (op == Op::AllToAll) {
    intra_bytes = (g - 1) / n * bytes;
    inter_bytes = (n - g) / n * bytes;
  } else if (s.nodes > 1) {
    inter_bytes = bytes;  // the ranks at a node's edge send to the next node
  } else {
    intra_bytes = bytes;
  }
  double t = intra_bytes / nvlink_rate(ctx);
  if (inter_bytes > 0) {
    t = std::max(t, inter_bytes / nic_rate(ctx)) + ctx.system.nic_latency.value;
  }
  return ctx.calibration.overhead_s + t;
}

}  // namespace

AlgorithmInfo p2p_algorithm() {
  return {.name = "p2p",
          .description = "NCCL's send/receive: alltoall and sendrecv over NVLink and the NICs",
          .source = "NCCL src/enqueue.cc (p2p tasks); nccl-tests src/alltoall.cu, sendrecv.cu",
          .refusal = refusal,
          .seconds = seconds,
          .protocols = kSimpleOnly,
          .steps = nullptr};
}

}  // namespace collsim::collective::nccl
