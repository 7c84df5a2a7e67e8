#include "jobs/collective_sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <new>

#include "collective/communicator.hpp"
#include "core/error.hpp"
#include "endpoint/endpoint.hpp"
#include "jobs/workload_runner.hpp"
#include "scheduler/hierarchical.hpp"
#include "scheduler/rotation_symmetry.hpp"

namespace collsim::jobs {
namespace {

using collective::Communicator;
using collective::Program;
using runtime::CollectiveRequest;
using scheduler::beyond;
using scheduler::bound_work;
using scheduler::check_chunks;
using scheduler::could_build;
using scheduler::kCheapBuild;
using scheduler::RunLimits;
using scheduler::check_limits;
using scheduler::CollectiveStats;
using scheduler::distinct_channels;
using scheduler::estimate_work;
using scheduler::WorkEstimate;

// What a run measured: per launch, the span from the earliest start to the latest end and the
// messages and bytes of all its programs; the network's totals.
struct Outcome {
  std::vector<CollectiveStats> launches;
  std::vector<std::vector<double>> activity;  // per launch: staged collectives' dimension activity
  // per launch: each dimension's busy intervals, from the launch's start
  std::vector<std::vector<std::vector<std::pair<core::Time, core::Time>>>> busy;
  std::vector<network::LinkStats> links;
  std::vector<std::pair<std::string, double>> backend_metrics;
  std::vector<network::Resource> resources;
  std::vector<std::vector<std::pair<std::string, double>>> endpoint;  // per launch
};

struct EndpointChoice {
  const endpoint::EndpointInfo* info;
  const endpoint::EndpointParams& params;
};

// One group per dimension may stand for all when every collective of the run is hierarchical and
// none asks for every group (groups=all).
bool symmetric(const std::vector<CollectiveRequest>& launches) {
  return std::all_of(launches.begin(), launches.end(), [](const CollectiveRequest& r) {
    return runtime::is_staged(r) &&
           !scheduler::spec_from_choice(r.algorithm, r.collective, core::Bytes{1}, 1).all_groups;
  });
}

Outcome run_together(const topology::Topology& topo, const network::BackendInfo& backend,
                     const network::BackendOptions& options, const EndpointChoice& ep,
                     const std::vector<CollectiveRequest>& launches,
                     const std::optional<core::Time>& max_time, const std::string& what,
                     RunMonitor* monitor) {
  runtime::MachineSpec spec;
  spec.topology = &topo;
  spec.backend = &backend;
  spec.backend_options = options;
  spec.endpoint = ep.info;
  spec.endpoint_params = ep.params;
  spec.group_symmetry = symmetric(launches);
  spec.rotation_symmetry = launches.size() == 1 && !runtime::is_staged(launches[0]);
  runtime::Session session(spec);
  const RunContext ctx{what, topo, session, session.sim(), session.backend()};
  if (monitor) monitor->begin_run(ctx);
  // The launches as a workload graph: one timeline starting every collective at once, each on its
  // own groups (communicators, or a hierarchical collective's dimensions), walked by the runner.
  workload::Graph g;
  g.name = what;
  g.stream("collectives", false);
  g.category("collective");
  g.programs.resize(1);
  g.programs[0].source = what;
  g.timelines.push_back({0, 0, {}});
  for (const CollectiveRequest& r : launches) {
    workload::Group gr;
    gr.name = r.label;
    gr.participants = {0};
    if (runtime::is_staged(r)) {
      gr.dims = r.dims;
    } else {
      gr.comms = r.groups.empty() ? std::vector<Communicator>{collective::whole(topo)} : r.groups;
    }
    g.groups.push_back(std::move(gr));
    g.algorithms.push_back(r.algorithm);
    workload::Node n;
    n.kind = workload::NodeKind::Collective;
    n.collective = r.collective;
    n.bytes = r.size.count;
    n.chunks = r.chunks;
    n.group = static_cast<std::uint32_t>(g.groups.size() - 1);
    n.algorithm = static_cast<std::uint32_t>(g.algorithms.size() - 1);
    if (!r.label.empty()) n.name = g.intern(r.label);
    workload::ProgramBuilder(g.programs[0]).add(n, {});
  }
  WorkloadRunOptions opt;
  opt.max_time = max_time;
  opt.checked = true;  // each request was checked when the job was prepared
  if (monitor) opt.tick = [&] { monitor->tick(ctx); };
  run_workload(session, g, opt);
  if (monitor) monitor->end_run(ctx);
  const runtime::SessionReport report = session.report();
  Outcome out;
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const runtime::LaunchStats& l = session.launch_stats(static_cast<runtime::LaunchId>(i));
    const CollectiveStats& s = l.stats;
    std::vector<double> active;
    std::vector<std::vector<std::pair<core::Time, core::Time>>> busy;
    if (runtime::is_staged(launches[i])) {
      active = scheduler::activity_share(l.activity, s.start, s.end);
      for (const scheduler::DimActivity& a : l.activity) {
        auto& b = busy.emplace_back(a.busy);
        for (auto& [from, to] : b) from = from - s.start, to = to - s.start;
      }
    }
    out.activity.push_back(std::move(active));
    out.busy.push_back(std::move(busy));
    out.launches.push_back(s);
    out.endpoint.push_back(endpoint_metrics(report.endpoint, l.stages_started, l.chunk_queuing));
  }
  out.links = report.links;
  out.backend_metrics = report.backend_metrics;
  out.resources = report.resources;
  return out;
}

core::ResourceError out_of_memory(const std::string& what) {
  return core::ResourceError(fmt::format(
      "{}: out of memory while simulating; the rows before it are kept. Use fewer NPUs, ranks or "
      "chunks, or lower --max-memory so that such runs are refused before they start",
      what));
}

CollectiveRequest request(const collective::AlgorithmChoice& choice,
                          const std::vector<Communicator>& comms, collective::Collective c,
                          core::Bytes size, std::uint32_t chunks, std::string label) {
  CollectiveRequest r;
  r.collective = c;
  r.algorithm = choice;
  r.size = size;
  r.chunks = chunks;
  r.groups = comms;
  r.label = std::move(label);
  return r;
}

jobs::ResultRow make_row(const std::string& platform, const topology::Topology& topo,
                           const std::string& backend_label, collective::Collective c,
                           const std::string& algorithm, std::uint32_t chunks, core::Bytes size,
                           const std::string& group, const std::vector<Communicator>& comms,
                           const CollectiveStats& stats) {
  jobs::ResultRow row;
  row.platform = platform;
  row.topology = topo.name();
  row.npus = topo.num_npus();
  for (const topology::Dimension& d : topo.dimensions()) row.dims.push_back(d.spec);
  row.group = group;
  row.groups = static_cast<std::uint32_t>(comms.size());
  row.ranks = comms.front().size();
  row.backend = backend_label;
  row.collective = c;
  row.algorithm = algorithm;
  row.chunks = chunks;
  row.size = size;
  row.time = stats.time();
  row.messages = stats.messages;
  row.bytes_sent = stats.bytes;
  jobs::derive_bandwidths(row);
  return row;
}

void add_network_metrics(jobs::ResultRow& row, const topology::Topology& topo, const Outcome& o,
                         core::Time span, std::uint32_t busiest, bool all_links) {
  // Link figures are of the whole network over the run's span (all its collectives).
  jobs::ResultRow tmp;
  tmp.time = span;
  jobs::fill_link_metrics(tmp, topo, o.links, busiest, o.resources,
                          all_links ? &row.links : nullptr);
  row.max_link_utilization = tmp.max_link_utilization;
  row.dim_utilization = std::move(tmp.dim_utilization);
  row.bw_utilization = tmp.bw_utilization;
  row.busiest_links = std::move(tmp.busiest_links);
  row.backend_metrics = o.backend_metrics;
}

// Ranks that exchange data with every other rank across a network of more than one hop between
// some pairs: the flow and packet backends then carry N^2 long routes at once.
constexpr std::uint64_t kSlowChannels = 100000;

// Themis Table 3 "Ideal": collective size / total bandwidth, the total being one NPU's bandwidth
// summed over every dimension (all its outgoing links).
CollectiveStats ideal_stats(const topology::Topology& topo, core::Bytes size) {
  double bw = 0;
  for (topology::LinkId l : topo.out_links(0)) bw += topo.links()[l].bandwidth.bytes_per_s;
  CollectiveStats s;
  s.end = core::transfer_time(size, core::Bandwidth{bw});
  return s;
}

}  // namespace

std::string endpoint_label(const endpoint::EndpointInfo* e, const endpoint::EndpointParams& p) {
  return endpoint::endpoint_label(e ? std::string_view(e->name) : endpoint::kDefaultEndpoint, p);
}

std::vector<std::pair<std::string, double>> endpoint_metrics(const endpoint::EndpointStats& s,
                                                             std::uint64_t stages,
                                                             core::Time chunk_queuing) {
  std::vector<std::pair<std::string, double>> m;
  const auto mean = [](core::Time t, std::uint64_t n) {
    return n ? t.ns() / static_cast<double>(n) : 0.0;
  };
  if (s.bus_transfers) {
    m.emplace_back("bus_queuing_ns", mean(s.bus_queuing, s.bus_transfers));
    m.emplace_back("bus_transfer_ns", mean(s.bus_transfer, s.bus_transfers));
  }
  if (s.reductions) m.emplace_back("local_reduction_ns", mean(s.reduction, s.reductions));
  if (stages) m.emplace_back("chunk_queuing_ns", mean(chunk_queuing, stages));
  if (s.messages) m.emplace_back("message_network_ns", mean(s.network, s.messages));
  if (s.staged) m.emplace_back("dma_transfers", static_cast<double>(s.staged));
  if (s.oversize) m.emplace_back("oversize_chunks", static_cast<double>(s.oversize));
  return m;
}

std::vector<collective::AlgorithmChoice> expand_all_algorithms(const topology::Topology& topo,
                                                               collective::Collective c,
                                                               std::uint32_t chunks,
                                                               std::vector<std::string>* skipped,
                                                               const std::string& group,
                                                               std::vector<std::string>* warnings) {
  const std::vector<Communicator> comms = collective::parse_groups(group, topo, "group");
  std::vector<collective::AlgorithmChoice> out;
  // One choice: kept if it can run here, else named in `skipped` with the reason.
  auto consider = [&](collective::AlgorithmChoice choice) {
    const collective::AlgorithmInfo& info = *choice.info;
    try {
      // A large program is not built here (that could take seconds and gigabytes): check_job
      // estimates it against the job's limits.
      if (!info.staged && could_build(info, topo, comms.front()) &&
          beyond(bound_work(choice, topo, {comms.front()}, c, 1), kCheapBuild)) {
        out.push_back(std::move(choice));
        return;
      }
      // Building on a tiny size is cheap and runs the algorithm's own applicability checks.
      // One chunk: applicability does not depend on the chunk count, and a stored program of
      // many chunks can be large (check_job estimates the real count before anything runs).
      // Staged collectives take the real chunk count (their stages are built lazily).
      if (info.staged) {
        runtime::check_request(
            topo, request(choice, {comms.front()}, c, core::Bytes{1}, chunks, ""));
        out.push_back(std::move(choice));
        return;
      }
      const Program p = collective::build_program(choice, topo, comms.front(), c, core::Bytes{1}, 1);
      if (warnings) {
        const std::uint64_t channels = distinct_channels(p) * comms.size();
        // The diameter from 4 NPUs (from every NPU it takes minutes on 10^4 switched NPUs).
        if (channels >= kSlowChannels && topo.diameter(4) > 2) {
          warnings->push_back(fmt::format(
              "{}: {} ranks each talk to {} peers ({} rank pairs) over up to {} hops on {}; the "
              "run may take minutes and gigabytes. Name the algorithms to leave it out",
              choice.label, p.num_ranks, channels / p.num_ranks / comms.size(), channels,
              topo.diameter(4), topo.name()));
        }
      }
      out.push_back(std::move(choice));
    } catch (const core::InputError& e) {
      if (skipped) skipped->push_back(choice.label + ": " + e.what());
    }
  };
  for (const collective::AlgorithmInfo& info : collective::algorithms()) {
    if (!info.supports(c) || (info.in_all != nullptr && !info.in_all(topo))) continue;
    consider(collective::make_choice(info, {}, info.name, "algorithms"));
    // Its variants ("ring:stripe=1" on an optical ring) as rows of their own.
    if (info.all_variants == nullptr) continue;
    for (const std::string& v : info.all_variants(topo)) {
      consider(collective::parse_algorithm(info.name + ":" + v, "algorithms"));
    }
  }
  return out;
}

namespace {

// A flat ring that will run as its three-rank stand-in at every size of the job
// (scheduler/rotation_symmetry.hpp): its work is 3/N of the full ring's.
bool runs_as_stand_in(const topology::Topology& topo, const CollectiveJob& job,
                      const std::vector<Communicator>& comms,
                      const collective::AlgorithmChoice& choice,
                      const network::BackendInfo* backend) {
  const bool ideal = (job.endpoint == nullptr || job.endpoint->name == endpoint::kDefaultEndpoint) &&
                     !job.endpoint_params.ideal_dma;
  if (backend == nullptr || comms.size() != 1 || !comms.front().is_default(topo.num_npus()) ||
      !scheduler::rotation_planned(choice, comms.front().size(), topo, *backend,
                                   job.backend_options, ideal) ||
      (job.endpoint != nullptr && job.endpoint->messages_independent != nullptr &&
       !job.endpoint->messages_independent(job.endpoint_params))) {
    return false;
  }
  for (core::Bytes size : job.sizes) {
    const Program p = collective::build_program(choice, topo, job.collective, size, job.chunks);
    if (!scheduler::rotation_symmetry(p, topo).holds()) return false;
  }
  return true;
}

}  // namespace

void check_job(const topology::Topology& topo, const CollectiveJob& job, const RunLimits& limits,
               const std::string& platform, const network::BackendInfo* backend,
               const network::BackendInfo* runs_on) {
  const std::vector<Communicator> comms = collective::parse_groups(job.group, topo, "group");
  for (core::Bytes size : job.sizes) check_chunks(size, comms.front().size(), job.chunks, "chunks");
  for (const collective::AlgorithmChoice& choice : job.algorithms) {
    // The estimate first: it builds one chunk, the check below every chunk.
    WorkEstimate e = estimate_work(choice, topo, comms, job.collective, job.chunks, limits);
    if (runs_as_stand_in(topo, job, comms, choice, backend)) {
      const std::uint64_t n = comms.front().size(), m = scheduler::kRotationProxyRanks;
      e.messages = (e.messages / n + 1) * m;
      e.in_flight = std::min(e.in_flight, (e.in_flight / n + 1) * m);
      e.route_links = (e.route_links / n + 1) * m;
    }
    // An engine with SRAM runs a flat collective as one run per chunk (scheduler/staging.hpp):
    // as many times the messages, at the largest size.
    if (!choice.info->staged && job.endpoint && job.endpoint->flat_chunk) {
      const std::uint64_t chunk = job.endpoint->flat_chunk(job.endpoint_params).count;
      std::uint64_t largest = 0;
      for (core::Bytes size : job.sizes) largest = std::max(largest, size.count);
      if (chunk > 0 && largest > chunk) {
        const std::uint64_t times = (largest + chunk - 1) / chunk;
        e.messages = e.messages > UINT64_MAX / times ? UINT64_MAX : e.messages * times;
        e.route_links =
            e.route_links > UINT64_MAX / times ? UINT64_MAX : e.route_links * times;
      }
    }
    const std::string what =
        fmt::format("{} {} {} in {} chunk{}", platform.empty() ? topo.name() : platform,
                    collective::to_string(job.collective), choice.label, job.chunks,
                    job.chunks == 1 ? "" : "s");
    check_limits(e, limits, what);
    if (runs_on != nullptr) scheduler::check_route_work(e, *runs_on, limits, what);
    runtime::check_request(topo, request(choice, comms, job.collective, core::Bytes{1},
                                         job.chunks, ""));
  }
}

void check_job(const topology::Topology& topo, const ConcurrentJob& job, const RunLimits& limits,
               const std::string& platform) {
  WorkEstimate all;
  for (const ConcurrentMember& m : job.members) {
    const auto comms = collective::parse_groups(m.group, topo, "group");
    check_chunks(m.size, comms.front().size(), m.chunks, "chunks");
    const WorkEstimate e = estimate_work(m.algorithm, topo, comms, m.collective, m.chunks, limits);
    all.messages += e.messages;
    all.in_flight += e.in_flight;
    all.stored_ops += e.stored_ops;
    all.links = e.links;
  }
  check_limits(all, limits,
               fmt::format("{} {}", platform.empty() ? topo.name() : platform, job.name));
  std::optional<scheduler::HierarchicalSpec> first;
  for (std::size_t i = 0; i < job.members.size(); ++i) {
    const ConcurrentMember& m = job.members[i];
    const CollectiveRequest r =
        request(m.algorithm, collective::parse_groups(m.group, topo, "group"), m.collective,
                core::Bytes{1}, m.chunks, "");
    runtime::check_request(topo, r);
    if (!runtime::is_staged(r)) continue;
    const auto s = scheduler::spec_from_choice(m.algorithm, m.collective, core::Bytes{1}, m.chunks);
    if (!first) {
      first = s;
    } else if (s.intra != first->intra || s.active_chunks != first->active_chunks) {
      throw core::InputError(fmt::format(
          "{}: member {} ({}): hierarchical collectives that run together share the dimension "
          "queues, so intra and active_chunks must agree with the first one's ({}, {})",
          job.name, i, m.algorithm.label, scheduler::to_string(first->intra),
          first->active_chunks));
    }
  }
}

std::uint64_t count_runs(const CollectiveJob& job) {
  return job.sizes.size() * job.algorithms.size();
}

std::uint64_t count_runs(const ConcurrentJob& job) {
  return job.members.size() > 1 ? job.members.size() + 1 : 1;
}

namespace {

// The run label of a collective job's rows and its endpoint label.
struct JobLabels {
  std::string backend, endpoint, run;
};

JobLabels job_labels(const network::BackendInfo& backend, const CollectiveJob& job) {
  JobLabels l;
  l.backend = network::backend_label(backend, job.backend_options);
  l.endpoint = endpoint_label(job.endpoint, job.endpoint_params);
  // The endpoint joins the run's name when it is not the default.
  l.run = l.endpoint == endpoint::kDefaultEndpoint ? l.backend : l.backend + " " + l.endpoint;
  return l;
}

}  // namespace

jobs::ResultRow run_collective_point(const std::string& platform, const topology::Topology& topo,
                                     const network::BackendInfo& backend, const CollectiveJob& job,
                                     std::size_t size_index, std::size_t algorithm_index,
                                     RunMonitor* monitor) {
  const std::vector<Communicator> comms = collective::parse_groups(job.group, topo, "group");
  const JobLabels labels = job_labels(backend, job);
  const core::Bytes size = job.sizes.at(size_index);
  const collective::AlgorithmChoice& choice = job.algorithms.at(algorithm_index);
  const std::string what =
      fmt::format("{} {} {} {}", platform, choice.label, core::to_string(size), labels.run);
  Outcome o;
  try {
    std::vector<CollectiveRequest> launch;
    launch.push_back(request(choice, comms, job.collective, size, job.chunks, choice.label));
    o = run_together(topo, backend, job.backend_options, {job.endpoint, job.endpoint_params},
                     launch, job.max_time, what, monitor);
  } catch (const std::bad_alloc&) {
    throw out_of_memory(what);
  }
  jobs::ResultRow row = make_row(platform, topo, labels.backend, job.collective, choice.label,
                                 job.chunks, size, job.group, comms, o.launches[0]);
  add_network_metrics(row, topo, o, row.time, job.busiest_links, job.all_links);
  row.endpoint = labels.endpoint;
  row.endpoint_metrics = o.endpoint[0];
  row.dim_activity = o.activity[0];
  row.dim_busy = o.busy[0];
  row.speedup = 1.0;
  return row;
}

void set_speedup(jobs::ResultRow& row, core::Time base) {
  row.speedup =
      row.time.ps > 0 ? static_cast<double>(base.ps) / static_cast<double>(row.time.ps) : 1.0;
}

std::vector<jobs::ResultRow> size_closing_rows(const std::string& platform,
                                               const topology::Topology& topo,
                                               const network::BackendInfo& backend,
                                               const CollectiveJob& job, std::size_t size_index,
                                               core::Time base) {
  const std::vector<Communicator> comms = collective::parse_groups(job.group, topo, "group");
  const JobLabels labels = job_labels(backend, job);
  const core::Bytes size = job.sizes.at(size_index);
  std::vector<jobs::ResultRow> rows;
  // Next to staged (hierarchical) collectives, Table 3's reference: every byte at the NPU's
  // total bandwidth over all dimensions.
  const bool staged = std::any_of(job.algorithms.begin(), job.algorithms.end(),
                                  [](const auto& a) { return a.info->staged; });
  if (staged) {
    jobs::ResultRow row = make_row(platform, topo, labels.backend, job.collective, "ideal",
                                   job.chunks, size, job.group, comms, ideal_stats(topo, size));
    row.endpoint = labels.endpoint;
    row.speedup = static_cast<double>(base.ps) / static_cast<double>(row.time.ps);
    rows.push_back(std::move(row));
  }
  // `-a all`: what did not run, and why, in the table itself (not on standard error only).
  for (const auto& [name, why] : job.skipped) {
    jobs::ResultRow row = make_row(platform, topo, labels.backend, job.collective, name,
                                   job.chunks, size, job.group, comms, CollectiveStats{});
    row.endpoint = labels.endpoint;
    row.skipped = why;
    row.algbw_GBps = row.busbw_GBps = 0;
    row.speedup = 0;
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<jobs::ResultRow> run_collective_job(const std::string& platform,
                                                  const topology::Topology& topo,
                                                  const network::BackendInfo& backend,
                                                  const CollectiveJob& job, RunMonitor* monitor) {
  std::vector<jobs::ResultRow> rows;
  for (std::size_t s = 0; s < job.sizes.size(); ++s) {
    const std::size_t first = rows.size();
    for (std::size_t a = 0; a < job.algorithms.size(); ++a) {
      jobs::ResultRow row = run_collective_point(platform, topo, backend, job, s, a, monitor);
      set_speedup(row, rows.size() > first ? rows[first].time : row.time);
      if (monitor) monitor->on_row(row);
      rows.push_back(std::move(row));
    }
    for (jobs::ResultRow& row :
         size_closing_rows(platform, topo, backend, job, s, rows[first].time)) {
      if (monitor) monitor->on_row(row);
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

std::vector<jobs::ResultRow> run_concurrent_job(const std::string& platform,
                                                  const topology::Topology& topo,
                                                  const network::BackendInfo& backend,
                                                  const ConcurrentJob& job, RunMonitor* monitor) {
  const std::string label = network::backend_label(backend, job.backend_options);
  std::vector<std::vector<Communicator>> comms;
  std::vector<CollectiveRequest> launches;
  for (const ConcurrentMember& m : job.members) {
    comms.push_back(collective::parse_groups(m.group, topo, "group"));
    launches.push_back(
        request(m.algorithm, comms.back(), m.collective, m.size, m.chunks,
                    fmt::format("{} {} {} on {}", collective::to_string(m.collective),
                                m.algorithm.label, core::to_string(m.size), m.group)));
  }
  const std::string ep_label = endpoint_label(job.endpoint, job.endpoint_params);
  const std::string what = fmt::format("{} {} (together) {}", platform, job.name, label);
  Outcome together;
  try {
    together = run_together(topo, backend, job.backend_options, {job.endpoint, job.endpoint_params},
                            launches, job.max_time, what, monitor);
  } catch (const std::bad_alloc&) {
    throw out_of_memory(what);
  }
  core::Time span;
  for (const CollectiveStats& s : together.launches) span = std::max(span, s.end);

  std::vector<jobs::ResultRow> rows;
  for (std::size_t i = 0; i < job.members.size(); ++i) {
    const ConcurrentMember& m = job.members[i];
    jobs::ResultRow row = make_row(platform, topo, label, m.collective, m.algorithm.label,
                                     m.chunks, m.size, m.group, comms[i], together.launches[i]);
    add_network_metrics(row, topo, together, span, job.busiest_links, job.all_links);
    row.endpoint = ep_label;
    row.endpoint_metrics = together.endpoint[i];
    row.concurrent = job.name;
    row.alone_time = row.time;
    if (job.members.size() > 1) {
      const Outcome alone = run_together(
          topo, backend, job.backend_options, {job.endpoint, job.endpoint_params}, {launches[i]},
          job.max_time, fmt::format("{} {} alone {}", platform, launches[i].label, label), monitor);
      row.alone_time = alone.launches[0].time();
    }
    row.slowdown = row.alone_time.ps > 0
                       ? static_cast<double>(row.time.ps) / static_cast<double>(row.alone_time.ps)
                       : 1.0;
    if (monitor) monitor->on_row(row);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace collsim::jobs
