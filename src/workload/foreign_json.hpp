#pragma once
// Chakra's JSON forms given where a workload is expected (issue 52): collsim reads Chakra
// execution traces as .et files (protobuf, one per rank: formats/chakra.hpp). Two JSON files
// people hold are not that, and are recognised by name rather than misread as an ASTRA-sim text
// workload:
//   - the JSON rendering of an .et trace that Chakra's jsonizer writes (a "workload_graph" list of
//     nodes with Id, Name, NodeType, ctrlDeps, data_deps, runtime): it keeps no collective sizes;
//   - a PyTorch host execution trace ("schema": "1.0.2-chakra.0.0.4", "nodes"): the input that
//     Chakra's converter turns into .et files.
#include <string>
#include <string_view>

namespace collsim::workload {

/// Throws core::InputError naming `field`, `path` and the form when `text` (the file's beginning
/// is enough) is one of the JSON forms above; returns otherwise.
void refuse_chakra_json(std::string_view text, const std::string& path, std::string_view field);

}  // namespace collsim::workload
