// `collsim nccl-tests X_perf ...` and `collsim validate nccl LOG...` (commands.hpp, docs/nccl.md).
#include <algorithm>
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <ostream>
#include <sstream>
#include <vector>

#include "cli/backend_flags.hpp"
#include "cli/commands.hpp"
#include "collective/nccl/model.hpp"
#include "config/scenario.hpp"
#include "core/error.hpp"
#include "core/input_file.hpp"
#include "jobs/nccl_tests.hpp"
#include "scheduler/limits.hpp"
#include "topology/gpu_systems/gpu_system.hpp"

namespace collsim::cli {

namespace nccl = collective::nccl;

namespace {

bool is_file(const std::string& name) {
  return name.find('/') != std::string::npos || name.ends_with(".yaml") || name.ends_with(".yml");
}

// A scenario platform as a GPU system: its first platform's dimension 0 (a switch: the NVLink
// domain, bandwidth per GPU) and optional dimension 1 (a switch: the NICs, one per GPU, its
// latency per network step). Scenario files have no key for in-network reduction: no NVLS.
struct FileSystem {
  std::string name, description;
  topology::GpuSystem system;
};
FileSystem system_from_file(const std::string& path) {
  const config::Scenario sc = config::load_scenario(path);
  const auto bad = [&](const std::string& why) {
    return core::InputError("--system: " + path + ": " + why +
                            " (a GPU system file needs a platform whose dims are a switch of "
                            "GPUs per node, then optionally a switch of nodes)");
  };
  if (sc.platforms.empty()) throw bad("no platform");
  const config::Platform& p = sc.platforms.front();
  const auto& dims = p.topology.dimensions();
  if (dims.empty() || dims.size() > 2) throw bad(std::to_string(dims.size()) + " dimensions");
  for (const auto& d : dims) {
    if (d.spec.kind != topology::DimKind::Switch) throw bad(d.name + " is not a switch");
  }
  FileSystem f;
  f.name = p.name.empty() ? path : p.name;
  f.description = "scenario platform " + path;
  topology::GpuSystem& s = f.system;
  s.gpus_per_node = dims[0].spec.size;
  s.gpus_per_node_source = "the scenario's dim0 size";
  const double links0 = dims[0].spec.links_per_npu ? dims[0].spec.links_per_npu : 1;
  s.nvlink_bandwidth = {dims[0].spec.bandwidth.bytes_per_s * links0, "the scenario's dim0"};
  s.nvls = {.efficiency = {0.0, "scenario files have no in-network reduction key"},
            .latency = {0.0, "no NVLS"}};
  // NCCL's view of it: a Hopper-class node whose links NCCL rates as it rates a 25 GB/s NVLink4
  // (SM90_NVLINK_BW, 20.6 of 25), InfiniBand NICs at their published efficiency, the dim1
  // latency as the network device's (the net plugin's latency property, which NCCL's tuner adds
  // to every network step); no channel counts, so no per-channel caps.
  topology::NcclView& v = s.nccl;
  v.nvlinks = static_cast<std::uint32_t>(links0);
  v.nvlink_rate = {dims[0].spec.bandwidth.bytes_per_s * 20.6 / 25.0,
                   "the scenario's dim0 link bandwidth x 20.6/25 (NCCL's SM90_NVLINK_BW of a "
                   "25 GB/s NVLink4)"};
  v.arch = topology::NcclView::Arch::Hopper;
  v.cpu = topology::NcclView::Cpu::Intel;
  v.cpu_source = "not in scenario files: NCCL's default network post overhead (1 us)";
  v.nic_efficiency = {0.94, "as the presets (NVIDIA/nccl-tests issue 290)"};
  v.channels = {0, "not in scenario files"};
  v.nvls_channels = {0, "no NVLS"};
  if (dims.size() == 2) {
    const double links1 = dims[1].spec.links_per_npu ? dims[1].spec.links_per_npu : 1;
    s.nic_bandwidth = {dims[1].spec.bandwidth.bytes_per_s * links1, "the scenario's dim1"};
    s.nic_latency = {dims[1].spec.latency.seconds(), "the scenario's dim1 latency"};
    v.net_device_latency = {dims[1].spec.latency.seconds(), "the scenario's dim1 latency"};
  } else {
    s.nic_bandwidth = {dims[0].spec.bandwidth.bytes_per_s, "no dim1: one node only"};
    s.nic_latency = {0.0, "no dim1"};
    v.net_device_latency = {0.0, "no dim1"};
  }
  return f;
}

// The preset, or the file's system (kept in `file`).
const topology::GpuSystem& system_named(const std::string& name, FileSystem& file) {
  if (!is_file(name)) return topology::find_gpu_system(name, "--system");
  file = system_from_file(name);
  file.system.name = file.name;
  file.system.description = file.description;
  file.system.gpu = "GPU";
  return file.system;
}

// The rows nccl-tests would print, counted before any is computed (`-i 1 -e 16G` is 1.7e10 of
// them), against --max-messages, and what holding them takes (about 256 B each) against
// --max-memory.
void check_rows(const jobs::NcclTestsOptions& opt, const NcclTestsCliOptions& o) {
  std::uint64_t rows = 0;
  if (opt.min_bytes > 0 && opt.max_bytes >= opt.min_bytes) {
    if (opt.factor > 1) {
      for (std::uint64_t size = opt.min_bytes; size <= opt.max_bytes; ++rows) {
        if (size > UINT64_MAX / opt.factor) {
          ++rows;
          break;
        }
        size *= opt.factor;
      }
    } else if (opt.increment > 0) {
      rows = (opt.max_bytes - opt.min_bytes) / opt.increment + 1;
    }
  }
  scheduler::check_command_work(
      rows, "rows", scheduler::kBaseBytes + 256 * rows,
      parse_limits(o.max_messages, o.max_memory),
      fmt::format("nccl-tests {} from {} B to {} B", o.binary, opt.min_bytes, opt.max_bytes));
}

}  // namespace

int run_nccl_tests_command(const NcclTestsCliOptions& o, std::ostream& out) {
  jobs::NcclTestsOptions opt;
  opt.op = nccl::parse_perf_binary(o.binary, "nccl-tests");
  opt.min_bytes = jobs::parse_nccl_size(o.min_bytes, "-b");
  opt.max_bytes = jobs::parse_nccl_size(o.max_bytes, "-e");
  opt.factor = o.factor;
  opt.increment = jobs::parse_nccl_size(o.increment, "-i");
  opt.type = o.type;
  opt.redop = o.redop;
  opt.algorithm = o.algorithm;
  opt.protocol = o.protocol;
  if (opt.protocol != "nccl") nccl::parse_protocol(opt.protocol, "--protocol");
  if (opt.algorithm != "nccl") nccl::find_algorithm(opt.algorithm, "--algorithm");
  FileSystem file;
  const topology::GpuSystem& system = system_named(o.system, file);
  if (is_file(o.system) && system.nic_latency.value == 0 && o.nodes > 1) {
    throw core::InputError("--nodes: " + o.system + " has no dim1 (nodes); use --nodes 1");
  }
  const nccl::Context ctx{system, {o.gpus, o.nodes}, {}};
  check_rows(opt, o);
  const auto rows = jobs::run_nccl_tests(opt, ctx);
  jobs::print_nccl_tests(out, opt, ctx, rows);
  return 0;
}

namespace {

// One test of a log with the system it ran on.
struct LoggedRun {
  std::string path;
  jobs::NcclLogRun run;
  FileSystem file;  // the system when --system names a file
  const topology::GpuSystem* system = nullptr;
  nccl::Shape shape;
};

std::vector<LoggedRun> read_logs(const ValidateNcclOptions& o) {
  std::vector<LoggedRun> all;
  for (const std::string& path : o.logs) {
    const auto runs = jobs::read_nccl_log(core::read_input(path, "nccl-tests log"), path);
    if (runs.empty()) throw core::InputError("LOG: '" + path + "' has no nccl-tests result");
    for (const jobs::NcclLogRun& run : runs) {
      std::string sys = o.system;
      if (sys.empty()) sys = std::string(jobs::system_for_device(run.device));
      if (sys.empty()) {
        throw core::InputError("--system: " + path + ": no preset for the device '" + run.device +
                               "'; name one with --system");
      }
      if (run.ranks == 0 || run.nodes == 0 || run.ranks % run.nodes != 0) {
        throw core::InputError("LOG: " + path +
                               ": cannot tell GPUs per node from its '#  Rank' "
                               "lines (" +
                               std::to_string(run.ranks) + " ranks)");
      }
      all.push_back({path, run, {}, nullptr, {run.ranks / run.nodes, run.nodes}});
      const topology::GpuSystem& named = system_named(sys, all.back().file);
      // A file's system lives in the run's `file`: pointed to below, once `all` stops moving.
      if (!is_file(sys)) all.back().system = &named;
    }
  }
  for (LoggedRun& r : all) {
    if (r.system == nullptr) r.system = &r.file.system;
  }
  return all;
}

// The mean and the largest |log(model / measured)| over every row of every run.
struct LogErrors {
  double mean = 0, worst = 0;  ///< |log|
  double worst_error = 0;      ///< model / measured - 1 of the worst row
  std::size_t rows = 0;
};
LogErrors log_errors(const std::vector<LoggedRun>& runs, const ValidateNcclOptions& o,
                     const nccl::Calibration& cal) {
  LogErrors e;
  double sum = 0;
  for (const LoggedRun& r : runs) {
    const nccl::Context ctx{*r.system, r.shape, cal};
    for (std::size_t i = 0; i < r.run.bytes.size(); ++i) {
      const nccl::Estimate est = nccl::estimate(
          o.algorithm, r.run.op, static_cast<double>(r.run.bytes[i]), ctx, o.protocol);
      const double ratio = est.seconds * 1e6 / r.run.time_us[i];
      const double err = std::abs(std::log(ratio));
      sum += err;
      if (err > e.worst) e.worst = err, e.worst_error = ratio - 1;
      ++e.rows;
    }
  }
  e.mean = e.rows ? sum / static_cast<double>(e.rows) : 0;
  return e;
}

// The calibration minimising the geomean |error| over every row (the mean |log|, the measure
// docs/nccl.md reports per collective): a grid of η (0.001) and α (0.5 us), searched coarse then
// fine around the coarse optimum.
int fit_calibration(const std::vector<LoggedRun>& runs, const ValidateNcclOptions& o,
                    std::ostream& out) {
  nccl::Calibration best{};
  LogErrors best_err{std::numeric_limits<double>::infinity(), 0, 0, 0};
  const auto search = [&](int e0, int e1, int e_step, int a0, int a1, int a_step) {
    for (int e = e0; e <= e1; e += e_step) {
      for (int a = a0; a <= a1; a += a_step) {  // a in 0.5 us
        const nccl::Calibration cal{e / 1000.0, a * 0.5e-6};
        const LogErrors err = log_errors(runs, o, cal);
        if (err.mean < best_err.mean) best_err = err, best = cal;
      }
    }
  };
  search(500, 1200, 10, 0, 160, 4);
  const int e = static_cast<int>(std::lround(best.efficiency * 1000));
  const int a = static_cast<int>(std::lround(best.overhead_s / 0.5e-6));
  search(std::max(500, e - 10), e + 10, 1, std::max(0, a - 4), a + 4, 1);
  char line[200];
  std::snprintf(line, sizeof line,
                "efficiency %.3f  overhead %.1f us  geomean |error| %.1f%%  worst row %+.1f%% "
                "over %zu rows\n",
                best.efficiency, best.overhead_s * 1e6, 100 * std::expm1(best_err.mean),
                100 * best_err.worst_error, best_err.rows);
  out << line;
  return 0;
}

}  // namespace

int validate_nccl_logs(const ValidateNcclOptions& o, std::ostream& out) {
  const std::vector<LoggedRun> runs = read_logs(o);
  if (o.fit) return fit_calibration(runs, o, out);
  for (const LoggedRun& lr : runs) {
    const jobs::NcclLogRun& run = lr.run;
    const topology::GpuSystem& system = *lr.system;
    const nccl::Context ctx{system, lr.shape, {}};
    const std::string_view bin = nccl::perf_binary(run.op);
    char line[256];
    out << "# " << lr.path << ": " << bin << " on " << system.name << ", " << run.nodes
        << " node(s) x " << ctx.shape.gpus << " GPUs, algorithm " << o.algorithm << ", protocol "
        << o.protocol << "\n";
    std::snprintf(line, sizeof line, "%-20s %12s %12s %12s %9s %9s  %-15s %8s\n", "#test",
                  "size(B)", "measured_us", "collsim_us", "meas_bus", "sim_bus", "algorithm",
                  "error");
    out << line;
    double log_sum = 0, worst = 0;
    std::uint64_t worst_bytes = 0;
    for (std::size_t i = 0; i < run.bytes.size(); ++i) {
      const double bytes = static_cast<double>(run.bytes[i]);
      const nccl::Estimate e = nccl::estimate(o.algorithm, run.op, bytes, ctx, o.protocol);
      const double sim_us = e.seconds * 1e6, meas_us = run.time_us[i];
      const double factor = nccl::busbw_factor(run.op, ctx.shape.ranks());
      const double err = sim_us / meas_us - 1;
      log_sum += std::abs(std::log(sim_us / meas_us));
      if (std::abs(err) >= std::abs(worst)) {
        worst = err;
        worst_bytes = run.bytes[i];
      }
      std::snprintf(
          line, sizeof line, "%-20.*s %12llu %12.2f %12.2f %9.2f %9.2f  %-15s %+7.1f%%\n",
          static_cast<int>(bin.size()), bin.data(), static_cast<unsigned long long>(run.bytes[i]),
          meas_us, sim_us, bytes / meas_us / 1e3 * factor, bytes / sim_us / 1e3 * factor,
          (std::string(e.algorithm->name) + "/" + std::string(to_string(e.protocol))).c_str(),
          100 * err);
      out << line;
    }
    const double geo = std::exp(log_sum / static_cast<double>(run.bytes.size())) - 1;
    std::snprintf(line, sizeof line,
                  "# %.*s: %zu rows, geomean |error| %.1f%%, worst %+.1f%% at %llu B\n",
                  static_cast<int>(bin.size()), bin.data(), run.bytes.size(), 100 * geo,
                  100 * worst, static_cast<unsigned long long>(worst_bytes));
    out << line;
  }
  return 0;
}

}  // namespace collsim::cli
