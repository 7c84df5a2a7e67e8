#pragma once
// Parsing a YAML document with its aliases bounded (issue 52). yaml-cpp shares an anchor's node
// with every alias of it, so a 500-byte document of nested anchors ("billion laughs") parses at
// once but is a tree of 10^9 nodes to whatever walks it. The document is walked once, counting
// nodes as the readers will see them (aliases expanded), and refused past a budget no document
// without aliases can reach: max(10^5, its size in bytes) nodes (a node takes at least 2 bytes
// of text, e.g. "1," in a flow list).
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace collsim::io {

/// The node budget for a document of `bytes` bytes.
std::uint64_t yaml_node_budget(std::size_t bytes);

/// Parses `text` (read from `source`, a file name for messages). Throws core::InputError
/// "SOURCE:LINE: not valid YAML: WHY" or "SOURCE: the YAML expands to more than N nodes (its
/// aliases repeat what their anchors hold); ..."; core::Interrupted on a signal.
/// `form` names the format in the message ("YAML", "JSON or YAML").
YAML::Node load_yaml(const std::string& text, const std::string& source,
                     std::string_view form = "YAML");

}  // namespace collsim::io
