#pragma once
// Failed links from text: `--fail-links` and a scenario platform's `fail_links:`
// (docs/multipath.md "Link failures").
//
//   LIST  = ITEM[,ITEM...]
//   ITEM  = NODE-NODE   both directions of the link(s) between the two nodes
//         | NODE>NODE   the one direction, from the first node to the second
//   NODE  = npuN        NPU N (node N)
//         | swN         switch N (node num_npus + N: the order `inventory` counts them in)
//         | N           node N (NPUs first, then switches)
// e.g. on fattree:8x2 (64 NPUs, leaves sw0..sw7, spines sw8..sw15): "sw0-sw8" fails leaf 0's
// link to spine 0 both ways, "sw0>sw8" only its up direction.
#include <string>
#include <string_view>
#include <vector>

#include "topology/topology.hpp"

namespace collsim::topology {

/// The directed links `text` names, ascending, each once. Throws core::InputError naming `field`
/// for a malformed item, a node out of range or two nodes with no link between them.
std::vector<LinkId> parse_failed_links(const Topology& t, std::string_view text,
                                       std::string_view field);

/// Parse `text` and fail those links (Topology::fail_links); empty text: nothing.
void apply_failed_links(Topology& t, std::string_view text, std::string_view field);

/// "npu3" or "sw5", the names parse_failed_links reads.
std::string node_name(const Topology& t, NodeId n);

}  // namespace collsim::topology
