#include "jobs/replay_limits.hpp"

#include <map>
#include <numeric>
#include <utility>

#include "core/error.hpp"

namespace collsim::jobs {
namespace {

std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

}  // namespace

scheduler::WorkEstimate estimate_replay(const topology::Topology& topo,
                                        const std::vector<workload::chakra::RankTrace>& traces,
                                        const ReplayOptions& o, std::uint64_t* moved) {
  using workload::chakra::NodeKind;
  scheduler::WorkEstimate e;
  e.links = topo.links().size();
  std::uint64_t bytes = 0;
  // Per (collective, group size): the closed-form bound of one collective (0 if it cannot run).
  std::map<std::pair<int, std::uint32_t>, scheduler::WorkEstimate> bounds;
  const std::uint32_t n = topo.num_npus();
  for (const auto& t : traces) {
    for (const auto& nd : t.nodes) {
      if (nd.kind == NodeKind::Send) {
        e.messages = sat_add(e.messages, 1);
        bytes = sat_add(bytes, nd.comm_size);
        continue;
      }
      if (nd.kind != NodeKind::Collective || !nd.comm_type || *nd.comm_type == 5) continue;
      collective::Collective c;
      try {
        c = workload::chakra::collective_of(nd, "");
      } catch (const core::InputError&) {
        continue;  // the replay names the node
      }
      const auto a = o.algorithms.find(c);
      if (a == o.algorithms.end()) continue;
      std::uint32_t g = n;
      if (!nd.pg_name.empty() && nd.pg_name != "0") {
        const auto it = o.groups.find(nd.pg_name);
        if (it == o.groups.end() || it->second.empty()) continue;
        g = static_cast<std::uint32_t>(it->second.size());
      }
      auto b = bounds.find({static_cast<int>(c), g});
      if (b == bounds.end()) {
        scheduler::WorkEstimate one;
        collective::Communicator comm;
        comm.npus.resize(g);
        std::iota(comm.npus.begin(), comm.npus.end(), topology::NodeId{0});
        try {
          one = scheduler::bound_work(a->second, topo, {comm}, c, o.chunks, true);
        } catch (const core::InputError&) {
          // The replay refuses it, naming the node.
        }
        e.stored_ops = sat_add(e.stored_ops, one.stored_ops);
        b = bounds.emplace(std::pair{static_cast<int>(c), g}, one).first;
      }
      e.messages = sat_add(e.messages, (b->second.messages + g - 1) / g);
      bytes = sat_add(bytes, c == collective::Collective::AllReduce && nd.comm_size <= UINT64_MAX / 2
                                 ? 2 * nd.comm_size
                                 : nd.comm_size);
    }
  }
  if (moved) *moved = bytes;
  return e;
}

}  // namespace collsim::jobs
