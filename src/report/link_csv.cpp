#include "report/link_csv.hpp"

#include <fmt/format.h>

#include "collective/collective.hpp"
#include "report/writers.hpp"

namespace collsim::report {
namespace {

constexpr const char* kLinkColumns = "link,kind,src,dst,dim,bytes,busy_ns,utilization";

std::string link_fields(const jobs::LinkUse& l) {
  return fmt::format("{},{},{},{},{},{},{:.3f},{:.6f}", l.link, l.kind, l.src, l.dst, l.dim,
                     l.bytes, static_cast<double>(l.busy.ps) / 1000.0, l.utilization);
}

}  // namespace

std::string render_links_csv(const std::vector<jobs::ResultRow>& rows) {
  std::string out = fmt::format("run,platform,backend,collective,algorithm,size_bytes,{}\n",
                                kLinkColumns);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const jobs::ResultRow& r = rows[i];
    const std::string head =
        fmt::format("{},{},{},{},{},{}", i + 1, csv_field(r.platform), csv_field(r.backend),
                    collective::to_string(r.collective), csv_field(r.algorithm), r.size.count);
    for (const jobs::LinkUse& l : r.links) out += head + "," + link_fields(l) + "\n";
  }
  return out;
}

std::string render_training_links_csv(const std::vector<jobs::TrainingRow>& rows) {
  std::string out =
      fmt::format("run,workload,platform,backend,algorithm,overlap,{}\n", kLinkColumns);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const jobs::TrainingRow& r = rows[i];
    const std::string head =
        fmt::format("{},{},{},{},{},{}", i + 1, csv_field(r.workload), csv_field(r.platform),
                    csv_field(r.backend), csv_field(r.algorithm), r.overlap);
    for (const jobs::LinkUse& l : r.links) out += head + "," + link_fields(l) + "\n";
  }
  return out;
}

}  // namespace collsim::report
