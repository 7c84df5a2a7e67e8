// `collsim train`: training iterations of a workload on a platform, one run per algorithm x
// backend x overlap policy (workload/training.hpp).
#include <fmt/format.h>

#include <ostream>

#include "cli/backend_flags.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "report/training_report.hpp"
#include "topology/builders.hpp"
#include "workload/load.hpp"

namespace collsim::cli {
namespace {

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = list.find(',', start);
    out.push_back(list.substr(start, comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

}  // namespace

int run_train(const TrainOptions& opt, const OutputOptions& out_opt, std::ostream& out,
              std::ostream& err) {
  const report::Format format = report::parse_format(out_opt.format, "--format");
  const auto bw = core::parse_bandwidth(opt.link_bandwidth, "--link-bandwidth");
  const auto lat = core::parse_time(opt.link_latency, "--link-latency");
  const topology::Topology topo = topology::from_compact(opt.topology, bw, lat, "--topology");
  topology::validate(topo);
  std::vector<const network::BackendInfo*> backends;
  for (const std::string& name :
       split_list(opt.backend.empty() ? std::string(network::kDefaultBackend) : opt.backend)) {
    backends.push_back(&network::find_backend(name, "--backend"));
  }
  const auto backend_opts = backend_options(backends, opt.backend_params);
  std::vector<collective::AlgorithmChoice> algorithms;
  for (const std::string& a : split_list(opt.algorithms)) {
    algorithms.push_back(collective::parse_algorithm(a, "--algorithms"));
  }
  std::vector<workload::Overlap> overlaps;
  for (const std::string& o : split_list(opt.overlap)) {
    overlaps.push_back(workload::parse_overlap(o, "--overlap"));
  }
  const workload::IssueOrder order = workload::parse_issue_order(opt.order, "--order");
  if (opt.iterations == 0) throw core::InputError("--iterations: must be >= 1, got 0");
  if (opt.chunks == 0) throw core::InputError("--chunks: must be >= 1, got 0");
  workload::LoadOptions lo;
  lo.astra_clock_hz = core::parse_frequency(opt.astra_clock, "--astra-clock");
  const workload::Workload w = workload::load_workload(opt.workload, topo, lo, "--workload");
  workload::validate(w, topo.num_npus());

  std::vector<report::TrainingRow> rows;
  const std::size_t total = backends.size() * algorithms.size() * overlaps.size();
  for (std::size_t b = 0; b < backends.size(); ++b) {
    for (const auto& a : algorithms) {
      for (workload::Overlap ov : overlaps) {
        workload::TrainingOptions to;
        to.algorithm = a;
        to.chunks = opt.chunks;
        to.overlap = ov;
        to.order = order;
        to.iterations = opt.iterations;
        to.backend_options = backend_opts[b];
        if (!opt.max_time.empty()) {
          to.max_time = core::parse_time(opt.max_time, "--max-time", core::Zero::Reject);
        }
        if (!out_opt.quiet) {
          err << fmt::format("collsim: [{}/{}] {} on {}: {} / {} / overlap {}\n", rows.size() + 1,
                             total, w.name, topo.name(), a.label, backends[b]->name,
                             workload::to_string(ov));
        }
        report::TrainingRow row;
        row.workload = w.name;
        row.platform = topo.name();
        row.npus = topo.num_npus();
        row.backend = network::backend_label(*backends[b], backend_opts[b]);
        row.algorithm = a.label;
        row.overlap = workload::to_string(ov);
        row.order = workload::to_string(order);
        row.iterations = opt.iterations;
        row.result = workload::run_training(topo, *backends[b], w, to);
        rows.push_back(std::move(row));
      }
    }
  }
  const std::string text = report::render_training(rows, format);
  if (out_opt.output.empty()) {
    out << text;
  } else {
    report::write_file_atomically(out_opt.output, text);
  }
  return 0;
}

}  // namespace collsim::cli
