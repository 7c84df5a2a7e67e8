#include <fmt/format.h>

#include <ostream>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "cli/run_jobs.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "network/backend.hpp"
#include "report/writers.hpp"
#include "scheduler/collective_sweep.hpp"
#include "topology/builders.hpp"

namespace collsim::cli {
namespace {

std::vector<std::string> split(const std::string& list) {
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

int run_collective(const CollectiveOptions& opt, const OutputOptions& out_opt, std::ostream& out,
                   std::ostream& err) {
  report::parse_format(out_opt.format, "--format");
  const auto bw = core::parse_bandwidth(opt.link_bandwidth, "--link-bandwidth");
  const auto lat = core::parse_time(opt.link_latency, "--link-latency");
  const topology::Topology topo = topology::from_compact(opt.topology, bw, lat, "--topology");
  topology::validate(topo);
  std::vector<const network::BackendInfo*> backends;
  for (const std::string& name :
       split(opt.backend.empty() ? std::string(network::kDefaultBackend) : opt.backend)) {
    backends.push_back(&network::find_backend(name, "--backend"));
  }

  scheduler::CollectiveJob job;
  job.collective = collective::parse_collective(opt.collective, "--collective");
  job.sizes = core::parse_size_list(opt.sizes, "--sizes");
  if (opt.chunks == 0) throw core::InputError("--chunks: must be >= 1, got 0");
  job.chunks = opt.chunks;
  if (!opt.npu_injection_bandwidth.empty()) {
    job.backend_options.npu_injection_bandwidth =
        core::parse_bandwidth(opt.npu_injection_bandwidth, "--npu-injection-bandwidth");
  }
  if (!opt.npu_ejection_bandwidth.empty()) {
    job.backend_options.npu_ejection_bandwidth =
        core::parse_bandwidth(opt.npu_ejection_bandwidth, "--npu-ejection-bandwidth");
  }
  job.busiest_links = opt.busiest_links;
  network::PacketOptions& pk = job.backend_options.packet;
  pk.packet_payload_bytes = core::parse_bytes32(opt.packet_payload, "--packet-payload");
  pk.flit_bytes = core::parse_bytes32(opt.flit_size, "--flit-size");
  pk.vcs = opt.vcs;
  pk.vc_buffer_flits = opt.vc_buffer_flits;
  pk.router_pipeline_cycles = opt.router_pipeline_cycles;
  pk.nis_per_npu = opt.nis_per_npu;
  pk.message_based_flow_control = opt.message_based_flow_control;
  if (opt.switching == "wormhole") {
    pk.switching = network::Switching::Wormhole;
  } else if (opt.switching != "virtual-cut-through") {
    throw core::InputError(fmt::format(
        "--switching: must be virtual-cut-through or wormhole, got \"{}\"", opt.switching));
  }
  if (opt.injection_queue_flits > 0) pk.injection_queue_flits = opt.injection_queue_flits;
  if (opt.ejection_queue_flits > 0) pk.ejection_queue_flits = opt.ejection_queue_flits;
  if (!opt.ni_bandwidth.empty()) {
    pk.ni_bandwidth = core::parse_bandwidth(opt.ni_bandwidth, "--ni-bandwidth");
  }
  if (!opt.max_time.empty()) {
    job.max_time = core::parse_time(opt.max_time, "--max-time", core::Zero::Reject);
  }
  job.group = opt.group;
  collective::parse_groups(opt.group, topo, "--group");  // before anything runs
  if (opt.algorithms == "all") {
    std::vector<std::string> skipped, warnings;
    job.algorithms = scheduler::expand_all_algorithms(topo, job.collective, job.chunks, &skipped,
                                                      job.group, &warnings);
    if (!out_opt.quiet) {
      for (const std::string& why : skipped) err << "note: skipped " << why << '\n';
    }
    for (const std::string& w : warnings) err << "warning: " << w << '\n';
  } else {
    for (const std::string& name : split(opt.algorithms)) {
      job.algorithms.push_back(collective::parse_algorithm(name, "--algorithms"));
    }
  }
  std::vector<Work> work;
  for (const network::BackendInfo* b : backends) work.push_back(Work{topo.name(), &topo, b, job});
  return run_work(work, out_opt, out, err);
}

}  // namespace collsim::cli
