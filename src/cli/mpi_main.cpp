// `mpirun -n K collsim ...` in a collsim built with MPI (CMake found it: COLLSIM_MPI): every rank
// runs the command line on its slice of the points (cli/rank_shard.hpp), then rank 0 gathers
// every rank's exit status, standard output and error and writes what a serial run writes.
// Only this file calls MPI; it is built into the collsim executable alone (not the library, the
// Python module or the tests), so collsim builds and runs the same without MPI.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <climits>
#include <cstdint>
#include <ostream>
#include <sstream>
#include <vector>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/rank_shard.hpp"
#include "core/error.hpp"

namespace collsim::cli {

int mpi_main(int argc, char** argv, std::ostream& out, std::ostream& err) {
  RankContext context;
  context.ranks = launched_ranks();
  int provided = 0;
  // The points' threads (--jobs) never call MPI: the main thread alone does.
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    err << "collsim: error: MPI_Init failed\n";
    return 2;
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size == 1) {  // a launcher's variables, but one rank: a serial run
    const int status = run_cli(argc, argv, out, err);
    MPI_Finalize();
    return status;
  }
  context.ranks.rank = static_cast<std::uint32_t>(rank);
  context.ranks.size = static_cast<std::uint32_t>(size);

  set_rank_context(&context);
  std::ostringstream rank_out, rank_err;
  RankOutput mine;
  mine.status = run_cli(argc, argv, rank_out, rank_err);
  mine.interrupted = interrupt_signal() != 0;
  mine.out = rank_out.str();
  mine.err = rank_err.str();
  set_rank_context(nullptr);

  // Status, signal, and the lengths of standard output and error from every rank; then the bytes.
  long long meta[4] = {mine.status, mine.interrupted ? 1 : 0,
                       static_cast<long long>(mine.out.size()),
                       static_cast<long long>(mine.err.size())};
  std::vector<long long> metas(rank == 0 ? 4 * static_cast<std::size_t>(size) : 0);
  MPI_Gather(meta, 4, MPI_LONG_LONG, metas.data(), 4, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  const std::string bytes = mine.out + mine.err;
  const bool too_big = bytes.size() > static_cast<std::size_t>(INT_MAX);
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  std::size_t total = 0;
  bool overflow = false;
  if (rank == 0) {
    for (int k = 0; k < size; ++k) {
      const std::size_t n = static_cast<std::size_t>(metas[4 * k + 2] + metas[4 * k + 3]);
      counts[k] = static_cast<int>(n);
      displs[k] = static_cast<int>(total);
      total += n;
      overflow = overflow || n > static_cast<std::size_t>(INT_MAX) || total > INT_MAX;
    }
  }
  int refuse = overflow ? 1 : 0;
  MPI_Bcast(&refuse, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int status = 0;
  if (refuse != 0 || too_big) {
    if (rank == 0) {
      err << "collsim: error: the ranks' output is over 2 GiB, more than one MPI gather takes; "
             "run the slices with --shard I/N -o FILE and `collsim merge` (docs/parallel.md)\n";
    }
    MPI_Finalize();
    return rank == 0 ? 2 : 0;
  }
  std::string all(rank == 0 ? total : 0, '\0');
  MPI_Gatherv(bytes.data(), static_cast<int>(bytes.size()), MPI_CHAR, all.data(), counts.data(),
              displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::vector<RankOutput> ranks(static_cast<std::size_t>(size));
    for (int k = 0; k < size; ++k) {
      RankOutput& r = ranks[static_cast<std::size_t>(k)];
      r.status = static_cast<int>(metas[4 * k]);
      r.interrupted = metas[4 * k + 1] != 0;
      const std::size_t at = static_cast<std::size_t>(displs[k]);
      const std::size_t n_out = static_cast<std::size_t>(metas[4 * k + 2]);
      r.out = all.substr(at, n_out);
      r.err = all.substr(at + n_out, static_cast<std::size_t>(metas[4 * k + 3]));
    }
    try {
      status = write_composed(compose_rank_outputs(ranks, context.sharded, context.output),
                              context.output, out, err);
    } catch (const core::InputError& e) {
      err << "collsim: error: " << e.what() << '\n';
      status = 2;
    }
  }
  MPI_Finalize();
  // mpirun exits with the first non-zero status: rank 0's is the command's.
  return rank == 0 ? status : 0;
}

}  // namespace collsim::cli
