#include "collective/ir/program.hpp"

#include <fmt/format.h>

namespace collsim::collective {

std::string to_string(const Op& op) {
  if (op.kind == Op::Kind::Fence) return "fence";
  if (op.kind == Op::Kind::Barrier) return "barrier";
  const std::string step = op.step ? fmt::format(" (step {})", op.step) : "";
  const std::uint32_t last = op.first + op.count - 1;
  const auto range = op.count == 1 ? fmt::format("piece {}", op.first)
                                   : fmt::format("pieces {}..{}", op.first, last);
  if (op.kind == Op::Kind::SwitchReduce) {
    return fmt::format("switch-reduce to rank {} {}{}", op.peer, range, step);
  }
  if (op.kind == Op::Kind::RecvSwitch) return fmt::format("recv-switch {}{}", range, step);
  if (op.kind == Op::Kind::Multicast) return fmt::format("multicast {}{}", range, step);
  const char* k = op.kind == Op::Kind::Send   ? "send to"
                  : op.kind == Op::Kind::Recv ? "recv from"
                                              : "recv-reduce from";
  if (op.count == 1) return fmt::format("{} rank {} piece {}{}", k, op.peer, op.first, step);
  return fmt::format("{} rank {} pieces {}..{}{}", k, op.peer, op.first, op.first + op.count - 1,
                     step);
}

core::Bytes Program::bytes(std::uint32_t first, std::uint32_t count) const {
  if (space_bytes <= UINT32_MAX) {  // products fit in 64 bits: the cheap division
    const std::uint64_t lo = std::uint64_t{first} * space_bytes / num_pieces;
    const std::uint64_t hi = (std::uint64_t{first} + count) * space_bytes / num_pieces;
    return core::Bytes{hi - lo};
  }
  // 128-bit products so that 2^40-byte spaces with millions of pieces cannot overflow.
  __extension__ typedef unsigned __int128 u128;
  const u128 lo = static_cast<u128>(first) * space_bytes / num_pieces;
  const u128 hi = static_cast<u128>(first + count) * space_bytes / num_pieces;
  return core::Bytes{static_cast<std::uint64_t>(hi - lo)};
}

std::uint64_t Program::total_ops() const {
  std::uint64_t n = 0;
  for (Lane l = 0; l < num_lanes(); ++l) n += num_ops(l);
  return n;
}

void store_ops(Program& p) {
  if (!p.generator) return;
  p.ops.assign(p.num_lanes(), {});
  for (Lane l = 0; l < p.num_lanes(); ++l) {
    p.ops[l].reserve(p.generator->size(l));
    for (std::uint32_t i = 0; i < p.generator->size(l); ++i)
      p.ops[l].push_back(p.generator->at(l, i));
  }
  p.generator.reset();
}

Program make_program(std::string algorithm, Collective c, std::uint32_t n, core::Bytes size,
                     std::uint32_t chunks) {
  Program p;
  p.algorithm = std::move(algorithm);
  p.collective = c;
  p.num_ranks = n;
  p.num_chunks = chunks;
  p.num_pieces = chunks * pieces_per_chunk(c, n);
  p.space_bytes = space_bytes(c, n, size);
  p.ops.resize(n);
  return p;
}

}  // namespace collsim::collective
