#include "jobs/training_sweep.hpp"

#include <fmt/format.h>

#include "jobs/collective_sweep.hpp"
#include "jobs/training_limits.hpp"
#include "workload/load.hpp"

namespace collsim::jobs {

namespace {

// The per-dimension utilization and busiest links of a run, as `collective` gives them; the
// per-link statistics are dropped afterwards (a large platform has many links).
void add_link_metrics(TrainingRow& row, const topology::Topology& topo, std::uint32_t busiest,
                      bool all_links) {
  ResultRow tmp;
  tmp.time = row.result.total;
  fill_link_metrics(tmp, topo, row.result.links, busiest, row.result.resources,
                    all_links ? &row.links : nullptr);
  row.dim_utilization = std::move(tmp.dim_utilization);
  row.bw_utilization = tmp.bw_utilization;
  row.max_link_utilization = tmp.max_link_utilization;
  row.busiest_links = std::move(tmp.busiest_links);
  row.result.links = {};
  row.result.resources = {};
}

TrainingOptions options_for(const TrainingWork& w, const collective::AlgorithmChoice& a,
                            Overlap ov, const TrainingSweepOptions& options) {
  TrainingOptions to;
  to.algorithm = a;
  to.per_collective = w.spec.per_collective;
  to.ideal = a.info == nullptr;
  to.chunks = w.spec.chunks;
  to.overlap = ov;
  to.order = w.spec.order;
  to.iterations = w.spec.iterations;
  to.backend_options = w.backend_options;
  to.endpoint = w.endpoint;
  to.endpoint_params = w.endpoint_params;
  to.max_time = w.max_time;
  to.timeline = options.timeline;
  return to;
}

}  // namespace

TrainingSweep prepare_training_sweep(const std::vector<TrainingWork>& work,
                                     const TrainingSweepOptions& options) {
  TrainingSweep sweep;
  for (const TrainingWork& w : work) {
    workload::LoadOptions lo;
    lo.astra_clock_hz = w.spec.astra_clock_hz;
    lo.compute = w.spec.compute;
    lo.batch = w.spec.batch;
    lo.bytes_per_element = w.spec.bytes_per_element;
    lo.chakra = w.spec.chakra;
    // Compute coupling (ACE Sec. 5): training runs with what the endpoint leaves it.
    if (w.endpoint && w.endpoint->training_share) {
      const endpoint::TrainingShare share = w.endpoint->training_share(w.endpoint_params);
      lo.compute_share = share.compute;
      lo.memory_share = share.memory;
    }
    sweep.workloads.push_back(workload::load_workload(w.spec.workload, *w.topology, lo, w.field));
    workload::validate(sweep.workloads.back(), w.topology->num_npus());
  }
  // Every run's work against the limits before any runs (the overlap does not change it).
  for (std::size_t i = 0; i < work.size(); ++i) {
    const TrainingWork& w = work[i];
    for (const auto& a : w.spec.algorithms) {
      check_training(*w.topology, *w.backend, sweep.workloads[i],
                     options_for(w, a, w.spec.overlaps.front(), options), options.limits,
                     fmt::format("{} on {}: {}", sweep.workloads[i].name, w.platform,
                                 a.info ? a.label : "ideal"));
    }
  }
  return sweep;
}

std::vector<TrainingPoint> training_points(const std::vector<TrainingWork>& work) {
  std::vector<TrainingPoint> points;
  for (std::size_t i = 0; i < work.size(); ++i) {
    for (std::size_t a = 0; a < work[i].spec.algorithms.size(); ++a) {
      for (std::size_t o = 0; o < work[i].spec.overlaps.size(); ++o) {
        points.push_back(TrainingPoint{i, a, o});
      }
    }
  }
  return points;
}

TrainingRow run_training_point(const TrainingWork& w, const workload::Workload& wl,
                               const TrainingPoint& p, const TrainingSweepOptions& options,
                               std::size_t k, std::size_t total) {
  const collective::AlgorithmChoice& a = w.spec.algorithms.at(p.algorithm);
  const Overlap ov = w.spec.overlaps.at(p.overlap);
  TrainingOptions to = options_for(w, a, ov, options);
  const std::string what = fmt::format("{} on {}: {}", wl.name, w.platform, a.label);
  if (options.on_start) {
    options.on_start(k, total,
                     fmt::format("{} on {}: {} / {}{} / overlap {}", wl.name, w.platform, a.label,
                                 w.backend->name,
                                 w.endpoint ? " / " + w.endpoint->name : std::string(),
                                 to_string(ov)),
                     what);
  }
  if (options.on_progress) {
    to.progress = [&options, &what](core::Time t, std::uint64_t events) {
      options.on_progress(what, t, events);
    };
  }
  TrainingRow row;
  row.workload = wl.name;
  row.platform = w.platform;
  row.npus = w.topology->num_npus();
  for (const topology::Dimension& d : w.topology->dimensions()) row.dims.push_back(d.spec);
  row.backend = network::backend_label(*w.backend, w.backend_options);
  row.endpoint = endpoint_label(w.endpoint, w.endpoint_params);
  row.algorithm = a.label;
  row.overlap = to_string(ov);
  row.order = to_string(w.spec.order);
  row.iterations = w.spec.iterations;
  row.result = run_training(*w.topology, *w.backend, wl, to);
  add_link_metrics(row, *w.topology, options.busiest_links, options.all_links);
  return row;
}

TrainingSweep run_training_sweep(const std::vector<TrainingWork>& work,
                                 const TrainingSweepOptions& options) {
  TrainingSweep sweep = prepare_training_sweep(work, options);
  const std::vector<TrainingPoint> points = training_points(work);
  for (std::size_t k = 0; k < points.size(); ++k) {
    const TrainingPoint& p = points[k];
    TrainingRow row = run_training_point(work[p.work], sweep.workloads[p.work], p, options, k + 1,
                                         points.size());
    if (options.on_row) options.on_row(row);
    sweep.rows.push_back(std::move(row));
    sweep.row_workload.push_back(p.work);
  }
  return sweep;
}

}  // namespace collsim::jobs
