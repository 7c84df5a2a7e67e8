#include <fmt/format.h>

#include <ostream>

#include "cli/backend_flags.hpp"
#include "cli/commands.hpp"
#include "collective/algorithm.hpp"
#include "collective/ir/verifier.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "scheduler/hierarchical_compose.hpp"
#include "scheduler/limits.hpp"
#include "topology/builders.hpp"

namespace collsim::cli {

int verify_algorithm(const VerifyOptions& opt, std::ostream& out) {
  // Verification is symbolic: link figures do not matter, any positive ones do.
  const topology::Topology topo = topology::from_compact(opt.topology, core::Bandwidth{1e9},
                                                         core::Time::from_ns(1), "--topology");
  const auto choice = collective::parse_algorithm(opt.algorithm, "--algorithm");
  const auto c = collective::parse_collective(opt.collective, "--collective");
  if (opt.chunks == 0) throw core::InputError("--chunks: must be >= 1, got 0");
  const auto comms = collective::parse_groups(opt.group, topo, "--group");
  // The verifier walks every op and holds every posted receive, as a run does: the same limits.
  const core::Bytes size{1 << 20};
  scheduler::check_chunks(size, comms.front().size(), opt.chunks, "--chunks (of 1 MiB)");
  const std::uint32_t ranks = comms.front().size();
  const scheduler::RunLimits limits = parse_limits(opt.max_messages, opt.max_memory);
  const std::string what =
      fmt::format("verify {} {} on {} in {} chunk{}", choice.label, collective::to_string(c),
                  topo.name(), opt.chunks, opt.chunks == 1 ? "" : "s");
  // The verifier's own state first (closed form), then the programs'.
  scheduler::WorkEstimate work;
  work.extra_bytes = scheduler::verifier_bytes(
      ranks, std::uint64_t{opt.chunks} *
                 (c == collective::Collective::AllToAll ? std::uint64_t{ranks} * ranks : ranks));
  scheduler::check_limits(work, limits, what);
  const std::uint64_t verifier = work.extra_bytes;
  work = scheduler::estimate_work(choice, topo, comms, c, opt.chunks, limits);
  work.extra_bytes = verifier;
  scheduler::check_limits(work, limits, what);
  for (const collective::Communicator& comm : comms) {
    // A staged (hierarchical) collective is verified as the composition of its stages.
    if (choice.info->staged && (comms.size() != 1 || !comm.is_identity(topo.num_npus()))) {
      throw core::InputError(
          fmt::format("algorithm {} runs on the whole platform; use --group all", choice.label));
    }
    const auto program = choice.info->staged
                             ? scheduler::compose_program(
                                   topo, scheduler::spec_from_choice(choice, c, size, opt.chunks))
                             : collective::build_program(choice, topo, comm, c, size, opt.chunks);
    const auto v = collective::verify(program);
    const std::string where =
        comms.size() == 1 && comm.label == "all" ? topo.name() : topo.name() + " " + comm.label;
    if (!v.ok) {
      out << fmt::format("FAILED: {} {} on {}: {}\n", choice.label, collective::to_string(c), where,
                         v.reason);
      return 1;
    }
    out << fmt::format("ok: {} {} on {} ({} ranks, {} chunk{}): {} ops, {} messages verified\n",
                       choice.label, collective::to_string(c), where, comm.size(), opt.chunks,
                       opt.chunks == 1 ? "" : "s", v.ops, v.messages);
  }
  return 0;
}

}  // namespace collsim::cli
