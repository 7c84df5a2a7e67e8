#include "cli/output.hpp"

#include <ostream>

#include "report/writers.hpp"

namespace collsim::cli {

void emit(const std::vector<report::ResultRow>& rows, const OutputOptions& opt, std::ostream& out) {
  const report::Format f = report::parse_format(opt.format, "--format");
  const std::string text = report::render(rows, f);
  if (opt.output.empty()) {
    out << text;
  } else {
    report::write_file_atomically(opt.output, text);
  }
}

}  // namespace collsim::cli
