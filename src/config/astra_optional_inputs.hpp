#pragma once
// The two optional inputs of `collsim astra` (ASTRA-sim 2.x's flags), read unchanged:
//   --remote-memory-configuration  JSON: memory-type NO_MEMORY_EXPANSION |
//   PER_NODE_MEMORY_EXPANSION
//                                  | PER_NPU_MEMORY_EXPANSION | MEMORY_POOL; remote-mem-latency
//                                  (ns), remote-mem-bw (GB/s, read as 1e9 bytes/s as ASTRA-sim's
//                                  analytical remote memory does), num-nodes, num-npus-per-node;
//   --comm-group-configuration     JSON: {"GROUP": [NPU, ...], ...}, the NPUs of each
//                                  communicator group (pg_name) in rank order.
// Both throw core::InputError naming the file, the key and the reason.
#include <map>
#include <string>
#include <vector>

#include "topology/topology.hpp"
#include "jobs/trace_replay.hpp"

namespace collsim::config {

/// The remote memory of a platform of `npus` NPUs.
jobs::RemoteMemory read_remote_memory(const std::string& path, std::uint32_t npus);

/// Communicator groups of a platform of `npus` NPUs: at least 2 distinct NPUs each, in range.
std::map<std::string, std::vector<topology::NodeId>> read_comm_groups(const std::string& path,
                                                                      std::uint32_t npus);

}  // namespace collsim::config
