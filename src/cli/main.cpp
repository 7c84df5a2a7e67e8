// The collsim binary: the command line of cli/app.cpp on the standard streams.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/rank_shard.hpp"

int main(int argc, char** argv) {
  collsim::cli::install_interrupt_handlers();
  // Started by mpirun as one of K > 1 ranks: the points split over the ranks (docs/parallel.md).
  if (const auto ranks = collsim::cli::launched_ranks(); ranks.size > 1) {
#ifdef COLLSIM_MPI
    return collsim::cli::mpi_main(argc, argv, std::cout, std::cerr);
#else
    if (ranks.rank == 0) std::cerr << collsim::cli::without_mpi_message(ranks);
    return 2;
#endif
  }
  return collsim::cli::run_cli(argc, argv, std::cout, std::cerr);
}
