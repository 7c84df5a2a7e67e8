#include "workload/foreign_json.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace collsim::workload {

void refuse_chakra_json(std::string_view text, const std::string& path, std::string_view field) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') return;
  // The keys come first in both forms; a look at the beginning tells them apart.
  const std::string_view head = text.substr(first, 4096);
  if (head.find("\"workload_graph\"") != std::string_view::npos) {
    throw core::InputError(fmt::format(
        "{}: {} is a Chakra trace in JSON form (the \"workload_graph\" Chakra's jsonizer writes of "
        "an .et file), which keeps no collective sizes; give the .et files themselves: PREFIX of "
        "PREFIX.<rank>.et",
        field, path));
  }
  if (head.find("\"schema\"") != std::string_view::npos &&
      (head.find("chakra") != std::string_view::npos ||
       head.find("\"nodes\"") != std::string_view::npos)) {
    throw core::InputError(fmt::format(
        "{}: {} is a PyTorch execution trace (JSON, the input of Chakra's converter), not an "
        "execution trace collsim replays; convert it with chakra_converter into PREFIX.<rank>.et "
        "files and give PREFIX",
        field, path));
  }
}

}  // namespace collsim::workload
