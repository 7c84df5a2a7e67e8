#include <fmt/format.h>

#include <ostream>

#include "cli/backend_flags.hpp"
#include "cli/commands.hpp"
#include "core/units.hpp"
#include "scheduler/limits.hpp"
#include "topology/inventory.hpp"
#include "topology/link_failures.hpp"

namespace collsim::cli {

int show_inventory(const TopologyFlags& flags, const std::string& max_messages,
                   const std::string& max_memory, std::ostream& out) {
  const scheduler::RunLimits limits = parse_limits(max_messages, max_memory);
  // Building is the work: every form refuses more than topology::kMaxLinksPerTopology links
  // before it allocates them (2^27: about 5.3 GB at the 40 B per link the topology holds,
  // measured on fc:4096 and fc:8192), so a smaller limit is checked on the topology built.
  const topology::Topology topo = compact_topology(flags);
  const std::uint64_t links = topo.links().size();
  scheduler::check_command_work(links, "directed links", scheduler::kBaseBytes + 40 * links,
                                limits, fmt::format("inventory of {}", topo.name()));
  out << fmt::format("{}: {} NPUs, {} switches, {} directed links\n", topo.name(), topo.num_npus(),
                     topo.num_switches(), topo.links().size());
  if (!topo.summary().empty()) out << "  " << topo.summary() << "\n";
  out << fmt::format("  {:<24} {:>7} {:>9} {:>13} {:>8} {:>16} {:>16}\n", "dimension", "groups",
                     "switches", "switch ports", "links", "out per NPU", "aggregate");
  for (const topology::InventoryRow& r : topology::inventory(topo)) {
    out << fmt::format("  {:<24} {:>7} {:>9} {:>13} {:>8} {:>16} {:>16}\n", r.name, r.groups,
                       r.switches, r.switch_ports, r.links, core::to_string(r.per_npu),
                       core::to_string(r.aggregate));
  }
  if (!topo.failed_links().empty()) {  // --fail-links
    out << fmt::format("  failed links ({} directed):", topo.failed_links().size());
    for (topology::LinkId l : topo.failed_links()) {
      const topology::Link& k = topo.links()[l];
      out << fmt::format(" {}>{}", topology::node_name(topo, k.src),
                         topology::node_name(topo, k.dst));
    }
    out << "\n";
  }
  return 0;
}

}  // namespace collsim::cli
