#include "scheduler/limits.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace collsim::scheduler {
namespace {

std::string count(std::uint64_t v) {
  if (v < 10'000) return std::to_string(v);
  return fmt::format("{:.3g}", static_cast<double>(v));
}

std::string gib(std::uint64_t bytes) {
  return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1ull << 30));
}

}  // namespace

std::uint64_t distinct_channels(const collective::Program& p) {
  std::uint64_t total = 0;
  std::vector<std::uint32_t> seen(p.num_ranks, UINT32_MAX);
  for (collective::Lane l = 0; l < p.num_lanes(); ++l) {
    for (std::uint32_t i = 0; i < p.num_ops(l); ++i) {
      const collective::Op op = p.op(l, i);
      if (!op.is_send() || seen[op.peer] == l) continue;
      seen[op.peer] = l;
      ++total;
    }
  }
  return total;
}

WorkEstimate estimate_work(const collective::AlgorithmChoice& choice,
                           const topology::Topology& topo,
                           const std::vector<collective::Communicator>& comms,
                           collective::Collective c, std::uint32_t chunks) {
  WorkEstimate e;
  e.links = topo.links().size();
  if (choice.info->staged) return e;
  for (const collective::Communicator& comm : comms) {
    const collective::Program p =
        collective::build_program(choice, topo, comm, c, core::Bytes{1}, 1);
    const std::uint64_t ops = p.total_ops();
    const std::uint64_t messages = ops / 2 * chunks;
    e.messages += messages;
    if (!p.generator) e.stored_ops += ops * chunks;
    // Channels are counted only for jobs that may run (a count visits every op).
    if (e.messages <= 4'000'000'000ull) {
      e.in_flight += std::min(messages, distinct_channels(p) * chunks);
    } else {
      e.in_flight += messages;
    }
  }
  e.links = topo.links().size();
  return e;
}

std::uint64_t verifier_bytes(std::uint32_t ranks, std::uint64_t pieces) {
  return std::uint64_t{ranks} * pieces * ((ranks + 63) / 64) * 8;
}

void check_limits(const WorkEstimate& e, const RunLimits& limits, const std::string& what) {
  if (e.messages > limits.max_messages) {
    throw core::ResourceError(fmt::format(
        "{}: about {} messages, over the limit of {} (--max-messages; a few million messages "
        "take a second): use fewer NPUs, ranks or chunks, or raise --max-messages",
        what, count(e.messages), count(limits.max_messages)));
  }
  if (e.memory() > limits.max_memory) {
    throw core::ResourceError(fmt::format(
        "{}: about {} of simulator memory ({} messages in flight at once), over the limit of {} "
        "(--max-memory): use fewer NPUs, ranks or chunks, or raise --max-memory if the machine "
        "has it",
        what, gib(e.memory()), count(e.in_flight), gib(limits.max_memory)));
  }
}

void check_chunks(core::Bytes size, std::uint32_t ranks, std::uint32_t chunks,
                  const std::string& field) {
  if (chunks <= 1 || size.count >= std::uint64_t{chunks} * ranks) return;
  throw core::InputError(fmt::format(
      "{}: {} chunks split {} over {} ranks into less than one byte per rank and chunk; use at "
      "most {} chunk{} for this size",
      field, chunks, core::to_string(size), ranks, std::max<std::uint64_t>(1, size.count / ranks),
      size.count / ranks > 1 ? "s" : ""));
}

}  // namespace collsim::scheduler
