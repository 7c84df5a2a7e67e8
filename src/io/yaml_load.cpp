#include "io/yaml_load.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "core/interrupt.hpp"

namespace collsim::io {

std::uint64_t yaml_node_budget(std::size_t bytes) {
  return std::max<std::uint64_t>(100'000, bytes);
}

YAML::Node load_yaml(const std::string& text, const std::string& source, std::string_view form) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw core::InputError(
        fmt::format("{}:{}: not valid {}: {}", source, e.mark.line >= 0 ? e.mark.line + 1 : 0,
                    form, e.msg));
  }
  // Nodes are counted as they are put on the stack, so the stack never holds more than the budget.
  const std::uint64_t budget = yaml_node_budget(text.size());
  std::uint64_t seen = 1;
  std::vector<YAML::Node> stack{root};
  const auto push = [&](const YAML::Node& n) {
    if (++seen > budget) {
      throw core::InputError(fmt::format(
          "{}: the YAML expands to more than {} nodes (its aliases, *NAME, repeat what their "
          "anchors, &NAME, hold), more than a document of {} bytes can hold without them; write "
          "the repeated parts out or use fewer nested aliases",
          source, budget, text.size()));
    }
    if ((seen & 0xffff) == 0) core::check_interrupt();
    stack.push_back(n);
  };
  while (!stack.empty()) {
    const YAML::Node n = std::move(stack.back());
    stack.pop_back();
    if (n.IsSequence()) {
      for (const YAML::Node& item : n) push(item);
    } else if (n.IsMap()) {
      for (const auto& kv : n) {
        push(kv.first);
        push(kv.second);
      }
    }
  }
  return root;
}

}  // namespace collsim::io
