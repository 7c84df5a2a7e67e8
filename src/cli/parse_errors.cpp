#include "cli/parse_errors.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/suggest.hpp"

namespace collsim::cli {

std::string rewrite_parse_error(const std::string& what) {
  const std::string_view w = what;
  // CLI::ConversionError: "Could not convert: --chunks = 4294967296". collsim's numeric options
  // are all unsigned 32-bit counts (commands.hpp).
  constexpr std::string_view kConvert = "Could not convert: ";
  if (w.starts_with(kConvert)) {
    const std::string_view rest = w.substr(kConvert.size());
    const auto eq = rest.find(" = ");
    if (eq != std::string_view::npos) {
      return fmt::format("{}: \"{}\" is not a whole number from 0 to {}", rest.substr(0, eq),
                         rest.substr(eq + 3), UINT32_MAX);
    }
  }
  // CLI::ArgumentMismatch::AtMost: "--sizes: At Most 1 required but received 2".
  constexpr std::string_view kAtMost = ": At Most 1 required but received ";
  if (const auto at = w.find(kAtMost); at != std::string_view::npos) {
    return fmt::format(
        "{}: given {} values; give it once (lists are one comma-separated value, e.g. "
        "1KiB,64KiB)",
        w.substr(0, at), w.substr(at + kAtMost.size()));
  }
  // CLI::ExtrasError: "The following argument was not expected: x".
  for (std::string_view extras : {"The following argument was not expected: ",
                                  "The following arguments were not expected: "}) {
    if (w.starts_with(extras)) {
      std::string_view args = w.substr(extras.size());
      while (args.starts_with(' ')) args.remove_prefix(1);
      return fmt::format(
          "unexpected argument \"{}\" (not an option of this command, or a value "
          "with spaces that needs quotes, e.g. --link-bandwidth '16 GB/s')",
          args);
    }
  }
  return what;
}

std::string unknown_option(const CLI::App& app, int argc, const char* const* argv) {
  if (argc < 2 || argv[1][0] == '-') return {};
  const CLI::App* sub = nullptr;
  std::vector<std::string_view> commands;
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (s->get_name() == argv[1]) sub = s;
    commands.push_back(s->get_name());
  }
  if (sub == nullptr) {
    // CLI11 would say only "A subcommand is required".
    const std::string hint = core::closest(argv[1], commands);
    return hint.empty()
               ? fmt::format("unknown command \"{}\" (the commands: `collsim --help`)", argv[1])
               : fmt::format("unknown command \"{}\"; did you mean `collsim {}`?", argv[1], hint);
  }
  // The subcommand's options and its own subcommands' (`validate nccl --system`).
  std::vector<std::string> names;
  std::vector<const CLI::App*> todo{sub};
  while (!todo.empty()) {
    const CLI::App* s = todo.back();
    todo.pop_back();
    for (const CLI::Option* o : s->get_options([](const CLI::Option*) { return true; })) {
      for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
    }
    for (const CLI::App* c : s->get_subcommands([](const CLI::App*) { return true; })) {
      todo.push_back(c);
    }
  }
  const std::vector<std::string_view> known(names.begin(), names.end());
  for (int i = 2; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") break;
    if (!a.starts_with("--") || a.size() == 2) continue;
    const std::string_view name = a.substr(0, a.find('='));
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    const std::string hint = core::closest(name, known);
    return hint.empty()
               ? fmt::format("unknown option {} of `collsim {}` (its options: `collsim {} --help`)",
                             name, sub->get_name(), sub->get_name())
               : fmt::format("unknown option {} of `collsim {}`; did you mean {}?", name,
                             sub->get_name(), hint);
  }
  return {};
}

}  // namespace collsim::cli
