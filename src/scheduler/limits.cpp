#include "scheduler/limits.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "scheduler/hierarchical.hpp"

namespace collsim::scheduler {
namespace {

std::string count(std::uint64_t v) {
  if (v < 10'000) return std::to_string(v);
  return fmt::format("{:.3g}", static_cast<double>(v));
}

// An estimate in the largest binary unit it reaches, to one decimal below 100 ("9.4 GiB",
// "118 MiB", "128 PiB"): never a count of GiB in the millions.
std::string estimate_size(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (u < 6 && v >= 1024) v /= 1024, ++u;
  std::string n = v >= 100 || u == 0 ? fmt::format("{:.0f}", v) : fmt::format("{:.1f}", v);
  if (n.ends_with(".0")) n.resize(n.size() - 2);
  return n + " " + kUnits[u];
}

// a * b, saturated at UINT64_MAX.
std::uint64_t mul(std::uint64_t a, std::uint64_t b) {
  return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}
std::uint64_t add(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

// Mean route length (links) of `p`'s sends, from at most ~4096 of them spread evenly over the
// lanes: the topology's route, as the backends take it.
double mean_route_links(const collective::Program& p, const topology::Topology& topo) {
  const std::uint64_t ops = p.total_ops();
  const std::uint64_t stride = std::max<std::uint64_t>(1, ops / 4096);
  std::uint64_t sends = 0, links = 0;
  const auto npu = [&](collective::Rank r) { return p.npus.empty() ? r : p.npus[r]; };
  for (collective::Lane l = 0; l < p.num_lanes(); ++l) {
    for (std::uint64_t i = l % stride; i < p.num_ops(l); i += stride) {
      const collective::Op op = p.op(l, static_cast<std::uint32_t>(i));
      if (!op.is_send()) continue;
      ++sends;
      links += topo.hops(npu(p.rank_of(l)), npu(op.peer));
    }
  }
  return sends == 0 ? 1.0 : static_cast<double>(links) / static_cast<double>(sends);
}

// The stages one chunk runs in each dimension (as prepare() tries them): a bound, so ASTRA-sim's
// local-bandwidth walk counts both its all-reduce stage and a reduce-scatter/all-gather pair.
std::vector<collective::Collective> stage_collectives(const HierarchicalSpec& spec) {
  using collective::Collective;
  switch (spec.collective) {
    case Collective::AllReduce:
      if (spec.schedule == InterDimPolicy::PerDimAllReduce) return {Collective::AllReduce};
      if (spec.schedule == InterDimPolicy::AstraLocalBw) {
        return {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather};
      }
      return {Collective::ReduceScatter, Collective::AllGather};
    default:
      return {spec.collective};
  }
}

}  // namespace

std::uint64_t WorkEstimate::memory() const {
  return add(add(add(kBaseBytes, mul(kBytesPerLink, links)), add(mul(16, stored_ops), extra_bytes)),
             mul(kBytesPerInFlight, in_flight));
}

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

WorkEstimate bound_work(const collective::AlgorithmChoice& choice, const topology::Topology& topo,
                        const std::vector<collective::Communicator>& comms,
                        collective::Collective c, std::uint32_t chunks,
                        bool every_group) {
  WorkEstimate e;
  e.links = topo.links().size();
  if (choice.info->staged) {
    // Stages per dimension: every group runs its dimension's stage algorithm (Themis Table 1, or
    // the choice's dimK) once per phase, whose closed-form send count is the bound (a
    // halving-doubling stage on a 64-NPU switch sends 64 x 6 messages, not a ring both ways'
    // 2 x 64 x 63). A spec the run would refuse, or an algorithm with no closed form, is bounded
    // by 2 K (K - 1) per phase, a ring both ways. With groups=auto the first group of each
    // dimension stands for all where the run allows it (scheduler/group_symmetry.hpp).
    HierarchicalSpec spec = spec_from_choice(choice, c, core::Bytes{1}, 1);
    const bool all = every_group || spec.all_groups;
    bool prepared = true;
    try {
      prepare(topo, spec);
    } catch (const core::InputError&) {
      prepared = false;
    }
    const std::uint64_t n = topo.num_npus();
    const auto& dims = topo.dimensions();
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const std::uint64_t k = dims[d].spec.size;
      if (k < 2) continue;
      const std::uint64_t groups = all ? n / k : 1;
      std::uint64_t per_group = 0;
      for (collective::Collective stage : stage_collectives(spec)) {
        std::uint64_t sends = 0;
        if (prepared && !dims[d].groups.empty()) {
          sends = collective::program_size(spec.dim_algorithms[d], topo,
                                           collective::Communicator{dims[d].groups.front(), ""},
                                           stage, 1)
                      .sends;
        }
        per_group = add(per_group, sends > 0 ? sends : 2 * k * (k - 1));
      }
      e.messages = add(e.messages, mul(mul(groups, per_group), chunks));
    }
    return e;
  }
  for (const collective::Communicator& comm : comms) {
    const collective::ProgramSize s = collective::program_size(choice, topo, comm, c, chunks);
    e.messages = add(e.messages, mul(s.sends, chunks));
    e.stored_ops = add(e.stored_ops, mul(s.stored_ops, chunks));
  }
  return e;
}

bool beyond(const WorkEstimate& bound, const RunLimits& limits) {
  return bound.messages > limits.max_messages || bound.memory() > limits.max_memory;
}

bool could_build(const collective::AlgorithmInfo& info, const topology::Topology& topo,
                 const collective::Communicator& comm) {
  const std::uint32_t n = comm.size();
  return collective::refusal(info, topo).empty() && !(info.power_of_two && (n & (n - 1)) != 0);
}

WorkEstimate estimate_work(const collective::AlgorithmChoice& choice,
                           const topology::Topology& topo,
                           const std::vector<collective::Communicator>& comms,
                           collective::Collective c, std::uint32_t chunks,
                           const RunLimits& limits) {
  WorkEstimate e;
  e.links = topo.links().size();
  if (choice.info->staged) return bound_work(choice, topo, comms, c, chunks);
  if (WorkEstimate bound = bound_work(choice, topo, comms, c, chunks); beyond(bound, limits)) {
    return bound;
  }
  for (const collective::Communicator& comm : comms) {
    const collective::Program p =
        collective::build_program(choice, topo, comm, c, core::Bytes{1}, 1);
    const std::uint64_t ops = p.total_ops();
    const std::uint64_t messages = ops / 2 * chunks;
    e.messages += messages;
    const double links = static_cast<double>(messages) * mean_route_links(p, topo);
    e.route_links = add(e.route_links, links >= 1.8e19 ? UINT64_MAX
                                                        : static_cast<std::uint64_t>(links));
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
  return mul(mul(mul(ranks, pieces), (std::uint64_t{ranks} + 63) / 64), 8);
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
        "{}: about {} of simulator memory{}, over the limit of {} (--max-memory): use fewer "
        "NPUs, ranks or chunks, or raise --max-memory if the machine has it",
        what, estimate_size(e.memory()),
        e.in_flight > 0 ? fmt::format(" ({} messages in flight at once)", count(e.in_flight)) : "",
        core::to_string(core::Bytes{limits.max_memory})));  // as the user wrote it
  }
}

std::uint64_t moved_bytes(collective::Collective c, std::uint32_t ranks, core::Bytes size) {
  return mul(mul(ranks, size.count), c == collective::Collective::AllReduce ? 2 : 1);
}

void check_backend_work(const network::BackendInfo& backend, const network::BackendOptions& options,
                        const topology::Topology& topo, std::uint64_t messages,
                        std::uint64_t bytes, const RunLimits& limits, const std::string& what) {
  if (backend.work == nullptr) return;
  const std::uint64_t units = backend.work(options, messages, bytes);
  if (units <= limits.max_messages) {
    if (backend.state_bytes == nullptr) return;
    const std::uint64_t state = backend.state_bytes(options, topo, units);
    const std::uint64_t memory = state > UINT64_MAX - kBaseBytes ? UINT64_MAX : state + kBaseBytes;
    if (memory <= limits.max_memory) return;
    throw core::ResourceError(fmt::format(
        "{}: about {} of simulator memory for the {} backend's state (its VCs on every port and "
        "the {} its buffers hold at once), over the limit of {} (--max-memory): use fewer VCs "
        "or shallower buffers, fewer NPUs, or raise --max-memory if the machine has it",
        what, estimate_size(memory), backend.name,
        backend.work_unit ? backend.work_unit(options) : "messages",
        core::to_string(core::Bytes{limits.max_memory})));
  }
  throw core::ResourceError(fmt::format(
      "{}: about {} {} on the {} backend ({} messages of {} in all), over the limit of {} "
      "(--max-messages): use a smaller size, fewer NPUs, another backend, or raise "
      "--max-messages",
      what, count(units), backend.work_unit ? backend.work_unit(options) : "messages", backend.name,
      count(messages), core::to_string(core::Bytes{bytes}), count(limits.max_messages)));
}

void check_route_work(const WorkEstimate& e, const network::BackendInfo& backend,
                      const RunLimits& limits, const std::string& what) {
  if (!backend.route_work || e.route_links <= limits.max_messages) return;
  throw core::ResourceError(fmt::format(
      "{}: about {} route links on the {} backend ({} messages of {:.3g} links on average: its "
      "work is per link of each route), over the limit of {} (--max-messages): use fewer NPUs, "
      "a topology-aware algorithm, another backend, or raise --max-messages",
      what, count(e.route_links), backend.name, count(e.messages),
      e.messages ? static_cast<double>(e.route_links) / static_cast<double>(e.messages) : 0.0,
      count(limits.max_messages)));
}

std::uint64_t solver_budget(const RunLimits& limits) {
  return mul(limits.max_messages, kSolverVisitsPerMessage);
}

void check_command_work(std::uint64_t units, std::string_view unit, std::uint64_t memory,
                        const RunLimits& limits, const std::string& what) {
  if (units > limits.max_messages) {
    throw core::ResourceError(fmt::format(
        "{}: about {} {}, over the limit of {} (--max-messages counts them for this command): "
        "use fewer NPUs or points, or raise --max-messages",
        what, count(units), unit, count(limits.max_messages)));
  }
  if (memory > limits.max_memory) {
    throw core::ResourceError(fmt::format(
        "{}: about {} of memory ({} {}), over the limit of {} (--max-memory): use fewer NPUs or "
        "points, or raise --max-memory if the machine has it",
        what, estimate_size(memory), count(units), unit,
        core::to_string(core::Bytes{limits.max_memory})));
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
