#pragma once
// `mpirun -n K collsim run sweep.yaml --format csv` (docs/parallel.md): every rank parses the same
// command line, lists the same points and runs its own slice of them (`--shard rank/K`,
// jobs/shard.hpp); rank 0 gathers the ranks' shard CSVs and writes the bytes of a serial run.
//
// This file is the part without MPI (the collsim library, the Python module and the tests link
// it): what the command line does on a rank, and how rank 0 puts the ranks' outputs together.
// The MPI calls (MPI_Init, the gathers) are in cli/mpi_main.cpp, built into the collsim
// executable only when CMake finds MPI.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "cli/commands.hpp"

namespace collsim::cli {

/// The ranks a launcher started this process among, from its environment (Open MPI's
/// OMPI_COMM_WORLD_SIZE / _RANK / _LOCAL_SIZE, or PMI_SIZE / PMI_RANK of MPICH's and Slurm's
/// launchers); size 1 when not started by one.
struct LaunchedRanks {
  std::uint32_t rank = 0, size = 1;
  std::uint32_t local_size = 1;  ///< ranks on this machine
};
LaunchedRanks launched_ranks();

/// What the command line does on a rank of a K > 1 run: set by cli/mpi_main.cpp before run_cli,
/// read by run_cli (apply_rank_shard) and by rank 0 afterwards.
struct RankContext {
  LaunchedRanks ranks;
  bool sharded = false;  ///< the command split its points (run, collective, train)
  std::string output;    ///< the -o FILE rank 0 writes at the end; empty: standard output
};
/// The context of this process, or nullptr (not run by mpirun with K > 1 ranks).
RankContext* rank_context();
void set_rank_context(RankContext* context);

/// run_cli, after parsing, under mpirun: for a command with points (`shardable`: run, collective,
/// train) the rank's slice (`--shard rank/K`), CSV to the captured stream (rank 0 writes -o FILE
/// at the end), no progress line, and --jobs 0 as the cores over the ranks on this machine.
/// Throws core::InputError when the command has no points to split (names `command`), when
/// --format is not csv or when --shard is given too.
void apply_rank_shard(RankContext& context, OutputOptions& opt, const std::string& command,
                      bool shardable);

/// What run_cli gave on one rank: its exit status, standard output and error, and whether a
/// SIGINT / SIGTERM stopped it.
struct RankOutput {
  int status = 0;
  bool interrupted = false;
  std::string out, err;
};

/// What rank 0 writes: `out` to standard output or (`to_output`, with -o FILE) to FILE, or to
/// FILE.partial (`partial`: as a serial CSV run that stopped leaves it); `err` to standard error.
struct ComposedOutput {
  int status = 0;
  std::string out, err;
  bool to_output = false;
  bool partial = false;
};

/// Rank 0's output from every rank's (in rank order), with the -o path `output` (empty: standard
/// output):
/// - every rank succeeded: the shards merged (jobs/shard.hpp: the serial run's bytes), rank 0's
///   standard error (its warnings and notes);
/// - a rank failed (the first, in rank order): the rows of the ranks before it and the rows it
///   finished, its error and status (a serial run stops at the same point: what it wrote is
///   the same rows);
/// - a signal stopped some rank: the rows every rank finished, in input order, status 3;
/// - a run that did not split its points (not sharded, or an LLM scenario): rank 0's output.
ComposedOutput compose_rank_outputs(const std::vector<RankOutput>& ranks, bool sharded,
                                    const std::string& output);

/// Writes `c` (to `out`, `err` and its file) and returns its status.
int write_composed(const ComposedOutput& c, const std::string& output, std::ostream& out,
                   std::ostream& err);

/// `collsim` under mpirun with K > 1 ranks, in a build with MPI (cli/mpi_main.cpp; declared here,
/// defined only there): run_cli on every rank, rank 0 writes; returns the process exit status.
int mpi_main(int argc, char** argv, std::ostream& out, std::ostream& err);

/// The message of a collsim built without MPI that mpirun started K > 1 times (rank 0 prints
/// it; every rank exits 2).
std::string without_mpi_message(const LaunchedRanks& ranks);

}  // namespace collsim::cli
