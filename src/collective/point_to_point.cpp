#include "collective/point_to_point.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "core/error.hpp"

namespace collsim::collective {

Program point_to_point(std::uint32_t src, std::uint32_t dst, core::Bytes bytes) {
  if (src == dst) throw core::InputError(fmt::format("send: NPU {} sends to itself", src));
  if (bytes.count > UINT64_MAX / 2) {
    throw core::InputError(fmt::format("send: {} bytes is more than collsim can address",
                                       bytes.count));
  }
  Program p;
  p.algorithm = "send";
  p.collective = Collective::AllGather;
  p.num_ranks = 2;
  p.num_chunks = 1;
  p.num_pieces = 2;                 // piece 0 is the message; piece 1 is never sent
  p.space_bytes = 2 * bytes.count;  // so that piece 0 is `bytes` long
  p.npus = {src, dst};
  p.ops.resize(2);
  p.ops[0].emplace_back(Op::Kind::Send, 1, 0, 1);
  p.ops[1].emplace_back(Op::Kind::Recv, 0, 0, 1);
  return p;
}

}  // namespace collsim::collective
