#pragma once
// The subcommands of the collsim command line. Each returns the process exit status and writes
// results to `out`; errors a user can cause are thrown as core::InputError (main prints them and
// exits 2).
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace collsim::cli {

struct OutputOptions {
  std::string format = "table";  ///< table, csv, json
  std::string output;            ///< file path; empty for standard output
  std::string trace;             ///< Chrome/Perfetto trace file; empty for none
  std::string activity;          ///< per-dimension activity time-series CSV; empty for none
  std::string lightpaths;        ///< optical backend: every lightpath, CSV; empty for none
  std::string links;             ///< every link's use per run, CSV; empty for none
  std::string packet_trace;      ///< packet backend: every allocation event, CSV; empty for none
  std::string export_chakra;     ///< train, llm, run: the workload as Chakra traces (PREFIX)
  std::string activity_window = "100 us";  ///< its window (Themis Fig. 9)
  bool quiet = false;                      ///< no progress line, no notes
  bool progress = false;   ///< a progress line even when standard error is not a terminal
  bool no_layers = false;  ///< training tables: totals only, no per-layer lines
  /// Resource limits of `run` and `collective` (scheduler/limits.hpp); empty: the defaults.
  std::string max_messages;
  std::string max_memory;
  /// `run`, `collective` and `train`: independent points on this many threads
  /// (jobs/sweep.hpp); 0: the number of cores.
  std::uint32_t jobs = 0;
  /// `run`, `collective` and `train`: "I/N" runs the I-th of N slices (jobs/shard.hpp); empty: all.
  std::string shard;
};

/// `collsim run SCENARIO.yaml`
int run_scenario(const std::string& path, const OutputOptions& out_opt, std::ostream& out,
                 std::ostream& err);

/// The platform flags of `collective` and `train`: a compact topology and what its links take.
struct TopologyFlags {
  std::string topology;
  std::string link_bandwidth = "16 GB/s";  // MultiTree Table III
  std::string link_latency = "150 ns";     // MultiTree Table III
  std::string ring_tie = "parity";         ///< topology::RingTie
  std::string local_switch = "distance";   ///< topology::LocalSwitchRule
  bool links_given = false;          ///< --link-bandwidth or --link-latency was on the command line
  std::string wavelengths;           ///< optical rings; empty: topology::OpticalSpec{}
  std::string wavelength_bandwidth;  ///< optical rings; empty: topology::OpticalSpec{}
  std::string npu_link_bandwidth;    ///< switched networks; empty: the link bandwidth
  std::string npu_link_latency;      ///< switched networks; empty: the link latency
  std::string fail_links;  ///< graph topologies: failed links (topology/link_failures.hpp)
};

struct CollectiveOptions {
  TopologyFlags platform;
  std::string collective = "all-reduce";
  std::string algorithms = "all";
  std::string sizes = "32KiB:64MiB";  // MultiTree Sec. V-B sweep
  std::uint32_t chunks = 1;
  std::string group = "all";       ///< communicators (collective/communicator.hpp forms)
  std::string backend;             ///< empty: network::kDefaultBackend
  std::string endpoint = "none";  ///< endpoint model(s), comma-separated (endpoint_flags.hpp)
  std::vector<std::string> endpoint_params;  ///< KEY=VALUE each
  std::uint32_t busiest_links = 3;
  /// Backend parameters as given (key -> text), from the schemas (cli/backend_flags.hpp).
  std::map<std::string, std::string> backend_params;
  std::string max_time;
};
/// `collsim collective --topology ...`
int run_collective(const CollectiveOptions& opt, const OutputOptions& out_opt, std::ostream& out,
                   std::ostream& err);

struct TrainOptions {
  std::string workload;  ///< a workload file or a model-zoo name (workload/load.hpp)
  TopologyFlags platform;
  std::string algorithms = "ring";
  std::uint32_t chunks = 1;
  std::string overlap = "layer";  ///< comma-separated: none, layer
  std::string order = "fifo";
  std::uint32_t iterations = 1;
  std::string backend;  ///< empty: network::kDefaultBackend
  std::string endpoint = "none";
  std::vector<std::string> endpoint_params;
  std::map<std::string, std::string> backend_params;
  std::string astra_clock = "1 GHz";  ///< ASTRA-sim text workloads: cycles of this clock
  std::string compute = "systolic";   ///< zoo models: compute::make_compute_model text
  std::uint32_t batch = 16;           ///< zoo models: samples per NPU
  std::uint32_t precision = 4;        ///< zoo models: bytes per gradient element
  std::string max_time;
};
/// `collsim train --workload ... --topology ...`
int run_train(const TrainOptions& opt, const OutputOptions& out_opt, std::ostream& out,
              std::ostream& err);

/// The whole command line: `argv` as main() gets it (argv[0] the program name); writes what the
/// binary would to `out` and `err` and returns its exit status (see app.cpp).
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

struct AstraOptions {
  std::string workload;  ///< --workload-configuration: Chakra PREFIX or an ASTRA-sim 1.0 text file
  std::string system;    ///< --system-configuration: ASTRA-sim system JSON
  std::string network;   ///< --network-configuration: analytical network YAML
  std::string remote_memory;    ///< --remote-memory-configuration: serves memory nodes
  std::string comm_group;       ///< --comm-group-configuration: communicator groups by pg_name
  bool replay = false;          ///< replay every Chakra trace rank by rank (jobs/trace_replay.hpp)
  bool concurrent = false;      ///< replay: no limit on a rank's collectives and sends in flight
  bool data_deps_only = false;  ///< replay: ignore ctrl_deps
  bool si_gigabytes = false;    ///< network "GB/s" as 1e9 bytes/s instead of ASTRA-sim's 2^30
  std::string backend = "analytical";  ///< comma-separated: one run per backend
  std::string max_time;
  /// ASTRA-sim compatibility mode (docs/astra.md), on unless --no-astra-compat.
  bool compat = true;
  bool astra_stats = false;  ///< also ASTRA-sim's `sys[i], Wall time` / `Comm time` lines
  // ASTRA-sim's own command-line flags, accepted so that its wrapper scripts run (each noted).
  std::string logging_configuration;
  std::string logging_folder;
  double comm_scale = 1;       ///< 1.0 text workloads: scales collective sizes (refused != 1)
  double injection_scale = 1;  ///< multiplies endpoint-delay, as ASTRA-sim's Sys does
  int num_queues_per_dim = 1;
  bool rendezvous = false;
  /// Chakra traces: replay N ranks as scale x N (jobs/trace_scale.hpp); 1: as they are.
  std::uint32_t scale = 1;
  std::string widen;  ///< with scale: comma-separated groups widened over the clones
};
/// `collsim astra`: ASTRA-sim 2.x's three input files, read unchanged (config/astra_config.hpp);
/// prints ASTRA-sim's per-rank lines, then collsim's training report.
int run_astra(const AstraOptions& opt, const OutputOptions& out_opt, std::ostream& out,
              std::ostream& err);

struct PlotOptions {
  std::string csv;     ///< results CSV(s) of collsim, comma-separated
  std::string trace;   ///< or a `--trace` JSON: the timeline of one of its runs
  int run = 1;         ///< with trace: the run drawn (1-based)
  std::string output;  ///< the PNG to write
  std::string title;
  std::string max_messages;  ///< lines of input at most; empty: scheduler::RunLimits{}
  std::string max_memory;    ///< the plotting process's estimated memory at most
};
/// `collsim plot RESULTS.csv -o FIG.png`: the standard figure of the CSV (python/collsim/plot.py
/// `auto`); with `trace`, run `run`'s timeline (python/collsim/timeline.py). Throws
/// core::InputError for neither or both inputs or a missing file; otherwise returns the plotting
/// process's exit status (2: bad input, named on standard error).
int plot_results(const PlotOptions& opt, std::ostream& err);

/// `collsim help NAME`: what `collsim list` says about NAME (a topology, dimension kind,
/// algorithm, backend, endpoint, endpoint parameter or model), every entry of that name.
/// Throws core::InputError listing the names for an unknown one.
int help_for(const std::string& name, std::ostream& out);

/// `collsim merge SHARD.csv...`: the shards of a --shard sweep as one CSV (jobs/shard.hpp), to
/// `output` (atomically) or `out`.
int merge_results(const std::vector<std::string>& files, const std::string& output,
                  std::ostream& out);

/// `collsim list`: every topology, algorithm (with parameters), collective and backend.
int list_everything(std::ostream& out);

struct VerifyOptions {
  std::string topology;
  std::string algorithm;
  std::string collective = "all-reduce";
  std::uint32_t chunks = 1;
  std::string group = "all";
  std::string max_messages;  ///< empty: scheduler::RunLimits{}
  std::string max_memory;
};
struct MultiTreeOptions {
  std::string topology;
  std::string mode = "reference";
  std::uint32_t kary = 5;
  std::string format = "table";
  bool check = false;
  /// Table format: the NPU whose tree and schedule table to show; unset: every NPU up to
  /// kMultiTreeTableNpus, NPU 0 beyond (the tables are N^2 lines: 120 MB at 1024 NPUs).
  std::optional<std::uint32_t> npu;
  std::string max_messages;  ///< tree edges; empty: scheduler::RunLimits{}
  std::string max_memory;
};
inline constexpr std::uint32_t kMultiTreeTableNpus = 64;
/// `collsim multitree`: T, the trees and the per-NPU schedule tables; 1 if the check fails.
int show_multitree(const MultiTreeOptions& opt, std::ostream& out);

struct LlmOptions {
  std::vector<std::string> configs;  ///< LLM config files (workload/llm_config.hpp), one run each
  bool strict_memory = false;        ///< exit 2 when the memory per GPU exceeds the GPU's
  bool breakdown = false;            ///< print compute per kernel class per stage instead
  bool search = false;               ///< rank the splits of each config's job (jobs/llm_search.hpp)
  bool exhaustive = false;           ///< --search: simulate every split that fits
  std::uint32_t top = 10;            ///< --search: configurations printed
};
/// `collsim llm CONFIG.yaml ...`: one LLM training iteration per config (docs/llm.md).
int run_llm(const LlmOptions& opt, const OutputOptions& out_opt, std::ostream& out,
            std::ostream& err);

/// `collsim verify`: 0 when the verifier accepts the program, 1 with the reason when not.
int verify_algorithm(const VerifyOptions& opt, std::ostream& out);
/// `collsim inventory`: the switches, ports, links and bandwidth of each dimension.
/// `collsim inventory`: `max_messages` / `max_memory` as --max-messages (directed links) and
/// --max-memory (the topology: 40 B per directed link) give them; empty: the defaults.
int show_inventory(const TopologyFlags& flags, const std::string& max_messages,
                   const std::string& max_memory, std::ostream& out);


/// `collsim nccl-tests X_perf`: nccl-tests' options (docs/nccl.md).
struct NcclTestsCliOptions {
  std::string binary;              ///< all_reduce_perf, ...
  std::string min_bytes = "32M";   ///< -b
  std::string max_bytes = "32M";   ///< -e
  std::uint64_t factor = 1;        ///< -f (nccl-tests' default 1: step by -i)
  std::string increment = "1M";    ///< -i (nccl-tests' default)
  std::uint32_t gpus = 8;          ///< -g: GPUs per node
  std::uint32_t nodes = 1;         ///< --nodes
  std::string system = "h100";     ///< --system
  std::string type = "float";      ///< -d
  std::string redop = "sum";       ///< -o
  std::string algorithm = "nccl";  ///< --algorithm
  std::string protocol = "nccl";   ///< --protocol
  std::string max_messages;        ///< rows (sizes) at most; empty: scheduler::RunLimits{}
  std::string max_memory;
};
int run_nccl_tests_command(const NcclTestsCliOptions& opt, std::ostream& out);

/// `collsim validate nccl LOG...`
struct ValidateNcclOptions {
  std::vector<std::string> logs;
  std::string system;              ///< empty: from the log's device name
  std::string algorithm = "nccl";
  std::string protocol = "nccl";
  bool fit = false;                ///< --fit: fit η and α to the logs instead (docs/nccl.md)
};
int validate_nccl_logs(const ValidateNcclOptions& opt, std::ostream& out);

}  // namespace collsim::cli
