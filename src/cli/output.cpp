#include "cli/output.hpp"

#include <ostream>

#include "report/output_file.hpp"
#include "report/writers.hpp"

namespace collsim::cli {

std::vector<std::string> split_commas(const std::string& list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = list.find(',', start);
    out.push_back(list.substr(start, comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

void check_output_paths(const OutputOptions& opt) {
  report::check_output_path(opt.output, "--output");
  report::check_output_path(opt.trace, "--trace");
  report::check_output_path(opt.activity, "--activity");
  report::check_output_path(opt.lightpaths, "--lightpaths");
  report::check_output_path(opt.links, "--links");
  report::check_output_path(opt.packet_trace, "--packet-trace");
}

void emit(const std::vector<jobs::ResultRow>& rows, const OutputOptions& opt, std::ostream& out) {
  const report::Format f = report::parse_format(opt.format, "--format");
  const std::string text = report::render(rows, f);
  if (opt.output.empty()) {
    out << text;
  } else {
    report::write_file_atomically(opt.output, text);
  }
}

}  // namespace collsim::cli
