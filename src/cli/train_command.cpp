// `collsim train`: training iterations of a workload on a platform, one run per algorithm x
// backend x overlap policy (jobs/training.hpp).
#include <fmt/format.h>

#include <ostream>

#include "cli/backend_flags.hpp"
#include "cli/commands.hpp"
#include "cli/endpoint_flags.hpp"
#include "cli/output.hpp"
#include "cli/train_runs.hpp"
#include "compute/compute.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "topology/builders.hpp"

namespace collsim::cli {

int run_train(const TrainOptions& opt, const OutputOptions& out_opt, std::ostream& out,
              std::ostream& err) {
  report::parse_format(out_opt.format, "--format");
  const topology::Topology topo = compact_topology(opt.platform);
  const auto backends = parse_backends(opt.backend);
  const auto backend_opts = backend_options(backends, opt.backend_params);
  jobs::TrainingSpec spec;
  spec.workload = opt.workload;
  for (const std::string& a : split_commas(opt.algorithms)) {
    spec.algorithms.push_back(a == "ideal" ? collective::AlgorithmChoice{nullptr, {}, "ideal"}
                                           : collective::parse_algorithm(a, "--algorithms"));
  }
  spec.overlaps.clear();
  for (const std::string& o : split_commas(opt.overlap)) {
    spec.overlaps.push_back(jobs::parse_overlap(o, "--overlap"));
  }
  spec.order = jobs::parse_issue_order(opt.order, "--order");
  if (opt.iterations == 0) throw core::InputError("--iterations: must be >= 1, got 0");
  if (opt.chunks == 0) throw core::InputError("--chunks: must be >= 1, got 0");
  spec.iterations = opt.iterations;
  spec.chunks = opt.chunks;
  spec.astra_clock_hz = core::parse_frequency(opt.astra_clock, "--astra-clock");
  compute::make_compute_model(opt.compute, "--compute");  // refuse a bad one before loading
  if (opt.batch == 0) throw core::InputError("--batch: must be >= 1, got 0");
  if (opt.precision == 0) throw core::InputError("--precision: must be >= 1 byte, got 0");
  spec.compute = opt.compute;
  spec.batch = opt.batch;
  spec.bytes_per_element = opt.precision;
  std::optional<core::Time> max_time;
  if (!opt.max_time.empty()) {
    max_time = core::parse_time(opt.max_time, "--max-time", core::Zero::Reject);
  }
  const auto endpoints = parse_endpoints(opt.endpoint);
  const endpoint::EndpointParams ep = parse_endpoint_params(opt.endpoint_params);
  std::vector<TrainingWork> work;
  for (const endpoint::EndpointInfo* e : endpoints) {
    for (std::size_t b = 0; b < backends.size(); ++b) {
      work.push_back(TrainingWork{topo.name(), &topo, backends[b], backend_opts[b], e, ep, spec,
                                  max_time, "--workload"});
    }
  }
  return run_training_work(work, out_opt, out, err);
}

}  // namespace collsim::cli
