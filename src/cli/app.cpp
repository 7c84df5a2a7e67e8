// collsim command line (run_cli: the binary's main and the Python package call it). Exit status: 0
// success; 1 a verification failed or an internal error; 2 bad input (unknown name, bad unit,
// impossible combination, unreadable file); 3 the simulation could not finish (deadlock or time
// bound); 130 / 143 stopped by Ctrl-C / SIGTERM (128 + the signal, cli/interrupt.hpp).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <iostream>
#include <string>

#include "cli/backend_flags.hpp"
#include "cli/commands.hpp"
#include "cli/endpoint_flags.hpp"
#include "cli/output.hpp"
#include "cli/parse_errors.hpp"
#include "cli/rank_shard.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"

namespace {

void add_output_options(CLI::App* cmd, collsim::cli::OutputOptions& o) {
  cmd->add_option("--format", o.format, "table (for people), csv or json (units in column names)")
      ->capture_default_str();
  cmd->add_option("--output,-o", o.output,
                  "write results to FILE instead of standard output (all or nothing; CSV rows "
                  "go to FILE.partial as runs finish)");
  cmd->add_option("--trace", o.trace,
                  "write a timeline of every run to FILE.json (Chrome trace-event format: open "
                  "it in ui.perfetto.dev or chrome://tracing); best with one size and algorithm");
  cmd->add_option("--activity", o.activity,
                  "hierarchical collectives: write each dimension's activity over time to "
                  "FILE.csv (the share of every window in which the dimension ran a chunk-stage, "
                  "Themis Fig. 9; all or nothing)");
  cmd->add_option("--activity-window", o.activity_window,
                  "the window of --activity, e.g. 100 us (Themis Fig. 9)")
      ->capture_default_str();
  cmd->add_option("--lightpaths", o.lightpaths,
                  "optical backend: write every lightpath (nodes, direction, hops, wavelength, "
                  "requested, begin and end time) to FILE.csv (all or nothing)");
  cmd->add_option("--links", o.links,
                  "write every link's bytes, busy time and utilization in every run to FILE.csv "
                  "(the figures behind the per-dimension utilization and busiest links; all or "
                  "nothing)");
  cmd->add_option("--packet-trace", o.packet_trace,
                  "packet backend: write every packet request, grant (with its VC) and credit "
                  "return to FILE.csv, for small runs (at most 1e6 events; all or nothing)");
  cmd->add_flag("--quiet,-q", o.quiet, "no progress line and no notes on standard error");
  cmd->add_flag("--progress", o.progress,
                "show the progress line even when standard error is not a terminal");
}

// `train`, `llm` and `run`: the simulated workload graph as Chakra traces (cli/export_chakra.hpp).
void add_export_option(CLI::App* cmd, collsim::cli::OutputOptions& o) {
  cmd->add_option("--export-chakra", o.export_chakra,
                  "write the workload graph the run simulated as Chakra execution traces "
                  "PREFIX.<rank>.et, one per NPU (and PREFIX.comm_groups.json), creating PREFIX's "
                  "folder; `collsim train --workload PREFIX` or ASTRA-sim runs them (one run "
                  "only; llm simulates every rank for it)");
}

// `run`, `collective` and `train`: the independent points on threads (jobs/sweep.hpp).
void add_jobs_option(CLI::App* cmd, collsim::cli::OutputOptions& o) {
  cmd->add_option("--jobs,-j", o.jobs,
                  "run N points (algorithm x size x backend runs) at once on N threads, "
                  "costliest first; rows in input order, the same bytes as --jobs 1 "
                  "(0, the default: the number of cores; --trace and --lightpaths run one at a "
                  "time)");
  cmd->add_option("--shard", o.shard,
                  "run only slice I of N (0 <= I < N; e.g. "
                  "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT) and write its CSV rows for "
                  "`collsim merge` (needs --format csv; docs/parallel.md)");
}

}  // namespace

namespace collsim::cli {

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{
      "collsim: simulate collective communication algorithms on interconnect topologies for\n"
      "distributed deep-learning training. Compare algorithms side by side (time, algbw, busbw).\n"
      "Examples:\n"
      "  collsim run examples/default.yaml\n"
      "  collsim collective --topology torus:8x8 --link-bandwidth '16 GB/s' --link-latency "
      "'150 ns' \\\n"
      "      --collective all-reduce --algorithms ring,halving-doubling,direct --sizes "
      "32KiB:64MiB\n"
      "  collsim train --workload examples/training/toy.yaml --topology torus:4x4 -a ring,direct\n"
      "  collsim list",
      "collsim"};
  app.set_version_flag("--version", std::string("collsim ") + COLLSIM_VERSION,
                       "print the version and exit");
  app.require_subcommand(1);

  cli::OutputOptions out_opt;

  std::string scenario;
  auto* run = app.add_subcommand("run", "run a scenario file (YAML): platforms x jobs");
  run->add_option("SCENARIO", scenario, "scenario file, e.g. examples/default.yaml")->required();
  add_output_options(run, out_opt);
  add_export_option(run, out_opt);
  add_jobs_option(run, out_opt);
  cli::add_limit_options(*run, out_opt.max_messages, out_opt.max_memory);
  run->add_flag("--no-layers", out_opt.no_layers,
                "training jobs' table: the totals and the summary only, no per-layer lines");

  cli::CollectiveOptions co;
  auto* coll = app.add_subcommand("collective", "sweep one collective over sizes and algorithms");
  cli::add_topology_options(*coll, co.platform);
  coll->add_option("--collective,-c", co.collective,
                   "all-reduce, reduce-scatter, all-gather, all-to-all")
      ->capture_default_str();
  coll->add_option("--algorithms,-a", co.algorithms,
                   "comma-separated (first is the speedup baseline), or all; e.g. "
                   "ring,ring:directions=2,halving-doubling,direct; nvls (in-network reduction: "
                   "--topology nvswitch:N, flow or analytical backend), nvls-tree (across "
                   "nodes: --topology railfat:NxG:reduce=system), pat")
      ->capture_default_str();
  coll->add_option("--sizes,-s", co.sizes,
                   "collective sizes: a list 1MiB,64MiB or a doubling range 32KiB:64MiB")
      ->capture_default_str();
  coll->add_option("--chunks", co.chunks, "split each collective into C pipelined chunks")
      ->capture_default_str();
  coll->add_option("--group,-g", co.group,
                   "the communicators: all (every NPU); dim:K (every group of dimension K at once, "
                   "K = 0 innermost: the X rings of a torus for dim:0); npus:0,4,8,12 or "
                   "npus:0-3;4-7 (explicit NPUs in rank order, ';' between communicators)")
      ->capture_default_str();
  coll->add_option("--backend,-b", co.backend, cli::backend_help());
  coll->add_option("--busiest-links", co.busiest_links,
                   "report this many of the busiest links per run, most utilized first (0: none)")
      ->capture_default_str();
  cli::add_backend_options(*coll, co.backend_params);  // one per backend parameter
  cli::add_endpoint_options(*coll, co.endpoint, co.endpoint_params);
  coll->add_option("--max-time", co.max_time,
                   "stop a run that has not finished after this much simulated time, e.g. 10 s");
  add_output_options(coll, out_opt);
  add_jobs_option(coll, out_opt);
  cli::add_limit_options(*coll, out_opt.max_messages, out_opt.max_memory);

  auto* list = app.add_subcommand("list", "list topologies, collectives, algorithms, backends");

  cli::MultiTreeOptions mo;
  auto* mtree = app.add_subcommand(
      "multitree", "show MultiTree's trees, time steps and schedule tables (MultiTree Fig. 3, 5)");
  mtree->add_option("--topology,-t", mo.topology, "a direct network, e.g. torus:4x4")->required();
  mtree->add_option("--mode", mo.mode, "reference (the authors' simulator) or paper (Algorithm 1)")
      ->capture_default_str();
  mtree->add_option("--kary", mo.kary, "tree edges an NPU sends and receives per step, plus one")
      ->capture_default_str();
  mtree->add_option("--format", mo.format, "table or json")->capture_default_str();
  mtree->add_flag("--check", mo.check,
                  "only prove that no directed link carries two tree edges in one time step");
  mtree->add_option("--npu", mo.npu,
                    fmt::format("table: show only this NPU's tree and schedule table (default: "
                                "every NPU up to {}, NPU 0 beyond; --format json has all)",
                                cli::kMultiTreeTableNpus));
  cli::add_limit_options(*mtree, mo.max_messages, mo.max_memory,
                         "tree edges (2 N (N-1), the messages of one all-reduce)");

  cli::VerifyOptions vo;
  auto* verify = app.add_subcommand(
      "verify", "check an algorithm's program with the symbolic verifier; say why it fails");
  verify->add_option("--topology,-t", vo.topology, "as for `collective`")->required();
  verify->add_option("--algorithm,-a", vo.algorithm, "one algorithm, e.g. ring:directions=2")
      ->required();
  verify->add_option("--collective,-c", vo.collective, "collective")->capture_default_str();
  verify->add_option("--chunks", vo.chunks, "pipelined chunks")->capture_default_str();
  verify
      ->add_option("--group,-g", vo.group,
                   "verify on each communicator of the group (forms as for `collective`)")
      ->capture_default_str();
  cli::add_limit_options(*verify, vo.max_messages, vo.max_memory);

  cli::TopologyFlags inv;
  auto* inventory = app.add_subcommand(
      "inventory",
      "the hardware of a topology per dimension: groups, switches, switch ports, links, "
      "bandwidth per NPU and in total (what a power or cost model starts from)");
  cli::add_topology_options(*inventory, inv);
  std::string inv_max_messages, inv_max_memory;
  cli::add_limit_options(*inventory, inv_max_messages, inv_max_memory, "directed links");

  cli::TrainOptions tr;
  auto* train = app.add_subcommand(
      "train",
      "run training iterations of a workload: compute, communication, exposed communication per "
      "layer and in total, for each algorithm x backend x overlap policy");
  train
      ->add_option("--workload,-w", tr.workload,
                   "a model of the zoo (alexnet, resnet50, vgg16, ...: `collsim list`), trained "
                   "data parallel; or a workload file: .yaml (collsim's layer list: per-layer "
                   "compute times and collectives) or an ASTRA-sim text workload (DATA, MODEL, "
                   "HYBRID_*, MICRO); or a Chakra execution trace: PREFIX of PREFIX.<rank>.et "
                   "files (ASTRA-sim 2.x's workload-configuration), one file per NPU or rank 0's "
                   "for all")
      ->required();
  cli::add_topology_options(*train, tr.platform);
  train
      ->add_option(
          "--algorithms,-a", tr.algorithms,
          "collective algorithms to compare, comma-separated (first is the speedup "
          "baseline), e.g. ring,direct or hierarchical:schedule=themis:intra=scf; ideal: every "
          "collective at 100% bandwidth utilization (Themis Table 3)")
      ->capture_default_str();
  train
      ->add_option("--chunks", tr.chunks,
                   "chunks per collective (hierarchical collectives: Themis uses 64)")
      ->capture_default_str();
  train
      ->add_option("--overlap", tr.overlap,
                   "layer (each weight-gradient collective as soon as its gradient is computed, "
                   "MultiTree Fig. 11b) or none (all after back-propagation, Fig. 11a); both: "
                   "none,layer")
      ->capture_default_str();
  train
      ->add_option("--order", tr.order,
                   "which waiting collective of a communicator runs next: fifo (issue order) or "
                   "lifo (the latest first: the first layers' gradients, as ACE does)")
      ->capture_default_str();
  train->add_option("--iterations", tr.iterations, "training iterations")->capture_default_str();
  train->add_option("--backend,-b", tr.backend, cli::backend_help());
  cli::add_backend_options(*train, tr.backend_params);
  cli::add_endpoint_options(*train, tr.endpoint, tr.endpoint_params);
  cli::add_limit_options(*train, out_opt.max_messages, out_opt.max_memory);
  train->add_option("--batch", tr.batch, "zoo models: samples per NPU (MultiTree: 16)")
      ->capture_default_str();
  train
      ->add_option("--compute", tr.compute,
                   "zoo models: systolic[:rows=R,cols=C,arrays=A,clock=F] (default MultiTree's "
                   "16 x 32x32 at 1 GHz) or roofline[:peak=TFLOPS,memory=BW] (default A100 FP16)")
      ->capture_default_str();
  train
      ->add_option("--precision", tr.precision,
                   "zoo models: bytes per gradient element (MultiTree: 4; Themis: 2)")
      ->capture_default_str();
  train
      ->add_option("--astra-clock", tr.astra_clock,
                   "ASTRA-sim text workloads give compute in cycles of this clock")
      ->capture_default_str();
  train->add_option("--max-time", tr.max_time,
                    "stop a run that has not finished after this much simulated time");
  add_output_options(train, out_opt);
  add_export_option(train, out_opt);
  add_jobs_option(train, out_opt);
  train->add_flag("--no-layers", out_opt.no_layers,
                  "table: the totals and the summary only, no per-layer lines");

  cli::PlotOptions po;
  auto* plot = app.add_subcommand(
      "plot",
      "draw the standard figure of a results CSV (collective: algbw against size per algorithm; "
      "training: compute and exposed communication per run), or with --trace a run's timeline, "
      "offline, with matplotlib");
  plot->add_option("csv", po.csv, "results CSV(s) from --format csv, comma-separated");
  plot->add_option("--trace", po.trace,
                   "instead of a CSV: a --trace FILE.json; draws one run's timeline (a lane per "
                   "NPU and collective: sends above, receives below; the dimensions' busy share "
                   "under them), for when Perfetto is not at hand");
  plot->add_option("--run", po.run, "with --trace: the run to draw (runs are numbered from 1)")
      ->capture_default_str();
  plot->add_option("--output,-o", po.output, "the PNG to write")->required();
  plot->add_option("--title", po.title, "the figure's title");
  cli::add_limit_options(*plot, po.max_messages, po.max_memory, "lines of input (points)");

  std::string help_name;
  auto* help = app.add_subcommand(
      "help",
      "what one topology, dimension kind, algorithm, backend, endpoint or model takes: "
      "parameters with types, units, defaults, ranges and their paper sources");
  help->add_option("name", help_name, "e.g. torus, hierarchical, flow, ace, resnet50")->required();

  std::vector<std::string> merge_files;
  std::string merge_output;
  auto* merge = app.add_subcommand(
      "merge",
      "put the CSV files of a sweep run with --shard I/N back together: the bytes of the "
      "same run without --shard (docs/parallel.md)");
  merge->add_option("SHARDS", merge_files, "every shard's CSV file, in any order")->required();
  merge->add_option("--output,-o", merge_output,
                    "write the CSV to FILE instead of standard output (all or nothing)");

  cli::AstraOptions ao;
  auto* astra = app.add_subcommand(
      "astra",
      "run ASTRA-sim 2.x's inputs unchanged: a Chakra trace (or an ASTRA-sim 1.0 text workload), "
      "its system JSON and its analytical network YAML; prints ASTRA-sim's per-rank lines, then "
      "collsim's report (docs/astra.md)");
  astra
      ->add_option("--workload-configuration", ao.workload,
                   "PREFIX of PREFIX.<rank>.et Chakra traces, or an ASTRA-sim 1.0 text workload")
      ->required();
  astra
      ->add_option("--system-configuration", ao.system,
                   "system JSON (scheduling-policy, *-implementation, preferred-dataset-splits, "
                   "active-chunks-per-dimension, endpoint-delay, ...; every key honoured or "
                   "refused)")
      ->required();
  astra
      ->add_option("--network-configuration", ao.network,
                   "analytical network YAML: topology (Ring, FullyConnected, Switch), npus_count, "
                   "bandwidth (GB/s), latency (ns) per dimension")
      ->required();
  astra->add_option("--remote-memory-configuration", ao.remote_memory,
                    "remote memory JSON (memory-type NO_MEMORY_EXPANSION, PER_NODE_ or "
                    "PER_NPU_MEMORY_EXPANSION, MEMORY_POOL; remote-mem-latency ns, remote-mem-bw "
                    "GB/s): serves the trace's memory nodes");
  astra->add_option("--comm-group-configuration", ao.comm_group,
                    "communicator groups JSON {\"GROUP\": [NPU, ...]}: the NPUs of each pg_name");
  astra->add_flag("--replay", ao.replay,
                  "replay the Chakra trace node by node on every rank (default: only traces with "
                  "send / recv or memory nodes, communicator groups, broadcasts or ranks whose "
                  "graphs differ; the others run as a training iteration)");
  astra->add_flag("--data-deps-only", ao.data_deps_only,
                  "replay: follow data dependencies only, ignoring ctrl_deps (for traces whose "
                  "control edges form cycles)");
  astra->add_flag("--concurrent-comm", ao.concurrent,
                  "replay: a rank runs any number of collectives and sends at once (default: "
                  "one at a time, as ASTRA-sim)");
  astra->add_flag("--si-gigabytes", ao.si_gigabytes,
                  "read the network's bandwidth \"GB/s\" as 1e9 bytes/s (default: 2^30 bytes/s, "
                  "GiB/s, as ASTRA-sim's analytical network converts it; 100 GB/s is then 7.4% "
                  "more bytes per second than 1e11); local-mem-bw and remote-mem-bw are always "
                  "1e9, as in ASTRA-sim");
  astra
      ->add_option("--backend,-b", ao.backend,
                   "network backends, comma-separated (one run each): analytical (ASTRA-sim's "
                   "congestion-unaware model, default), queue (its congestion-aware one), flow, "
                   "packet")
      ->capture_default_str();
  astra->add_flag("!--no-astra-compat", ao.compat,
                  "turn ASTRA-sim compatibility mode off (default on: ASTRA-sim 2.x's local "
                  "memory cost per reduction step, active-chunks-per-dimension on one-dimension "
                  "networks, its localBWAware walk and SCF rule; docs/astra.md)");
  astra->add_flag("--astra-stats", ao.astra_stats,
                  "also print ASTRA-sim's `sys[i], Wall time: N` and `sys[i], Comm time: N` "
                  "lines after each finish line");
  astra->add_option("--logging-configuration", ao.logging_configuration,
                    "ASTRA-sim's logging file: accepted, no effect (output-only)");
  astra->add_option("--logging-folder", ao.logging_folder,
                    "ASTRA-sim's log folder: accepted, no effect (output-only)");
  astra->add_option("--comm-scale", ao.comm_scale,
                    "ASTRA-sim's communication scale: no effect on Chakra traces (ASTRA-sim 2.x's "
                    "workload layer does not read it); 1 only for 1.0 text workloads")
      ->capture_default_str();
  astra->add_option("--injection-scale", ao.injection_scale,
                    "ASTRA-sim's injection scale: multiplies endpoint-delay, as its Sys does")
      ->capture_default_str();
  astra->add_option("--num-queues-per-dim", ao.num_queues_per_dim,
                    "ASTRA-sim's queues per dimension: 1 (its default) only")
      ->capture_default_str();
  astra->add_option("--rendezvous-protocol", ao.rendezvous,
                    "ASTRA-sim's rendezvous protocol: false (its default) only")
      ->capture_default_str();
  astra->add_option("--max-time", ao.max_time,
                    "stop a run that has not finished after this much simulated time");
  astra->add_option("--scale", ao.scale,
                    "replay a Chakra trace of N ranks as K x N: K clones of every rank on a "
                    "platform whose outermost dimension is K times larger; sends stay in their "
                    "clone, world collectives span every rank, groups are cloned (docs/traces.md)")
      ->capture_default_str();
  astra->add_option("--widen", ao.widen,
                    "with --scale: communicator groups (pg_name of --comm-group-configuration, "
                    "comma-separated) widened over the clones instead of cloned: the trace's "
                    "data-parallel groups");
  add_output_options(astra, out_opt);
  cli::add_limit_options(*astra, out_opt.max_messages, out_opt.max_memory);
  astra->add_flag("--no-layers", out_opt.no_layers,
                  "table: the totals and the summary only, no per-layer lines");

  cli::NcclTestsCliOptions nt;
  auto* nccl_tests = app.add_subcommand(
      "nccl-tests",
      "emulate an nccl-tests binary (all_reduce_perf, all_gather_perf, reduce_scatter_perf, "
      "alltoall_perf, sendrecv_perf) on a GPU system preset with the closed-form NCCL model; "
      "prints nccl-tests' columns and units (docs/nccl.md)");
  nccl_tests->add_option("BINARY", nt.binary, "all_reduce_perf, all_gather_perf, ...")
      ->required();
  nccl_tests->add_option("-b,--minbytes", nt.min_bytes, "smallest size, nccl-tests syntax (32M)")
      ->capture_default_str();
  nccl_tests->add_option("-e,--maxbytes", nt.max_bytes, "largest size (16G = 16 GiB)")
      ->capture_default_str();
  nccl_tests->add_option("-f,--stepfactor", nt.factor, "size multiplier per step (1: step by -i)")
      ->capture_default_str();
  nccl_tests->add_option("-i,--stepbytes", nt.increment, "size increment per step when -f <= 1")
      ->capture_default_str();
  nccl_tests->add_option("-g,--ngpus", nt.gpus, "GPUs used per node (on one NVSwitch)")
      ->capture_default_str();
  nccl_tests->add_option("--nodes", nt.nodes, "nodes (NVLink domains) of -g GPUs each")
      ->capture_default_str();
  nccl_tests
      ->add_option("--system", nt.system,
                   "GPU system preset (h100, a100, h200, gb200) or a scenario platform file "
                   "(dims: a switch of GPUs per node, then a switch of nodes; no NVLS)")
      ->capture_default_str();
  nccl_tests->add_option("-d,--datatype", nt.type, "element type (float, double, half, ...)")
      ->capture_default_str();
  nccl_tests->add_option("-o,--op", nt.redop, "reduction printed in the redop column")
      ->capture_default_str();
  nccl_tests
      ->add_option("--algorithm,-a", nt.algorithm,
                   "nccl (NCCL's choice: the fastest enabled), ring, nvls, nvls-tree, p2p, pat, "
                   "collnet, collnet-chain (IB SHARP; only when named, as NCCL_COLLNET_ENABLE=1)")
      ->capture_default_str();
  nccl_tests
      ->add_option("--protocol", nt.protocol,
                   "nccl (the fastest the algorithm runs), Simple, LL128 or LL (as NCCL_PROTO)")
      ->capture_default_str();
  cli::add_limit_options(*nccl_tests, nt.max_messages, nt.max_memory, "rows (sizes)");

  cli::ValidateNcclOptions vn;
  auto* validate = app.add_subcommand(
      "validate", "compare collsim with measurements: `validate nccl LOG...` (docs/nccl.md)");
  validate->require_subcommand(1);
  auto* validate_nccl = validate->add_subcommand(
      "nccl", "read nccl-tests logs, run the same sizes on the NCCL model, print per-row error");
  validate_nccl->add_option("LOG", vn.logs, "nccl-tests output files")->required();
  validate_nccl->add_option("--system", vn.system,
                            "GPU system preset (default: from the log's device name)");
  validate_nccl->add_option("--algorithm,-a", vn.algorithm, "as for nccl-tests")
      ->capture_default_str();
  validate_nccl->add_option("--protocol", vn.protocol, "as for nccl-tests")->capture_default_str();
  validate_nccl->add_flag("--fit", vn.fit,
                          "fit the two calibrated parameters (η, α) to the logs' rows instead");

  cli::LlmOptions lo;
  auto* llm = app.add_subcommand(
      "llm",
      "one LLM training iteration from a short config (model or preset, tp/pp/dp/ep/cp split, "
      "GPU): iteration time, tokens/s, TFLOP/s per GPU, MFU, the time split and memory per GPU "
      "(docs/llm.md)");
  llm->add_option("CONFIG", lo.configs, "LLM config file(s) (YAML: model, parallel, system)")
      ->required();
  llm->add_flag("--strict-memory", lo.strict_memory,
                "exit 2 when the memory per GPU exceeds the GPU's (default: a warning)");
  llm->add_flag("--breakdown", lo.breakdown,
                "print each pipeline stage's compute per kernel class (GEMM, attention, softmax, "
                "norm, ..., launch) instead of the iteration");
  llm->add_flag("--search", lo.search,
                "rank the splits (tp, pp, dp, ep, cp, micro-batch, vpp, recompute, sequence "
                "parallel, ZeRO) of the config's job (system.gpus) that fit in memory");
  llm->add_option("--top", lo.top, "--search: how many configurations to print")
      ->capture_default_str();
  llm->add_flag("--exhaustive", lo.exhaustive,
                "--search: simulate every split that fits (no pruning by the lower bound)");
  llm->add_option("--max-messages", out_opt.max_messages,
                  "refuse an iteration whose collectives and pipeline messages come to more "
                  "messages (or packets, flits: the backend's unit) than this (default 5e+08)");
  llm->add_option("--jobs,-j", out_opt.jobs,
                  "run N configs at once on N threads; rows in input order, the same bytes as "
                  "--jobs 1 (0, the default: the number of cores; --trace runs one)");
  add_output_options(llm, out_opt);
  add_export_option(llm, out_opt);

  if (const std::string unknown = cli::unknown_option(app, argc, argv); !unknown.empty()) {
    err << "collsim: error: " << unknown << '\n';
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    err << "collsim: error: " << cli::rewrite_parse_error(e.what())
        << "\n(run `collsim --help` or `collsim "
        << "SUBCOMMAND --help`)\n";
    return 2;
  }

  try {
    // A missing output folder is reported now, not after the whole simulation.
    if (*run || *coll || *train || *astra || *llm) cli::check_output_paths(out_opt);
    // Under mpirun (K > 1 ranks): this rank's slice of the points (cli/rank_shard.hpp).
    if (cli::RankContext* ranks = cli::rank_context()) {
      cli::apply_rank_shard(*ranks, out_opt, app.get_subcommands().front()->get_name(),
                            *run || *coll || *train);
    }
    if (*run) return cli::run_scenario(scenario, out_opt, out, err);
    if (*coll) return cli::run_collective(co, out_opt, out, err);
    if (*list) return cli::list_everything(out);
    if (*verify) return cli::verify_algorithm(vo, out);
    if (*inventory) return cli::show_inventory(inv, inv_max_messages, inv_max_memory, out);
    if (*mtree) return cli::show_multitree(mo, out);
    if (*train) return cli::run_train(tr, out_opt, out, err);
    if (*astra) return cli::run_astra(ao, out_opt, out, err);
    if (*llm) return cli::run_llm(lo, out_opt, out, err);
    if (*help) return cli::help_for(help_name, out);
    if (*plot) return cli::plot_results(po, err);
    if (*nccl_tests) return cli::run_nccl_tests_command(nt, out);
    if (*validate_nccl) return cli::validate_nccl_logs(vn, out);
    if (*merge) return cli::merge_results(merge_files, merge_output, out);
  } catch (const core::InputError& e) {
    err << "collsim: error: " << e.what() << '\n';
    return 2;
  } catch (const core::ResourceError& e) {
    err << "collsim: error: " << e.what() << '\n';
    return 2;
  } catch (const std::bad_alloc&) {
    err << "collsim: error: out of memory; use fewer NPUs, ranks or chunks (runs estimated "
           "above --max-memory are refused before they start)\n";
    return 2;
  } catch (const core::SimulationError& e) {
    err << "collsim: simulation failed: " << e.what() << '\n';
    return 3;
  } catch (const core::Interrupted& e) {
    err << "collsim: " << e.what() << '\n';
    return core::interrupted_status(e.signal());
  } catch (const std::exception& e) {
    err << "collsim: internal error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

}  // namespace collsim::cli
